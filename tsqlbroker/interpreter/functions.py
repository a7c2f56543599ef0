"""The library of pure built-in scalar functions the compiler binds by name.

``lookup(name)`` gives a :class:`Builtin`; ``Builtin.bind(arg_types, const_args)`` returns the
result type and a callable taking the evaluated arguments positionally. ``const_args`` holds
the values known at compile time (None, or :data:`NOTCONST`, when not known): DATEADD's
``day`` arrives there as the text ``'day'`` and the callable is specialised for it.

Session functions (DB_ID, OBJECT_ID, ERROR_NUMBER, @@SPID …) and the short-circuit forms
IIF, COALESCE and ISNULL are compiled by the compiler itself (sysfuncs.py); the ISNULL and
COALESCE here are the plain, all-arguments-evaluated versions for callers without their own.
"""

from __future__ import annotations

import math
import os
import random
import threading
import time as _time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, date, datetime
from decimal import ROUND_CEILING, ROUND_DOWN, ROUND_FLOOR, ROUND_HALF_UP, Decimal
from typing import Any

from tsqlbroker.errors import MESSAGES, BindError, format_message, tsql_error
from tsqlbroker.interpreter import datetimes as dt
from tsqlbroker.interpreter.convert import converter
from tsqlbroker.interpreter.formatting import format_value, str_function
from tsqlbroker.interpreter.operators import comparison
from tsqlbroker.interpreter.strings import STRING_FUNCTIONS, as_int, as_string
from tsqlbroker.interpreter.types import (
    BIGINT,
    DATE,
    DATETIME,
    DATETIME2,
    DATETIMEOFFSET,
    FLOAT,
    INT,
    INT_RANGES,
    UNIQUEIDENTIFIER,
    SqlType,
    common_type,
    decimal_type,
    nvarchar,
    varchar,
)

Bound = tuple[SqlType, Callable[..., Any]]
Types = list[SqlType]
Consts = list[Any]


class _NotConst:
    """Marks an argument whose value is not known at compile time."""

    def __repr__(self) -> str:
        return "NOTCONST"


NOTCONST: Any = _NotConst()


@dataclass(frozen=True)
class Builtin:
    """A built-in function: its arity and how to bind it to argument types."""

    name: str
    min_args: int
    max_args: int
    binder: Callable[[Types, Consts], Bound] = field(repr=False)
    deterministic: bool = True

    def bind(self, arg_types: list[SqlType], const_args: list[Any]) -> Bound:
        """Result type and callable for these argument types (Msg 174/189 on bad arity)."""
        n = len(arg_types)
        if not self.min_args <= n <= self.max_args:
            if self.min_args == self.max_args:
                raise tsql_error(174, self.name, self.min_args, cls=BindError)
            raise tsql_error(189, self.name, self.min_args, self.max_args, cls=BindError)
        consts = list(const_args) + [NOTCONST] * (n - len(const_args))
        return self.binder(list(arg_types), consts)


def _known(v: Any) -> bool:
    return v is not None and v is not NOTCONST


# ---------------------------------------------------------------------------------- math
def _numeric_result(t: SqlType) -> SqlType:
    if t.is_string or t.is_null:
        return FLOAT
    if t.is_integer and t.name != "bit":
        return SqlType(t.name)
    if t.name == "bit":
        return INT
    return t


def _num_arg(t: SqlType, rt: SqlType) -> Callable[[Any], Any]:
    if t.is_numeric or t.is_null:
        return lambda v: v
    return converter(t, rt, explicit=False)


def bind_abs(types: Types, consts: Consts) -> Bound:
    t = types[0]
    rt = _numeric_result(t)
    a = _num_arg(t, rt)
    if rt.is_integer:
        hi = INT_RANGES[rt.name][1]

        def abs_int(v: Any) -> Any:
            if v is None:
                return None
            r = abs(a(v))
            if r > hi:
                raise tsql_error(8115, "expression", rt.name)
            return r
        return rt, abs_int
    return rt, lambda v: None if v is None else abs(a(v))


def _round_decimal(v: Decimal, n: int, truncate: bool) -> Decimal:
    exp = Decimal(1).scaleb(-n)
    r = v.quantize(exp, rounding=ROUND_DOWN if truncate else ROUND_HALF_UP)
    return r


