"""Whatever text a user supplies, value code fails only with TSqlError (never a traceback)."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tsqlbroker.errors import TSqlError
from tsqlbroker.values.convert import converter
from tsqlbroker.values.format_builtins import format_value
from tsqlbroker.values.json_builtins import json_modify, json_query, json_value
from tsqlbroker.values.operators import like
from tsqlbroker.values.types import parse_type_spec
from tsqlbroker.values.xml_value import XmlValue

TARGETS = ["int", "tinyint", "bigint", "bit", "decimal(10,2)", "money", "float", "real",
           "uniqueidentifier", "date", "time", "datetime", "smalldatetime", "datetime2",
           "datetimeoffset", "xml", "varbinary(max)", "char(3)"]
TEXT = st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=40)
SQLISH = st.text(alphabet="0123456789-+.:/ eE$,TZabcxyzAMPM<>/=\"'[]()@*", max_size=30)


def _only_tsql_errors(fn: Any, *args: Any) -> None:
    try:
        fn(*args)
    except TSqlError:
        pass


@settings(max_examples=300)
@given(st.one_of(TEXT, SQLISH), st.sampled_from(TARGETS), st.sampled_from([None, 1, 2, 103, 121]))
def test_string_conversions(text: str, target: str, style: int | None) -> None:
    try:
        conv = converter(parse_type_spec("nvarchar(max)"), parse_type_spec(target), style=style)
    except TSqlError:
        return
    _only_tsql_errors(conv, text)


@settings(max_examples=300)
@given(st.one_of(TEXT, SQLISH))
def test_xml_parsing(text: str) -> None:
    _only_tsql_errors(XmlValue.parse, text)
    _only_tsql_errors(XmlValue.from_bytes, text.encode("utf-8", "surrogatepass"))


DOC = XmlValue.parse('<r><a id="1">x</a><a id="2">y</a></r>')


@settings(max_examples=300)
@given(st.text(alphabet="/ra@id[]()12.*:=\"' textcoun-$", max_size=25))
def test_xquery_text(query: str) -> None:
    _only_tsql_errors(DOC.value, query, "nvarchar(10)")
    _only_tsql_errors(DOC.query, query)
    _only_tsql_errors(DOC.exist, query)
    _only_tsql_errors(DOC.nodes, query)


@settings(max_examples=200)
@given(st.one_of(TEXT, st.text(alphabet='{}[]":,0123 truefalsn.$a', max_size=25)),
       st.text(alphabet='$.a[]0" ', max_size=8))
def test_json_text(text: str, path: str) -> None:
    _only_tsql_errors(json_value, text, path)
    _only_tsql_errors(json_query, text, path)
    _only_tsql_errors(json_modify, text, path, "v")


@settings(max_examples=200)
@given(TEXT, st.text(alphabet="%_[]^-ab!", max_size=10))
def test_like_patterns(value: str, pattern: str) -> None:
    assert like(value, pattern) in (True, False)
    assert like(value, pattern, "!") in (True, False)


@settings(max_examples=200)
@given(st.text(alphabet="0#.,;%'\"\\Ndyxf MHhmsEeCP", max_size=12),
       st.sampled_from([0, -3, 1234.5, 2**40]))
def test_format_strings(fmt: str, value: float) -> None:
    result = format_value(value, fmt)
    assert result is None or isinstance(result, str)


@pytest.mark.parametrize("spec", ["nvarchar(x)", "decimal(a,b)", "", "int(", "xml("])
def test_bad_type_specs(spec: str) -> None:
    with pytest.raises(TSqlError):
        parse_type_spec(spec)
