"""Date-function parity: DATEPART / DATENAME / DATEADD / DATEDIFF / DATEDIFF_BIG / EOMONTH /
DATEFROMPARTS … through the interpreter (no FROM: the values layer, values/dates.py),
through a query over a one-row table on SQLite (the function runs inside SQLite as an
adapter over the same values/dates.py) and on PostgreSQL (``tsqlb_datepart`` … in
storage/backends/postgres/dates_sql.py, which cannot call Python). All three must agree:
the value, or the error number. SET DATEFIRST is in force in both (the query receives the
session's setting as a parameter).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import NamedTuple

import pytest

from tests.values.parity import ParityStore, parity_stores


class Case(NamedTuple):
    source: str             # the type of the value (the table column's type)
    literal: str            # the value, as T-SQL text
    expression: str         # the call, with {v} for the value
    datefirst: int = 7      # SET DATEFIRST in force


_D = ("date", "'2024-02-29'")                                  # a Thursday, leap day
_DT = ("datetime", "'2024-12-31 23:59:59.997'")                # a Tuesday, year end
_DT2 = ("datetime2", "'2024-01-31 10:11:12.123456'")
_SDT = ("smalldatetime", "'2024-06-15 12:30:00'")
_T = ("time", "'13:14:15.123456'")
_DTO = ("datetimeoffset", "'2024-02-29 23:30:00.5 +05:30'")
_SUN = ("date", "'2023-12-31'")                                # a Sunday: week 53
_SUN2 = ("date", "'2024-01-07'")                               # week 2, or 1 from Monday
_SDT_MAX = ("smalldatetime", "'2079-06-06 23:59'")
_JAN1 = ("date", "'2021-01-01'")                               # ISO week 53 of 2020
_LOW = ("date", "'0001-01-01'")
_HIGH = ("datetime2", "'9999-12-31 23:59:59.999999'")
_Y = ("int", "2024")

_PARTS = ("year", "quarter", "month", "dayofyear", "day", "week", "weekday", "iso_week",
          "hour", "minute", "second", "millisecond", "microsecond", "nanosecond")


def _c(value: tuple[str, str], expression: str, datefirst: int = 7) -> Case:
    return Case(value[0], value[1], expression, datefirst)


CASES: list[Case] = [
    # DATEPART: every part of a datetime2, date parts of a date, time parts of a time
    *(_c(_DT2, f"DATEPART({p}, {{v}})") for p in _PARTS),
    *(_c(_D, f"DATEPART({p}, {{v}})") for p in ("year", "dayofyear", "week", "weekday",
                                                 "iso_week", "qq", "dw")),
    _c(_D, "DATEPART(hour, {v})"),                             # Msg 9810
    _c(_T, "DATEPART(hour, {v})"),
    _c(_T, "DATEPART(nanosecond, {v})"),
    _c(_T, "DATEPART(year, {v})"),                             # Msg 9810
    _c(_DT, "DATEPART(millisecond, {v})"),
    _c(_SDT, "DATEPART(minute, {v})"),
    _c(_DTO, "DATEPART(tzoffset, {v})"),
    _c(_DTO, "DATEPART(hour, {v})"),
    _c(_DTO, "DATEPART(day, {v})"),
    _c(_SUN, "DATEPART(week, {v})"),
    _c(_JAN1, "DATEPART(iso_week, {v})"),
    _c(_JAN1, "DATEPART(week, {v})"),
    _c(_DT, "YEAR({v})"),
    _c(_DT, "MONTH({v})"),
    _c(_DT, "DAY({v})"),
    # SET DATEFIRST moves weekday and week, not DATENAME nor DATEDIFF(week)
    _c(_D, "DATEPART(weekday, {v})", 1),
    _c(_D, "DATEPART(week, {v})", 1),
    _c(_SUN, "DATEPART(weekday, {v})", 1),
    _c(_SUN, "DATEPART(week, {v})", 1),
    _c(_DT2, "DATEPART(dw, {v})", 3),
    _c(_SUN2, "DATEPART(weekday, {v})", 1),
    _c(_SUN2, "DATEPART(week, {v})", 1),
    _c(_SUN2, "DATEPART(week, {v})", 5),
    _c(_D, "DATENAME(weekday, {v})", 1),
    _c(_SUN, "DATEDIFF(week, {v}, CAST('2024-01-01' AS date))", 1),
    # DATENAME
    _c(_D, "DATENAME(month, {v})"),
    _c(_D, "DATENAME(weekday, {v})"),
    _c(_D, "DATENAME(dayofyear, {v})"),
    _c(_DT2, "DATENAME(quarter, {v})"),
    _c(_DT2, "DATENAME(millisecond, {v})"),
    _c(_DTO, "DATENAME(tzoffset, {v})"),
    _c(_DTO, "DATENAME(tz, {v})"),
    _c(_DT2, "DATENAME(q, {v})"),
    _c(_D, "DATENAME(dy, {v})"),                               # not day, which sqlglot reads
    _c(_D, "DATENAME(y, {v})"),                                # not year
    _c(_D, "DATENAME( [dd] , {v})"),
    _c(_DT2, "DATENAME(iso_week, {v})"),
    _c(_DT2, "DATENAME(mcs, {v})"),
    _c(_D, "DATENAME(hour, {v})"),                             # Msg 9810
    # DATEADD: month ends, rounding of the type, every part
    _c(_DT2, "DATEADD(month, 1, {v})"),                        # 2024-02-29
    _c(_D, "DATEADD(year, 1, {v})"),                           # 2025-02-28
    _c(_D, "DATEADD(month, -1, {v})"),
    _c(_D, "DATEADD(quarter, 1, {v})"),
    _c(_D, "DATEADD(day, 1, {v})"),
    _c(_D, "DATEADD(week, -9, {v})"),
    _c(_D, "DATEADD(weekday, 3, {v})"),
    _c(_D, "DATEADD(dayofyear, 3, {v})"),
    _c(_D, "DATEADD(hour, 1, {v})"),                           # Msg 9810
    _c(_DT, "DATEADD(millisecond, 2, {v})"),                   # 1/300 s ticks
    _c(_DT, "DATEADD(day, 1, {v})"),
    _c(_DT, "DATEADD(year, -300, {v})"),                       # Msg 517: before 1753
    _c(_SDT, "DATEADD(second, 40, {v})"),                      # rounds to the minute
    _c(_SDT_MAX, "DATEADD(second, 29, {v})"),
    _c(_SDT_MAX, "DATEADD(minute, 1, {v})"),                   # Msg 517
    _c(_DT2, "DATEADD(day, 1, CAST({v} AS date))"),            # a date still
    _c(_DT2, "DATEADD(hour, 1, CAST({v} AS datetime2(2)))"),
    _c(_DT, "DATEADD(tzoffset, 1, {v})"),                      # Msg 9810
    _c(_DTO, "DATEADD(minute, -30, {v})"),
    _c(_DT2, "DATEADD(microsecond, 5, {v})"),
    _c(_DT2, "DATEADD(nanosecond, 4000, {v})"),
    _c(_DT2, "DATEADD(minute, -71, {v})"),
    _c(_T, "DATEADD(hour, 12, {v})"),                          # wraps past midnight
    _c(_T, "DATEADD(millisecond, -200, {v})"),
    _c(_DTO, "DATEADD(hour, 1, {v})"),                         # keeps the offset
    _c(_LOW, "DATEADD(day, -1, {v})"),                         # Msg 517
    _c(_HIGH, "DATEADD(microsecond, 1, {v})"),                 # Msg 517
    _c(_HIGH, "DATEADD(year, -9998, {v})"),
    # DATEDIFF counts boundaries crossed
    _c(_DT, "DATEDIFF(year, {v}, CAST('2025-01-01' AS datetime))"),
    _c(_DT, "DATEDIFF(quarter, {v}, CAST('2025-01-01' AS datetime))"),
    _c(_DT, "DATEDIFF(month, {v}, CAST('2025-01-01' AS datetime))"),
    _c(_DT, "DATEDIFF(day, {v}, CAST('2025-01-01' AS datetime))"),
    _c(_DT, "DATEDIFF(hour, {v}, CAST('2025-01-01' AS datetime))"),
    _c(_DT, "DATEDIFF(millisecond, {v}, CAST('2025-01-01' AS datetime))"),
    _c(_DT, "DATEDIFF(week, {v}, CAST('2025-01-05' AS datetime))"),   # crosses a Sunday
    _c(_DT, "DATEDIFF(week, {v}, CAST('2025-01-04' AS datetime))"),
    _c(_DT, "DATEDIFF(iso_week, {v}, CAST('2025-01-06' AS datetime))"),
    _c(_DT, "DATEDIFF(dayofyear, {v}, CAST('2025-01-01' AS datetime))"),
    _c(_D, "DATEDIFF(day, {v}, CAST('2024-02-28' AS date))"),
    _c(_D, "DATEDIFF(year, CAST('2023-12-31' AS date), {v})"),
    _c(_DT2, "DATEDIFF(microsecond, {v}, CAST('2024-01-31 10:11:12.5' AS datetime2))"),
    _c(_DT2, "DATEDIFF(nanosecond, {v}, CAST('2024-01-31 10:11:13' AS datetime2))"),
    _c(_DT2, "DATEDIFF(second, {v}, CAST('2024-01-31 10:11:13' AS datetime2))"),
    _c(_DT2, "DATEDIFF(minute, {v}, CAST('2024-01-31 10:12:00' AS datetime2))"),
    _c(_T, "DATEDIFF(minute, {v}, CAST('14:00' AS time))"),
    _c(_DTO, "DATEDIFF(day, {v}, CAST('2024-03-01 00:00 +00:00' AS datetimeoffset))"),
    _c(_DTO, "DATEDIFF(hour, {v}, CAST('2024-02-29 23:30 +00:00' AS datetimeoffset))"),
    _c(_LOW, "DATEDIFF(second, {v}, CAST('2024-01-01' AS date))"),  # Msg 535
    _c(_LOW, "DATEDIFF_BIG(second, {v}, CAST('2024-01-01' AS date))"),
    _c(_LOW, "DATEDIFF_BIG(millisecond, {v}, CAST('9999-12-31' AS date))"),
    _c(_DT, "DATEDIFF(millisecond, CAST('1900-01-01' AS datetime), {v})"),  # Msg 535
    _c(_DT, "DATEDIFF_BIG(millisecond, CAST('1900-01-01' AS datetime), {v})"),
    # EOMONTH, DATEFROMPARTS and the other *FROMPARTS
    _c(_D, "EOMONTH({v})"),
    _c(_D, "EOMONTH({v}, 1)"),
    _c(_DT, "EOMONTH({v}, -10)"),
    _c(_DT2, "EOMONTH({v}, 1)"),
    _c(_D, "EOMONTH({v}, 100000)"),                            # Msg 517
    _c(_Y, "DATEFROMPARTS({v}, 2, 29)"),
    _c(_Y, "DATEFROMPARTS({v} - 1, 2, 29)"),                   # Msg 289
    _c(_Y, "DATETIMEFROMPARTS({v}, 12, 31, 23, 59, 59, 997)"),
    _c(_Y, "DATETIME2FROMPARTS({v}, 1, 2, 3, 4, 5, 6, 1)"),
    _c(_Y, "SMALLDATETIMEFROMPARTS({v}, 1, 2, 3, 4)"),
    _c(_Y, "TIMEFROMPARTS(({v} - 2000), 59, 59, 5, 1)"),
]


def case_id(case: Case) -> str:
    first = "" if case.datefirst == 7 else f",datefirst {case.datefirst}"
    return f"{case.source}:{case.literal}:{case.expression}{first}"


@pytest.fixture(scope="module")
def stores() -> Iterator[dict[str, ParityStore]]:
    """One store per backend for the module, made when a test first asks for it."""
    yield from parity_stores("date_parity", [c.source for c in CASES],
                             [c.literal for c in CASES])


@pytest.mark.parametrize("index", range(len(CASES)), ids=[case_id(c) for c in CASES])
def test_date_parity(stores: dict[str, ParityStore], backend: str, index: int) -> None:
    case = CASES[index]
    store = stores[backend]
    first = f"SET DATEFIRST {case.datefirst}; "
    try:
        in_values = store.outcome(f"{first}DECLARE @v {case.source} = {case.literal}; "
                                  f"SELECT {case.expression.format(v='@v')}")
        in_query = store.outcome(
            f"{first}SELECT {case.expression.format(v=f'c{index}')} FROM date_parity")
    finally:
        store.outcome("SET DATEFIRST 7; SELECT 1")
    assert in_query == in_values
