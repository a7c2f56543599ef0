"""Pure helpers of FOR XML / FOR JSON (engine/forxml.py); the formatting itself is covered
by tests/golden/storage/for_xml_json.sql on both backends."""

from __future__ import annotations

import pytest
import sqlglot

from tsqlbroker.engine.forxml import _fragment_query, check_lost_clauses, options_of, xml_name
from tsqlbroker.errors import TSqlError


def test_xml_names_are_encoded() -> None:
    assert xml_name("name") == "name"
    assert xml_name("order date") == "order_x0020_date"
    assert xml_name("1st") == "_x0031_st"
    assert xml_name("a-b.c") == "a-b.c"


def test_fragment_paths_move_under_the_wrapper() -> None:
    assert _fragment_query(".") == "(/tsqlb_fragment)[1]"
    assert _fragment_query("(./text())[1]") == "(/tsqlb_fragment/text())[1]"
    assert _fragment_query("(/i)[2]") == "(/tsqlb_fragment/i)[2]"
    assert _fragment_query("/i[1]") == "/tsqlb_fragment/i[1]"
    assert _fragment_query("//i") is None


def test_options_are_read() -> None:
    select = sqlglot.parse_one("SELECT a FROM t FOR XML RAW('r'), ELEMENTS, ROOT('x'), TYPE",
                               read="tsql")
    opts = options_of(select)
    assert opts is not None
    assert (opts.kind, opts.mode, opts.row, opts.root, opts.elements, opts.type_) == (
        "XML", "RAW", "r", "x", True, True)
    json = options_of(sqlglot.parse_one(
        "SELECT a FROM t FOR JSON PATH, WITHOUT_ARRAY_WRAPPER, INCLUDE_NULL_VALUES",
        read="tsql"))
    assert json is not None and json.without_array_wrapper and json.include_nulls
    with pytest.raises(TSqlError) as ei:
        options_of(sqlglot.parse_one("SELECT a FROM t FOR XML EXPLICIT", read="tsql"))
    assert ei.value.number == 40000


def test_a_dropped_for_clause_is_refused() -> None:
    text = "SELECT a FROM t UNION ALL SELECT b FROM u FOR XML PATH('')"
    with pytest.raises(TSqlError) as ei:
        check_lost_clauses(text, sqlglot.parse_one(text, read="tsql"))
    assert ei.value.number == 40000
    kept = "SELECT a FROM t WHERE b = 'FOR XML' FOR XML PATH('')"
    check_lost_clauses(kept, sqlglot.parse_one(kept, read="tsql"))
