"""Date and time built-ins: GETDATE and friends, DATEADD, DATEDIFF, DATEPART, DATENAME,
DAY/MONTH/YEAR, EOMONTH, the *FROMPARTS constructors, ISDATE, TODATETIMEOFFSET,
SWITCHOFFSET and DATETRUNC.

The datepart argument (``day`` in ``DATEADD(day, 1, @d)``) must be known when binding: the
compiler passes it as text in ``const_args`` and the callable is specialised for it.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, date, datetime, time, timedelta, timezone
from typing import Any

from tsqlbroker.errors import BindError, tsql_error
from tsqlbroker.values import dates as dt
from tsqlbroker.values.convert import converter
from tsqlbroker.values.string_builtins import as_int, as_string
from tsqlbroker.values.types import (
    BIGINT,
    DATE,
    DATETIME,
    DATETIME2,
    DATETIMEOFFSET,
    INT,
    SqlType,
    nvarchar,
)

Bound = tuple[SqlType, Callable[..., Any]]
Types = list[SqlType]
Consts = list[Any]


def _date_arg(t: SqlType) -> tuple[SqlType, Callable[[Any], Any]]:
    """The date/time type an argument is read as (strings and numbers as datetime)."""
    if t.is_datetime:
        return t, lambda v: v
    if t.is_string:
        return DATETIME2, converter(t, DATETIME2, explicit=False)
    if t.is_null:
        return DATETIME, lambda v: v
    return DATETIME, converter(t, DATETIME, explicit=False)


def _datepart_const(consts: Consts, function: str) -> str:
    part = consts[0]
    if not isinstance(part, str) or \
            part.strip().lower() not in dt.DATEPARTS:
        raise tsql_error(155, str(part), function, cls=BindError)
    return dt.datepart_name(part, function)


def _bind_dateadd(types: Types, consts: Consts) -> Bound:
    part = _datepart_const(consts, "dateadd")
    t = types[2]
    rt, read = _date_arg(t)
    if t.is_string:
        rt, read = DATETIME, converter(t, DATETIME, explicit=False)
    dt.check_datepart(part, rt.name, "dateadd")
    if part in ("tzoffset",):
        raise tsql_error(9810, part, "dateadd", rt.name, cls=BindError)
    ni = as_int(types[1])
    name, scale = rt.name, rt.scale

    def dateadd(_p: Any, n: Any, d: Any) -> Any:
        if n is None or d is None:
            return None
        return dt.dateadd(part, ni(n), read(d), name, scale)
    return rt, dateadd


def _datediff_binder(types: Types, consts: Consts, big: bool) -> Bound:
    fname = "datediff_big" if big else "datediff"
    part = _datepart_const(consts, fname)
    _ta, ra = _date_arg(types[1])
    _tb, rb = _date_arg(types[2])
    # DATEDIFF accepts any datepart for any date/time type (a date counts from midnight)

    def datediff(_p: Any, a: Any, b: Any) -> Any:
        if a is None or b is None:
            return None
        return dt.datediff(part, ra(a), rb(b), big)
    return (BIGINT if big else INT), datediff


def _bind_datediff(types: Types, consts: Consts) -> Bound:
    return _datediff_binder(types, consts, False)


def _bind_datediff_big(types: Types, consts: Consts) -> Bound:
    return _datediff_binder(types, consts, True)


def _bind_datepart(types: Types, consts: Consts) -> Bound:
    part = _datepart_const(consts, "datepart")
    t, read = _date_arg(types[1])
    dt.check_datepart(part, t.name, "datepart")
    return INT, lambda _p, d: None if d is None else dt.datepart(part, read(d))


def _bind_datename(types: Types, consts: Consts) -> Bound:
    part = _datepart_const(consts, "datename")
    t, read = _date_arg(types[1])
    dt.check_datepart(part, t.name, "datename")
    return nvarchar(30), lambda _p, d: None if d is None else dt.datename(part, read(d))


def _part_fn(part: str) -> Callable[[Types, Consts], Bound]:
    def binder(types: Types, consts: Consts) -> Bound:
        t, read = _date_arg(types[0])
        if t.is_numeric:
            read = converter(types[0], DATETIME, explicit=False)
        return INT, lambda d: None if d is None else dt.datepart(part, read(d))
    return binder


def _bind_eomonth(types: Types, consts: Consts) -> Bound:
    read = _date_arg(types[0])[1]
    mi = as_int(types[1]) if len(types) > 1 else None

    def eomonth(d: Any, months: Any = 0) -> Any:
        if d is None or (mi is not None and months is None):
            return None
        try:
            return dt.eomonth(read(d), mi(months) if mi else 0)
        except (OverflowError, ValueError):
            raise tsql_error(517, "date") from None
    return DATE, eomonth


def from_parts(kind: str, p: list[int]) -> Any:
    """DATEFROMPARTS, DATETIMEFROMPARTS, DATETIME2FROMPARTS, SMALLDATETIMEFROMPARTS and
    TIMEFROMPARTS (``kind``: the type made) of their integer arguments; Msg 289 when they
    make no valid value."""
    try:
        if kind == "date":
            return date(p[0], p[1], p[2])
        if kind == "smalldatetime":
            return datetime(p[0], p[1], p[2], p[3], p[4])
        if kind == "time":
            return time(p[0], p[1], p[2], _fraction_micro(p[3], p[4]))
        micro = p[6] * 1000 if kind == "datetime" else 0
        if kind == "datetime" and not 0 <= p[6] <= 999:
            raise ValueError
        if kind == "datetime2" and len(p) > 7:
            micro = _fraction_micro(p[6], p[7])
        value = datetime(p[0], p[1], p[2], p[3], p[4], p[5], micro)
        return dt.round_datetime(value) if kind == "datetime" else value
    except (ValueError, OverflowError, IndexError):
        raise tsql_error(289, kind) from None


def _from_parts(kind: str, n: int) -> Callable[[Types, Consts], Bound]:
    def binder(types: Types, consts: Consts) -> Bound:
        ints = [as_int(t) for t in types]
        rt = {"date": DATE, "datetime": DATETIME, "datetime2": DATETIME2,
              "smalldatetime": SqlType("smalldatetime")}[kind]

        def make(*vals: Any) -> Any:
            if any(v is None for v in vals):
                return None
            return from_parts(kind, [c(v) for c, v in zip(ints, vals)])
        return rt, make
    return binder


def _bind_isdate(types: Types, consts: Consts) -> Bound:
    t = types[0]
    if t.is_datetime:
        return INT, lambda v: 0 if v is None else 1
    s = as_string(t)
    return INT, lambda v: 0 if v is None else int(dt.is_date_text(s(v)))


def _now_fn(kind: str) -> Callable[[Types, Consts], Bound]:
    def binder(types: Types, consts: Consts) -> Bound:
        if kind == "getdate":
            return DATETIME, lambda: dt.round_datetime(datetime.now())
        if kind == "getutcdate":
            return DATETIME, lambda: dt.round_datetime(
                datetime.now(UTC).replace(tzinfo=None))
        if kind == "sysdatetime":
            return DATETIME2, datetime.now
        if kind == "sysutcdatetime":
            return DATETIME2, lambda: datetime.now(UTC).replace(tzinfo=None)
        return DATETIMEOFFSET, lambda: datetime.now().astimezone()
    return binder


def _offset_minutes(v: Any, function: str) -> int:
    """An offset argument: minutes, or text '+hh:mm' / '-hh:mm' (Msg 9820 otherwise)."""
    if isinstance(v, int):
        if abs(v) > 14 * 60:
            raise tsql_error(9820, function)
        return v
    text = str(v).strip()
    sign = -1 if text.startswith("-") else 1
    try:
        hh, mm = text.lstrip("+-").split(":")
        minutes = int(hh) * 60 + int(mm)
    except ValueError:
        raise tsql_error(9820, function) from None
    if minutes > 14 * 60 or int(mm) > 59 or text[:1] not in "+-":
        raise tsql_error(9820, function)
    return sign * minutes


def _bind_todatetimeoffset(types: Types, consts: Consts) -> Bound:
    _t, read = _date_arg(types[0])
    scale = types[0].scale if types[0].name in ("datetime2", "datetimeoffset") else 7
    off = (lambda v: v) if types[1].is_integer else as_string(types[1])

    def todto(d: Any, o: Any) -> Any:
        if d is None or o is None:
            return None
        x = dt.as_datetime(read(d)).replace(tzinfo=None)
        minutes = _offset_minutes(off(o), "todatetimeoffset")
        return x.replace(tzinfo=timezone(timedelta(minutes=minutes)))
    return SqlType("datetimeoffset", scale=scale), todto


def _bind_switchoffset(types: Types, consts: Consts) -> Bound:
    # A string is read as the datetimeoffset it writes (its own offset kept).
    _t, read = (_date_arg(types[0]) if not types[0].is_string else
                (DATETIMEOFFSET, converter(types[0], DATETIMEOFFSET, explicit=False)))
    scale = types[0].scale if types[0].name == "datetimeoffset" else 7
    off = (lambda v: v) if types[1].is_integer else as_string(types[1])

    def switch(d: Any, o: Any) -> Any:
        if d is None or o is None:
            return None
        x = dt.as_datetime(read(d))
        if x.tzinfo is None:
            x = x.replace(tzinfo=UTC)
        try:
            return x.astimezone(timezone(timedelta(minutes=_offset_minutes(off(o),
                                                                           "switchoffset"))))
        except OverflowError:
            raise tsql_error(517, "datetimeoffset") from None
    return SqlType("datetimeoffset", scale=scale), switch


def _bind_datetrunc(types: Types, consts: Consts) -> Bound:
    part = _datepart_const(consts, "datetrunc")
    t = types[1]
    rt, read = _date_arg(t)
    if t.is_string:
        rt = DATETIME2
    dt.check_datepart(part, rt.name, "datetrunc")
    if part in ("tzoffset", "nanosecond", "weekday"):
        raise tsql_error(9810, part, "datetrunc", rt.name, cls=BindError)

    def trunc(_p: Any, d: Any) -> Any:
        if d is None:
            return None
        try:
            return _truncate(dt.as_datetime(read(d)))
        except (OverflowError, ValueError):
            raise tsql_error(517, rt.name) from None

    def _truncate(x: datetime) -> Any:
        if part == "year":
            r = x.replace(month=1, day=1, hour=0, minute=0, second=0, microsecond=0)
        elif part == "quarter":
            r = x.replace(month=(x.month - 1) // 3 * 3 + 1, day=1, hour=0, minute=0,
                          second=0, microsecond=0)
        elif part == "month":
            r = x.replace(day=1, hour=0, minute=0, second=0, microsecond=0)
        elif part in ("week", "iso_week"):
            start = x.replace(hour=0, minute=0, second=0, microsecond=0)
            back = (x.weekday() + 1) % 7 if part == "week" else x.weekday()
            r = start - timedelta(days=back)
        elif part in ("day", "dayofyear"):
            r = x.replace(hour=0, minute=0, second=0, microsecond=0)
        elif part == "hour":
            r = x.replace(minute=0, second=0, microsecond=0)
        elif part == "minute":
            r = x.replace(second=0, microsecond=0)
        elif part == "second":
            r = x.replace(microsecond=0)
        elif part == "millisecond":
            r = x.replace(microsecond=x.microsecond // 1000 * 1000)
        else:
            r = x
        if rt.name == "date":
            return r.date()
        if rt.name == "time":
            return r.time()
        return r
    return rt, trunc


def _fraction_micro(fraction: int, precision: int) -> int:
    """Microseconds of a *FROMPARTS fraction given in ``precision`` digits (0..7)."""
    if not 0 <= precision <= 7 or not 0 <= fraction < 10 ** precision:
        raise ValueError
    if precision <= 6:
        return fraction * 10 ** (6 - precision)
    return fraction // 10  # the 7th digit is below Python's resolution


def _time_from_parts(types: Types, consts: Consts) -> Bound:
    ints = [as_int(t) for t in types]
    scale = consts[4] if len(consts) > 4 and isinstance(consts[4], int) else 7

    def make(*vals: Any) -> Any:
        if any(v is None for v in vals[:4]):
            return None
        return from_parts("time", [c(v) for c, v in zip(ints, vals, strict=False)])
    return SqlType("time", scale=scale if 0 <= scale <= 7 else 7), make


def _datetimeoffset_from_parts(types: Types, consts: Consts) -> Bound:
    """DATETIMEOFFSETFROMPARTS: both offset parts carry the sign (Msg 289 when they differ)."""
    ints = [as_int(t) for t in types]
    scale = consts[9] if isinstance(consts[9], int) else 7

    def make(*vals: Any) -> Any:
        if any(v is None for v in vals[:9]):
            return None
        p = [c(v) for c, v in zip(ints, vals, strict=False)]
        try:
            hours, minutes = p[7], p[8]
            if (hours < 0 < minutes) or (minutes < 0 < hours) or not -14 <= hours <= 14 \
                    or not -59 <= minutes <= 59:
                raise ValueError
            offset = timezone(timedelta(minutes=hours * 60 + minutes))
            return datetime(p[0], p[1], p[2], p[3], p[4], p[5],
                            _fraction_micro(p[6], p[9]), tzinfo=offset)
        except (ValueError, OverflowError, TypeError):
            raise tsql_error(289, "datetimeoffset") from None
    return SqlType("datetimeoffset", scale=scale if 0 <= scale <= 7 else 7), make


DATE_FUNCTIONS: dict[str, tuple[int, int, Callable[[Types, Consts], Bound], bool]] = {
    "getdate": (0, 0, _now_fn("getdate"), False),
    "current_timestamp": (0, 0, _now_fn("getdate"), False),
    "getutcdate": (0, 0, _now_fn("getutcdate"), False),
    "sysdatetime": (0, 0, _now_fn("sysdatetime"), False),
    "sysutcdatetime": (0, 0, _now_fn("sysutcdatetime"), False),
    "sysdatetimeoffset": (0, 0, _now_fn("sysdatetimeoffset"), False),
    "dateadd": (3, 3, _bind_dateadd, True), "datediff": (3, 3, _bind_datediff, True),
    "datediff_big": (3, 3, _bind_datediff_big, True), "datepart": (2, 2, _bind_datepart, True),
    "datename": (2, 2, _bind_datename, True), "day": (1, 1, _part_fn("day"), True),
    "month": (1, 1, _part_fn("month"), True), "year": (1, 1, _part_fn("year"), True),
    "eomonth": (1, 2, _bind_eomonth, True),
    "datefromparts": (3, 3, _from_parts("date", 3), True),
    "datetimefromparts": (7, 7, _from_parts("datetime", 7), True),
    "datetime2fromparts": (8, 8, _from_parts("datetime2", 8), True),
    "smalldatetimefromparts": (5, 5, _from_parts("smalldatetime", 5), True),
    "timefromparts": (5, 5, _time_from_parts, True),
    "datetimeoffsetfromparts": (10, 10, _datetimeoffset_from_parts, True),
    "isdate": (1, 1, _bind_isdate, True),
    "todatetimeoffset": (2, 2, _bind_todatetimeoffset, True),
    "switchoffset": (2, 2, _bind_switchoffset, True),
    "datetrunc": (2, 2, _bind_datetrunc, True),
}