def bind_round(types: Types, consts: Consts) -> Bound:
    t = types[0]
    rt = _numeric_result(t)
    a, ni = _num_arg(t, rt), as_int(types[1])
    fi = as_int(types[2]) if len(types) > 2 else None

    def round_(v: Any, n: Any, f: Any = 0) -> Any:
        if v is None or n is None:
            return None
        x, places = a(v), ni(n)
        trunc = bool(fi(f)) if fi is not None and f is not None else False
        if isinstance(x, float):
            d = _round_decimal(Decimal(repr(x)), places, trunc)
            return float(d)
        if isinstance(x, int):
            if places >= 0:
                return x
            r = int(_round_decimal(Decimal(x), places, trunc))
            lo, hi = INT_RANGES.get(rt.name, (-(2**63), 2**63 - 1))
            if not lo <= r <= hi:
                raise tsql_error(8115, "expression", rt.name)
            return r
        scale = rt.scale if rt.scale is not None else 4
        d = _round_decimal(x, min(places, scale), trunc).quantize(Decimal(1).scaleb(-scale))
        if rt.is_decimal and abs(d) >= Decimal(10) ** ((rt.precision or 38) - scale):
            raise tsql_error(8115, "expression", "numeric")
        return d
    return rt, round_


def _ceil_floor(types: Types, up: bool) -> Bound:
    t = types[0]
    rt = _numeric_result(t)
    if rt.is_decimal:
        rt = decimal_type(rt.precision or 18, 0)
    a = _num_arg(t, rt)
    mode = ROUND_CEILING if up else ROUND_FLOOR

    def cf(v: Any) -> Any:
        if v is None:
            return None
        x = a(v)
        if isinstance(x, int):
            return x
        if isinstance(x, float):
            return float(math.ceil(x) if up else math.floor(x))
        q = x.quantize(Decimal(1), rounding=mode)
        return q.quantize(Decimal("0.0001")) if rt.is_money else q
    return rt, cf


def bind_ceiling(types: Types, consts: Consts) -> Bound:
    return _ceil_floor(types, True)


def bind_floor(types: Types, consts: Consts) -> Bound:
    return _ceil_floor(types, False)


def bind_sign(types: Types, consts: Consts) -> Bound:
    t = types[0]
    rt = _numeric_result(t)
    a = _num_arg(t, rt)

    def sign(v: Any) -> Any:
        if v is None:
            return None
        x = a(v)
        s = (x > 0) - (x < 0)
        if isinstance(x, float):
            return float(s)
        if isinstance(x, Decimal):
            return Decimal(s).quantize(Decimal(1).scaleb(-(rt.scale or 0)))
        return s
    return rt, sign


def bind_power(types: Types, consts: Consts) -> Bound:
    t = types[0]
    rt = _numeric_result(t)
    if rt.is_decimal:
        rt = decimal_type(38, rt.scale or 0)
    a = _num_arg(t, rt)
    b = _num_arg(types[1], FLOAT)

    def power(x: Any, y: Any) -> Any:
        if x is None or y is None:
            return None
        base, ex = a(x), float(b(y))
        try:
            r = float(base) ** ex
        except (OverflowError, ZeroDivisionError):
            raise tsql_error(3623) from None
        if isinstance(r, complex) or math.isnan(r):
            raise tsql_error(3623)
        if math.isinf(r):
            raise tsql_error(8115, "expression", rt.name)
        if isinstance(base, float):
            return r
        if isinstance(base, int):
            i = int(r)
            lo, hi = INT_RANGES.get(rt.name, (-(2**63), 2**63 - 1))
            if not lo <= i <= hi:
                raise tsql_error(8115, "expression", rt.name)
            return i
        scale = rt.scale or 0
        return Decimal(repr(r)).quantize(Decimal(1).scaleb(-scale), rounding=ROUND_HALF_UP)
    return rt, power


def _float_fn(fn: Callable[..., float], nargs: int = 1) -> Callable[[Types, Consts], Bound]:
    def binder(types: Types, consts: Consts) -> Bound:
        convs = [_num_arg(t, FLOAT) for t in types]

        def call(*vals: Any) -> Any:
            if any(v is None for v in vals):
                return None
            try:
                r = fn(*(float(c(v)) for c, v in zip(convs, vals)))
            except (ValueError, ZeroDivisionError):
                raise tsql_error(3623) from None
            except OverflowError:
                raise tsql_error(8115, "expression", "float") from None
            if isinstance(r, float) and (math.isnan(r) or math.isinf(r)):
                raise tsql_error(3623)
            return r
        return FLOAT, call
    return binder


