"""PARSE / TRY_PARSE: the reading of values/parse_builtins.py per culture, and the same
reading of a column's values inside a query (SQLite: ``tsqlb_parse`` over the values layer;
PostgreSQL has no reader of .NET's formats: Msg 40000, docs/decisions.md)."""

from __future__ import annotations

from datetime import date, datetime
from decimal import Decimal
from typing import Any

import pytest

from tsqlbroker.errors import TSqlError
from tsqlbroker.interpreter.instance import Instance
from tsqlbroker.interpreter.sink import CollectingSink
from tsqlbroker.values.parse_builtins import parse_value
from tsqlbroker.values.types import parse_type_spec

READINGS: list[tuple[str, str, str | None, Any]] = [
    ("3,5", "decimal(4,2)", "de-DE", Decimal("3.50")),
    ("3,5", "decimal(4,2)", "fr-FR", Decimal("3.50")),
    ("3,5", "int", "en-US", 35),                          # a group separator in en-US
    ("1\u202f234,5", "decimal(10,1)", "fr-FR", Decimal("1234.5")),
    ("12 345", "int", "fr-FR", 12345),
    ("£12.40", "money", "en-GB", Decimal("12.4000")),
    ("12,40 €", "smallmoney", "fr-FR", Decimal("12.4000")),
    ("-¥1,200", "money", "ja-JP", Decimal("-1200.0000")),
    ("1.5E+2", "real", None, 150.0),
    ("05/04/2021", "date", "en-US", date(2021, 5, 4)),
    ("05/04/2021", "date", "en-GB", date(2021, 4, 5)),
    ("05/04/2021", "date", "", date(2021, 5, 4)),
    ("05.04.2021", "date", "de-DE", date(2021, 4, 5)),
    ("2021/05/04", "date", "ja-JP", date(2021, 5, 4)),
    ("4. Mai 2021", "date", "de-DE", date(2021, 5, 4)),
    ("mardi 4 mai 2021", "date", "fr-FR", date(2021, 5, 4)),
    ("May 4, 2021 3:07:09 PM", "datetime2(0)", None, datetime(2021, 5, 4, 15, 7, 9)),
    ("2021年5月4日 午前 9:30", "datetime2(0)", "ja-JP", datetime(2021, 5, 4, 9, 30)),
]


@pytest.mark.parametrize(("text", "target", "culture", "expected"), READINGS)
def test_reading_per_culture(text: str, target: str, culture: str | None,
                             expected: Any) -> None:
    assert parse_value(text, parse_type_spec(target), culture) == expected


@pytest.mark.parametrize(("text", "target", "culture"), [
    ("3,5,0", "decimal(4,2)", "de-DE"), ("1,000.5", "float", None), ("(1)", "int", None),
    ("4 Mai 2021", "date", "en-GB"), ("13/05/2021", "date", "en-US"),
    ("32/01/2021", "date", "en-GB"), ("25:00", "time", None), ("", "int", None),
])
def test_unreadable_text(text: str, target: str, culture: str | None) -> None:
    """Msg 9819 from PARSE, NULL from TRY_PARSE."""
    with pytest.raises(TSqlError) as caught:
        parse_value(text, parse_type_spec(target), culture)
    assert caught.value.number == 9819
    assert parse_value(text, parse_type_spec(target), culture, try_=True) is None


def _run(url: str, sql: str) -> CollectingSink:
    instance = Instance(url)
    sink = CollectingSink()
    session = instance.session(sink)
    try:
        session.execute(sql)
    finally:
        session.close()
        instance.close()
    return sink


ROWS = "CREATE TABLE dbo.raw (id int, txt nvarchar(40), culture varchar(10)); " \
       "INSERT dbo.raw VALUES (1, N'1.234,5', 'de-DE'), (2, N'1,234.5', 'en-US'), " \
       "(3, N'abc', 'en-US'), (4, NULL, 'fr-FR');"


def test_column_values_in_a_query(backend_url: str) -> None:
    sink = _run(backend_url, ROWS + " SELECT id, TRY_PARSE(txt AS decimal(10,2) USING "
                             "culture) AS d FROM dbo.raw ORDER BY id")
    assert not sink.errors()
    assert sink.resultsets()[-1].rows == [
        (1, Decimal("1234.50")), (2, Decimal("1234.50")), (3, None), (4, None)]


def test_column_value_that_does_not_read_fails_the_query(backend_url: str) -> None:
    sink = _run(backend_url, ROWS + " SELECT PARSE(txt AS int USING culture) FROM dbo.raw")
    assert [(e.number, e.message) for e in sink.errors()] == [
        (9819, ("Error converting string value '1.234,5' into data type int using "
               "culture 'de-DE'."))]
