"""Date/time text parsing, rounding to each type's precision, and the date arithmetic."""

from __future__ import annotations

from datetime import UTC, date, datetime, time, timedelta, timezone
from typing import Any

import pytest

from tsqlbroker.errors import TSqlError
from tsqlbroker.values import dates as dt


@pytest.mark.parametrize(
    ("text", "type_name", "style", "expected"),
    [
        ("2024-03-05", "datetime", None, datetime(2024, 3, 5)),
        ("2024-3-5", "date", None, date(2024, 3, 5)),
        ("20240305", "date", None, date(2024, 3, 5)),
        ("20240305 10:11", "datetime", None, datetime(2024, 3, 5, 10, 11)),
        ("2024-03-05T10:11:12", "datetime2", None, datetime(2024, 3, 5, 10, 11, 12)),
        ("2024-03-05 10:11:12.5", "datetime2", None, datetime(2024, 3, 5, 10, 11, 12, 500000)),
        ("03/05/2024", "date", None, date(2024, 3, 5)),
        ("05/03/2024", "date", 103, date(2024, 3, 5)),
        ("05.03.2024", "date", 104, date(2024, 3, 5)),
        ("3/5/24", "date", None, date(2024, 3, 5)),
        ("3/5/49", "date", 1, date(2049, 3, 5)),
        ("3/5/50", "date", 1, date(1950, 3, 5)),
        ("Mar 5 2024", "date", None, date(2024, 3, 5)),
        ("March 5, 2024", "date", None, date(2024, 3, 5)),
        ("5 March 2024", "date", None, date(2024, 3, 5)),
        ("Mar  5 2024  1:07PM", "datetime", None, datetime(2024, 3, 5, 13, 7)),
        ("Mar 5 2024 12:00AM", "datetime", None, datetime(2024, 3, 5, 0, 0)),
        ("13:07:09.1234567", "time", None, time(13, 7, 9, 123457)),
        ("1:07 pm", "time", None, time(13, 7)),
        ("10:00", "datetime", None, datetime(1900, 1, 1, 10, 0)),
        ("  2024-03-05  ", "date", None, date(2024, 3, 5)),
        ("", "datetime", None, datetime(1900, 1, 1)),
        ("2024-03-05T10:00:00Z", "datetimeoffset", None,
         datetime(2024, 3, 5, 10, tzinfo=UTC)),
        ("2024-03-05 10:00:00 -05:30", "datetimeoffset", None,
         datetime(2024, 3, 5, 10, tzinfo=timezone(-timedelta(hours=5, minutes=30)))),
        ("2024-03-05 10:00:29.998", "smalldatetime", None, datetime(2024, 3, 5, 10, 0)),
        ("2024-03-05 10:00:29.999", "smalldatetime", None, datetime(2024, 3, 5, 10, 1)),
        ("2024-03-05 10:00:30", "smalldatetime", None, datetime(2024, 3, 5, 10, 1)),
        ("2024-03-05 23:59:59.999", "datetime", None, datetime(2024, 3, 6)),
    ],
)
def test_parse(text: str, type_name: str, style: int | None, expected: Any) -> None:
    assert dt.parse_to(text, type_name, None if type_name != "time" else 7, style) == expected


@pytest.mark.parametrize(
    ("text", "type_name", "number"),
    [("hello", "datetime", 241), ("2024-13-01", "datetime", 242), ("2024-13-01", "date", 241),
     ("1700-01-01", "datetime", 242), ("1700-01-01", "date", None), ("25:00", "time", 241),
     ("", "date", 241), ("Foo 5 2024", "date", 241)],
)
def test_parse_errors(text: str, type_name: str, number: int | None) -> None:
    if number is None:
        assert dt.parse_to(text, type_name) == date(1700, 1, 1)
        return
    with pytest.raises(TSqlError) as ei:
        dt.parse_to(text, type_name)
    assert ei.value.number == number


@pytest.mark.parametrize(
    ("micro", "expected"),
    [(0, 0), (1000, 0), (2000, 3000), (3000, 3000), (4999, 3000), (5000, 7000),
     (8000, 7000), (9000, 10000), (998_000, 997000), (999_000, 1_000_000)],
)
def test_round_datetime_ticks(micro: int, expected: int) -> None:
    v = datetime(2024, 1, 1) + timedelta(microseconds=micro)
    assert dt.round_datetime(v) == datetime(2024, 1, 1) + timedelta(microseconds=expected)