def _log(x: float, base: float | None = None) -> float:
    if x <= 0 or (base is not None and (base <= 0 or base == 1)):
        raise ValueError
    return math.log(x) if base is None else math.log(x) / math.log(base)


def _sqrt(x: float) -> float:
    if x < 0:
        raise ValueError
    return math.sqrt(x)


_rand_lock = threading.Lock()
_rand = random.Random()


def bind_rand(types: Types, consts: Consts) -> Bound:
    si = as_int(types[0]) if types else None

    def rand(seed: Any = None) -> Any:
        with _rand_lock:
            if si is not None and seed is not None:
                _rand.seed(si(seed))
            return _rand.random()
    return FLOAT, rand


def bind_pi(types: Types, consts: Consts) -> Bound:
    return FLOAT, lambda: math.pi


# -------------------------------------------------------------------------------- dates
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
    if not _known(part) or not isinstance(part, str) or \
            part.strip().lower() not in dt.DATEPARTS:
        raise tsql_error(155, str(part), function, cls=BindError)
    return dt.datepart_name(part, function)


def bind_dateadd(types: Types, consts: Consts) -> Bound:
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


def _bind_datediff(types: Types, consts: Consts, big: bool) -> Bound:
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


def bind_datediff(types: Types, consts: Consts) -> Bound:
    return _bind_datediff(types, consts, False)


def bind_datediff_big(types: Types, consts: Consts) -> Bound:
    return _bind_datediff(types, consts, True)


def bind_datepart(types: Types, consts: Consts) -> Bound:
    part = _datepart_const(consts, "datepart")
    t, read = _date_arg(types[1])
    dt.check_datepart(part, t.name, "datepart")
    return INT, lambda _p, d: None if d is None else dt.datepart(part, read(d))


def bind_datename(types: Types, consts: Consts) -> Bound:
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


def bind_eomonth(types: Types, consts: Consts) -> Bound:
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


def _from_parts(kind: str, n: int) -> Callable[[Types, Consts], Bound]:
    def binder(types: Types, consts: Consts) -> Bound:
        ints = [as_int(t) for t in types]
        rt = {"date": DATE, "datetime": DATETIME, "datetime2": DATETIME2,
              "smalldatetime": SqlType("smalldatetime")}[kind]

        def make(*vals: Any) -> Any:
            if any(v is None for v in vals):
                return None
            p = [c(v) for c, v in zip(ints, vals)]
            try:
                if kind == "date":
                    return date(p[0], p[1], p[2])
                if kind == "smalldatetime":
                    return datetime(p[0], p[1], p[2], p[3], p[4])
                micro = p[6] * 1000 if kind == "datetime" else 0
                if kind == "datetime2" and len(p) > 7:
                    micro = p[6] * 10 ** (6 - p[7]) if p[7] <= 6 else p[6] // 10 ** (p[7] - 6)
                value = datetime(p[0], p[1], p[2], p[3], p[4], p[5], micro)
                return dt.round_datetime(value) if kind == "datetime" else value
            except (ValueError, OverflowError, IndexError):
                raise tsql_error(289, kind) from None
        return rt, make
    return binder


def bind_isdate(types: Types, consts: Consts) -> Bound:
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


# -------------------------------------------------------------------------------- misc
_NUMERIC_TEXT = __import__("re").compile(
    r"^\s*[+-]?\s*[$€£¥]?\s*[+-]?\s*(\d[\d,]*\.?\d*|\.\d*|)(?:[eEdD][+-]?\d+)?\s*$")


def isnumeric(text: str) -> int:
    """ISNUMERIC's lenient test: signs, currency symbols, commas, exponents all pass."""
    if not text.strip():
        return 0
    m = _NUMERIC_TEXT.match(text)
    if not m:
        return 0
    body = text.strip()
    if any(c in body for c in "eEdD") and not m.group(1):
        return 0
    return 1


