"""The culture table of values/cultures.py, which FORMAT and PARSE both read."""

from __future__ import annotations

from datetime import date, datetime
from decimal import Decimal
from typing import Any

import pytest

from tsqlbroker.errors import TSqlError
from tsqlbroker.values.cultures import CULTURES, culture
from tsqlbroker.values.format_builtins import format_value
from tsqlbroker.values.parse_builtins import parse_value
from tsqlbroker.values.types import parse_type_spec

ASKED = ("es-ES it-IT pt-BR pt-PT nl-NL sv-SE da-DK nb-NO fi-FI pl-PL ru-RU cs-CZ tr-TR zh-CN "
         "zh-TW ko-KR en-AU en-CA en-IN fr-CA de-CH de-AT es-MX en-US en-GB de-DE fr-FR ja-JP")


@pytest.mark.parametrize("name", sorted(CULTURES))
def test_every_culture_is_whole(name: str) -> None:
    c = CULTURES[name]
    assert len(c.months) == len(c.month_abbr) == 12
    assert len(c.days) == len(c.day_abbr) == 7
    assert c.months_genitive == () or len(c.months_genitive) == 12
    assert c.month_abbr_genitive == () or len(c.month_abbr_genitive) == 12
    assert c.order in ("mdy", "dmy", "ymd")
    assert c.group != c.decimal and c.currency
    assert all(p.count("n") == 1 for p in (c.currency_positive, c.currency_negative))


@pytest.mark.parametrize("name", ASKED.split())
def test_named_cultures_and_their_case(name: str) -> None:
    assert culture(name) is culture(name.upper()) is culture(f" {name.lower()} ")


@pytest.mark.parametrize(("neutral", "specific"), [
    ("de", "de-DE"), ("fr", "fr-FR"), ("en", "en-US"), ("es", "es-ES"), ("pt", "pt-BR"),
    ("no", "nb-NO"), ("zh", "zh-CN"), ("zh-Hans", "zh-CN"), ("ja", "ja-JP"), ("", "invariant"),
])
def test_neutral_names_are_their_default_culture(neutral: str, specific: str) -> None:
    assert culture(neutral) is culture(specific)


@pytest.mark.parametrize("name", ["es-AR", "xx-YY", "de_DE", "0"])
def test_other_names_are_msg_9818(name: str) -> None:
    with pytest.raises(TSqlError) as caught:
        culture(name)
    assert caught.value.number == 9818
    with pytest.raises(TSqlError):
        parse_value("1", parse_type_spec("int"), name, try_=True)
    with pytest.raises(TSqlError):
        format_value(1, "N", name)


D = datetime(2024, 3, 5, 13, 7, 9)


@pytest.mark.parametrize(("value", "fmt", "name", "expected"), [
    (D, "d MMMM", "ru-RU", "5 марта"),           # genitive next to a day number
    (D, "dddd MMMM", "pl-PL", "wtorek marzec"),  # not next to 'dddd'
    (D, "MMMM", "cs-CZ", "březen"),
    (D, "dd MMM", "ru-RU", "05 мар"),
    (date(2024, 5, 1), "d MMM", "ru-RU", "1 мая"),  # the abbreviated genitive
    (D, "dd/MM/yyyy HH:mm", "fi-FI", "05.03.2024 13:07"),  # '/' is the date separator
    (D, "yyyy/MM/dd", "ko-KR", "2024-03-05"),
    (D, "t", "ko-KR", "오후 1:07"),
    (D, "tt h:mm", "zh-CN", "下午 1:07"),
    (D, "M", "es-ES", "5 de marzo"),
    (D, "ddd", "fr-FR", "mar."),
    (D, "MMM", "fr-FR", "mars"),
    (date(2024, 7, 1), "MMM", "fr-CA", "juill."),
    (Decimal("123456789.5"), "N1", "en-IN", "12,34,56,789.5"),
    (Decimal("123456789.5"), "#,##0", "en-IN", "12,34,56,790"),
    (Decimal(-5), "C", "nl-NL", "€ -5,00"),
    (Decimal(5), "C", "ja-JP", "¥5"),
    (Decimal(5), "C1", "ja-JP", "¥5.0"),
    (Decimal("0.25"), "P0", "tr-TR", "%25"),
    (D, "d", "", "03/05/2024"),  # '' is .NET's invariant culture, not the session's
    (D, "d", None, "3/5/2024"),
])
def test_format_in_culture(value: Any, fmt: str, name: str, expected: str) -> None:
    assert format_value(value, fmt, name) == expected


@pytest.mark.parametrize(("text", "target", "name", "expected"), [
    ("segunda-feira, 4 de março de 2024", "date", "pt-BR", date(2024, 3, 4)),
    ("4 marzo 2024", "date", "it", date(2024, 3, 4)),
    ("4 mar. 2024", "date", "es-ES", date(2024, 3, 4)),
    ("4 juill. 2024", "date", "fr-CA", date(2024, 7, 4)),
    ("4 марта 2024", "date", "ru-RU", date(2024, 3, 4)),
    ("4 март 2024", "date", "ru-RU", date(2024, 3, 4)),
    ("4. maaliskuuta 2024", "date", "fi-FI", date(2024, 3, 4)),
    ("4.3.2024", "date", "fi-FI", date(2024, 3, 4)),
    ("2024-03-04", "date", "sv-SE", date(2024, 3, 4)),
    ("den 4 mars 2024", "date", "sv-SE", date(2024, 3, 4)),
    ("2024년 3월 4일 월요일", "date", "ko-KR", date(2024, 3, 4)),
    ("2024年3月4日 星期一", "date", "zh-CN", date(2024, 3, 4)),
    ("4/3/2024 2:05 p. m.", "datetime2(0)", "es-MX", datetime(2024, 3, 4, 14, 5)),
    ("3/4/2024 2:05 p.m.", "datetime2(0)", "en-CA", datetime(2024, 3, 4, 14, 5)),
    ("1.234,5", "decimal(9,1)", "da-DK", Decimal("1234.5")),
    ("1 234,5", "decimal(9,1)", "nb-NO", Decimal("1234.5")),
    ("kr. 12,50", "money", "da-DK", Decimal("12.5000")),
    ("12,50 zł", "money", "pl-PL", Decimal("12.5000")),
    ("₩1,200", "money", "ko-KR", Decimal("1200.0000")),
    ("CHF 12.50", "money", "de-CH", Decimal("12.5000")),
])
def test_parse_in_culture(text: str, target: str, name: str, expected: Any) -> None:
    assert parse_value(text, parse_type_spec(target), name) == expected


@pytest.mark.parametrize(("text", "target", "name"), [
    ("martes, 4 de marzo de 2024", "date", "es-ES"),  # 4 March 2024 is a Monday
    ("4 mars 2024", "date", "es-ES"),   # the French month
    ("1.234,5", "decimal(9,1)", "en-AU"),
    ("1,234.5", "decimal(9,1)", "pt-BR"),
])
def test_parse_refuses_other_cultures_text(text: str, target: str, name: str) -> None:
    assert parse_value(text, parse_type_spec(target), name, try_=True) is None