@pytest.mark.parametrize(
    ("scale", "expected"),
    [(0, time(10, 0, 1)), (1, time(10, 0, 0, 600000)), (3, time(10, 0, 0, 555556 // 1000 * 1000
                                                                   + 1000)),
     (6, time(10, 0, 0, 555556)), (7, time(10, 0, 0, 555556))],
)
def test_round_fraction(scale: int, expected: time) -> None:
    assert dt.round_fraction(time(10, 0, 0, 555556), scale) == expected


def test_is_date_text() -> None:
    assert dt.is_date_text("2024-01-01") and not dt.is_date_text("x")
    assert not dt.is_date_text("")


@pytest.mark.parametrize(
    ("part", "a", "b", "expected"),
    [
        ("year", datetime(2023, 12, 31, 23, 59), datetime(2024, 1, 1), 1),
        ("quarter", date(2024, 3, 31), date(2024, 4, 1), 1),
        ("month", date(2024, 1, 1), date(2023, 12, 31), -1),
        ("day", datetime(2024, 1, 1, 0, 0), datetime(2024, 1, 1, 23, 59), 0),
        ("minute", datetime(2024, 1, 1, 0, 0, 59), datetime(2024, 1, 1, 0, 1, 0), 1),
        ("second", time(10, 0, 0, 999999), time(10, 0, 1), 1),
        ("microsecond", datetime(2024, 1, 1), datetime(2024, 1, 1, 0, 0, 1), 1_000_000),
        ("day", datetime(2024, 1, 1, 23, tzinfo=timezone(timedelta(hours=-2))),
         datetime(2024, 1, 2, 0, tzinfo=UTC), 0),
    ],
)
def test_datediff_boundaries(part: str, a: Any, b: Any, expected: int) -> None:
    assert dt.datediff(part, a, b) == expected


def test_datepart_names() -> None:
    assert dt.datepart_name("YYYY", "datepart") == "year"
    assert dt.datepart_name("mcs", "datepart") == "microsecond"
    with pytest.raises(TSqlError) as ei:
        dt.datepart_name("eon", "datediff")
    assert ei.value.message == "'eon' is not a recognized datediff option."


def test_dateadd_month_end_and_overflow() -> None:
    assert dt.dateadd("month", 1, datetime(2024, 3, 31), "datetime") == datetime(2024, 4, 30)
    assert dt.dateadd("day", -1, date(2024, 3, 1), "date") == date(2024, 2, 29)
    with pytest.raises(TSqlError) as ei:
        dt.dateadd("year", 1, datetime(9999, 6, 1), "datetime2")
    assert (ei.value.number, ei.value.message) == (
        517, "Adding a value to a 'datetime2' column caused an overflow.")


def test_dateadd_smalldatetime_range_ends_at_its_last_minute() -> None:
    last = datetime(2079, 6, 6, 23, 59)
    assert dt.dateadd("second", 29, last, "smalldatetime") == last
    with pytest.raises(TSqlError) as ei:
        dt.dateadd("minute", 1, last, "smalldatetime")
    assert ei.value.number == 517
    with pytest.raises(TSqlError):
        dt.dateadd("second", 30, last, "smalldatetime")  # rounds up past the range


def test_datepart_week_and_weekday_follow_datefirst() -> None:
    sunday = date(2024, 1, 7)  # 2024-01-01 is a Monday
    assert [dt.datepart("weekday", sunday, first) for first in (7, 1, 3)] == [1, 7, 5]
    assert [dt.datepart("week", sunday, first) for first in (7, 1)] == [2, 1]


def test_datename_tzoffset_and_weekday() -> None:
    v = datetime(2024, 3, 3, tzinfo=timezone(timedelta(hours=5, minutes=30)))
    assert dt.datename("tzoffset", v) == "+05:30"
    assert dt.datename("weekday", v) == "Sunday"
    assert dt.datepart("tzoffset", v) == 330