def bind_isnumeric(types: Types, consts: Consts) -> Bound:
    t = types[0]
    if t.is_numeric:
        return INT, lambda v: 0 if v is None else 1
    if not t.is_string:
        return INT, lambda v: 0
    return INT, lambda v: 0 if v is None else isnumeric(v)


def bind_nullif(types: Types, consts: Consts) -> Bound:
    rt = types[0] if not types[0].is_null else INT
    eq = comparison("=", types[0], types[1])
    return rt, lambda a, b: None if a is None or eq(a, b) else a


def bind_isnull(types: Types, consts: Consts) -> Bound:
    rt = types[0] if not types[0].is_null else (types[1] if not types[1].is_null else INT)
    cb = converter(types[1], rt, explicit=False) if types[1] != rt else (lambda v: v)
    return rt, lambda a, b: cb(b) if a is None else a


def bind_coalesce(types: Types, consts: Consts) -> Bound:
    rt = common_type(types)
    convs = [converter(t, rt, explicit=False) for t in types]

    def coalesce(*vals: Any) -> Any:
        for c, v in zip(convs, vals):
            if v is not None:
                return c(v)
        return None
    return rt, coalesce


def bind_choose(types: Types, consts: Consts) -> Bound:
    ii = as_int(types[0])
    rt = common_type(types[1:])
    convs = [converter(t, rt, explicit=False) for t in types[1:]]

    def choose(i: Any, *vals: Any) -> Any:
        if i is None:
            return None
        k = ii(i)
        if not 1 <= k <= len(vals):
            return None
        return convs[k - 1](vals[k - 1])
    return rt, choose


def bind_newid(types: Types, consts: Consts) -> Bound:
    return UNIQUEIDENTIFIER, uuid.uuid4


_seq_lock = threading.Lock()
_seq_state = {"base": uuid.uuid4().bytes, "n": int.from_bytes(os.urandom(3), "big")}


def newsequentialid() -> uuid.UUID:
    """GUIDs that increase in SQL Server's uniqueidentifier order (last 6 bytes first)."""
    with _seq_lock:
        _seq_state["n"] += 1
        n = _seq_state["n"]
    stamp = int(_time.time() * 1000) & 0xFFFF
    b = bytearray(_seq_state["base"])
    b[10:16] = (n + (stamp << 32)).to_bytes(6, "big")
    return uuid.UUID(bytes=bytes(b))


def bind_newsequentialid(types: Types, consts: Consts) -> Bound:
    return UNIQUEIDENTIFIER, newsequentialid


def bind_format(types: Types, consts: Consts) -> Bound:
    t = types[0]
    read = (lambda v: v) if (t.is_numeric or t.is_datetime) else None
    if read is None:
        raise tsql_error(8116, t.name, 1, "format", cls=BindError)
    fs = as_string(types[1])
    cs = as_string(types[2]) if len(types) > 2 else None

    def fmt(v: Any, f: Any, c: Any = None) -> Any:
        if v is None or f is None:
            return None
        return format_value(v, fs(f), cs(c) if cs and c is not None else None)
    return nvarchar(4000), fmt


def bind_str(types: Types, consts: Consts) -> Bound:
    a = _num_arg(types[0], FLOAT)
    li = as_int(types[1]) if len(types) > 1 else None
    di = as_int(types[2]) if len(types) > 2 else None
    length = consts[1] if len(consts) > 1 and isinstance(consts[1], int) else 10
    rt = varchar(length if 0 < length <= 8000 else 10)

    def str_(v: Any, n: Any = 10, d: Any = 0) -> Any:
        if v is None:
            return None
        return str_function(float(a(v)), li(n) if li and n is not None else (
            None if li else 10), di(d) if di and d is not None else (None if di else 0))
    return rt, str_


def bind_formatmessage(types: Types, consts: Consts) -> Bound:
    from tsqlbroker.interpreter.printf import format_raiserror

    first = types[0]
    conv0 = as_string(first) if not first.is_integer else (lambda v: v)
    rest = types[1:]

    def formatmessage(msg: Any, *args: Any) -> Any:
        if msg is None:
            return None
        if first.is_integer:
            entry = MESSAGES.get(int(msg))
            if entry is None:
                return None
            return format_message(entry[1], *args)
        return format_raiserror(conv0(msg), list(zip(args, rest)))
    return nvarchar(2048), formatmessage


# -------------------------------------------------------------------------------- registry
def _b(name: str, lo: int, hi: int, binder: Callable[[Types, Consts], Bound],
       deterministic: bool = True) -> Builtin:
    return Builtin(name, lo, hi, binder, deterministic)


_REGISTRY: dict[str, Builtin] = {
    name: _b(name, lo, hi, binder) for name, (lo, hi, binder) in STRING_FUNCTIONS.items()
}
_REGISTRY.update({b.name: b for b in [
    _b("abs", 1, 1, bind_abs), _b("round", 2, 3, bind_round),
    _b("ceiling", 1, 1, bind_ceiling), _b("floor", 1, 1, bind_floor),
    _b("sign", 1, 1, bind_sign), _b("power", 2, 2, bind_power),
    _b("sqrt", 1, 1, _float_fn(_sqrt)), _b("square", 1, 1, _float_fn(lambda x: x * x)),
    _b("exp", 1, 1, _float_fn(math.exp)), _b("log", 1, 2, _float_fn(_log)),
    _b("log10", 1, 1, _float_fn(lambda x: _log(x, 10.0))),
    _b("sin", 1, 1, _float_fn(math.sin)), _b("cos", 1, 1, _float_fn(math.cos)),
    _b("tan", 1, 1, _float_fn(math.tan)), _b("asin", 1, 1, _float_fn(math.asin)),
    _b("acos", 1, 1, _float_fn(math.acos)), _b("atan", 1, 1, _float_fn(math.atan)),
    _b("atn2", 2, 2, _float_fn(math.atan2)),
    _b("cot", 1, 1, _float_fn(lambda x: 1 / math.tan(x))),
    _b("degrees", 1, 1, _float_fn(math.degrees)), _b("radians", 1, 1, _float_fn(math.radians)),
    _b("rand", 0, 1, bind_rand, False), _b("pi", 0, 0, bind_pi),
    _b("getdate", 0, 0, _now_fn("getdate"), False),
    _b("current_timestamp", 0, 0, _now_fn("getdate"), False),
    _b("getutcdate", 0, 0, _now_fn("getutcdate"), False),
    _b("sysdatetime", 0, 0, _now_fn("sysdatetime"), False),
    _b("sysutcdatetime", 0, 0, _now_fn("sysutcdatetime"), False),
    _b("sysdatetimeoffset", 0, 0, _now_fn("sysdatetimeoffset"), False),
    _b("dateadd", 3, 3, bind_dateadd), _b("datediff", 3, 3, bind_datediff),
    _b("datediff_big", 3, 3, bind_datediff_big), _b("datepart", 2, 2, bind_datepart),
    _b("datename", 2, 2, bind_datename), _b("day", 1, 1, _part_fn("day")),
    _b("month", 1, 1, _part_fn("month")), _b("year", 1, 1, _part_fn("year")),
    _b("eomonth", 1, 2, bind_eomonth), _b("datefromparts", 3, 3, _from_parts("date", 3)),
    _b("datetimefromparts", 7, 7, _from_parts("datetime", 7)),
    _b("datetime2fromparts", 8, 8, _from_parts("datetime2", 8)),
    _b("smalldatetimefromparts", 5, 5, _from_parts("smalldatetime", 5)),
    _b("isdate", 1, 1, bind_isdate), _b("isnumeric", 1, 1, bind_isnumeric),
    _b("nullif", 2, 2, bind_nullif), _b("isnull", 2, 2, bind_isnull),
    _b("coalesce", 2, 254, bind_coalesce), _b("choose", 2, 254, bind_choose),
    _b("newid", 0, 0, bind_newid, False),
    _b("newsequentialid", 0, 0, bind_newsequentialid, False),
    _b("format", 2, 3, bind_format), _b("str", 1, 3, bind_str),
    _b("formatmessage", 1, 21, bind_formatmessage),
]})


def lookup(name: str) -> Builtin | None:
    """The built-in function called ``name`` (case-insensitive), or None."""
    return _REGISTRY.get(name.lower())


def names() -> list[str]:
    """All built-in function names (for completion and documentation)."""
    return sorted(_REGISTRY)


__all__ = ["NOTCONST", "Builtin", "lookup", "names"]
