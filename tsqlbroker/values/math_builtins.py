"""Mathematical built-ins: ABS, ROUND, CEILING, FLOOR, SIGN, POWER, SQRT, LOG, RAND …

Result types follow SQL Server: ABS/ROUND/SIGN keep the argument's type, CEILING/FLOOR keep
decimal precision with scale 0, POWER keeps the type of its first argument (so
``POWER(2.0, -2)`` is ``0.3``), the transcendental functions return float. Domain errors are
Msg 3623, overflows Msg 8115.
"""

from __future__ import annotations

import math
import random
import threading
from collections.abc import Callable
from decimal import ROUND_CEILING, ROUND_DOWN, ROUND_FLOOR, ROUND_HALF_UP, Decimal, localcontext
from typing import Any

from tsqlbroker.errors import tsql_error
from tsqlbroker.values.convert import converter
from tsqlbroker.values.operators import compare
from tsqlbroker.values.precedence import common_type
from tsqlbroker.values.string_builtins import as_int
from tsqlbroker.values.types import (
    EXACT,
    FLOAT,
    INT,
    INT_RANGES,
    ArgumentTypeError,
    SqlType,
    decimal_type,
)

Bound = tuple[SqlType, Callable[..., Any]]
Types = list[SqlType]
Consts = list[Any]


def _numeric_result(t: SqlType, position: int = 1) -> SqlType:
    """The type a numeric function returns for an argument of type ``t``."""
    if not (t.is_numeric or t.is_string or t.is_null):
        raise ArgumentTypeError(t.name, position)
    if t.is_string or t.is_null:
        return FLOAT
    if t.is_integer and t.name != "bit":
        return SqlType(t.name)
    if t.name == "bit":
        return INT
    return t


def num_arg(t: SqlType, rt: SqlType) -> Callable[[Any], Any]:
    if t.is_numeric or t.is_null:
        return lambda v: v
    return converter(t, rt, explicit=False)


def _bind_abs(types: Types, consts: Consts) -> Bound:
    t = types[0]
    rt = _numeric_result(t)
    a = num_arg(t, rt)
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

    def abs_(v: Any) -> Any:
        if v is None:
            return None
        x = a(v)
        # copy_abs is exact: abs() of a Decimal rounds to the context's 28 digits.
        return x.copy_abs() if isinstance(x, Decimal) else abs(x)
    return rt, abs_


def _round_decimal(v: Decimal, n: int, truncate: bool) -> Decimal:
    """Round (or truncate) to ``n`` places; any ``n`` beyond a float's range acts as ±400."""
    n = max(min(n, 400), -400)
    exp = Decimal(1).scaleb(-n)
    with localcontext() as ctx:
        ctx.prec = 1000
        return v.quantize(exp, rounding=ROUND_DOWN if truncate else ROUND_HALF_UP)


def _bind_round(types: Types, consts: Consts) -> Bound:
    t = types[0]
    rt = _numeric_result(t)
    a, ni = num_arg(t, rt), as_int(types[1])
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
        d = _round_decimal(x, min(places, scale), trunc).quantize(Decimal(1).scaleb(-scale),
                                                                  context=EXACT)
        if rt.is_decimal and abs(d) >= Decimal(10) ** ((rt.precision or 38) - scale):
            raise tsql_error(8115, "expression", "numeric")
        return d
    return rt, round_


def _ceil_floor(types: Types, up: bool) -> Bound:
    t = types[0]
    rt = _numeric_result(t)
    if rt.is_decimal:
        rt = decimal_type(rt.precision or 18, 0)
    a = num_arg(t, rt)
    mode = ROUND_CEILING if up else ROUND_FLOOR

    def cf(v: Any) -> Any:
        if v is None:
            return None
        x = a(v)
        if isinstance(x, int):
            return x
        if isinstance(x, float):
            return float(math.ceil(x) if up else math.floor(x))
        q = x.quantize(Decimal(1), rounding=mode, context=EXACT)
        return q.quantize(Decimal("0.0001"), context=EXACT) if rt.is_money else q
    return rt, cf


def _bind_ceiling(types: Types, consts: Consts) -> Bound:
    return _ceil_floor(types, True)


def _bind_floor(types: Types, consts: Consts) -> Bound:
    return _ceil_floor(types, False)


def _bind_sign(types: Types, consts: Consts) -> Bound:
    t = types[0]
    rt = _numeric_result(t)
    a = num_arg(t, rt)

    def sign(v: Any) -> Any:
        if v is None:
            return None
        x = a(v)
        s = (x > 0) - (x < 0)
        if isinstance(x, float):
            return float(s)
        if isinstance(x, Decimal):
            return Decimal(s).quantize(Decimal(1).scaleb(-(rt.scale or 0)), context=EXACT)
        return s
    return rt, sign


def _bind_power(types: Types, consts: Consts) -> Bound:
    t = types[0]
    rt = _numeric_result(t)
    if rt.is_decimal:
        rt = decimal_type(38, rt.scale or 0)
    a = num_arg(t, rt)
    b = num_arg(types[1], FLOAT)

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
        d = Decimal(repr(r)).quantize(Decimal(1).scaleb(-scale), rounding=ROUND_HALF_UP,
                                      context=EXACT)
        if abs(d) >= Decimal(10) ** (38 - scale):
            raise tsql_error(8115, "float", "numeric")
        return d
    return rt, power


def _float_fn(fn: Callable[..., float], nargs: int = 1) -> Callable[[Types, Consts], Bound]:
    def binder(types: Types, consts: Consts) -> Bound:
        convs = [num_arg(t, FLOAT) for t in types]

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


def _bind_rand(types: Types, consts: Consts) -> Bound:
    si = as_int(types[0]) if types else None

    def rand(seed: Any = None) -> Any:
        with _rand_lock:
            if si is not None and seed is not None:
                _rand.seed(si(seed))
            return _rand.random()
    return FLOAT, rand


def _bind_pi(types: Types, consts: Consts) -> Bound:
    return FLOAT, lambda: math.pi


def _bind_greatest(types: Types, consts: Consts) -> Bound:
    return _extreme(types, max)


def _bind_least(types: Types, consts: Consts) -> Bound:
    return _extreme(types, min)


def _extreme(types: Types, pick: Callable[..., Any]) -> Bound:
    """GREATEST / LEAST: the common type of the arguments; NULLs are ignored."""
    rt = common_type(types)
    convs = [converter(t, rt, explicit=False) for t in types]
    cmp = compare(rt, rt)
    want = 1 if pick is max else -1

    def extreme(*vals: Any) -> Any:
        best = None
        for c, v in zip(convs, vals, strict=False):
            if v is None:
                continue
            x = c(v)
            if best is None or cmp(x, best) == want:
                best = x
        return best
    return rt, extreme


MATH_FUNCTIONS: dict[str, tuple[int, int, Callable[[Types, Consts], Bound], bool]] = {
    "abs": (1, 1, _bind_abs, True), "round": (2, 3, _bind_round, True),
    "ceiling": (1, 1, _bind_ceiling, True), "floor": (1, 1, _bind_floor, True),
    "sign": (1, 1, _bind_sign, True), "power": (2, 2, _bind_power, True),
    "sqrt": (1, 1, _float_fn(_sqrt), True), "square": (1, 1, _float_fn(lambda x: x * x), True),
    "exp": (1, 1, _float_fn(math.exp), True), "log": (1, 2, _float_fn(_log), True),
    "log10": (1, 1, _float_fn(lambda x: _log(x, 10.0)), True),
    "sin": (1, 1, _float_fn(math.sin), True), "cos": (1, 1, _float_fn(math.cos), True),
    "tan": (1, 1, _float_fn(math.tan), True), "asin": (1, 1, _float_fn(math.asin), True),
    "acos": (1, 1, _float_fn(math.acos), True), "atan": (1, 1, _float_fn(math.atan), True),
    "atn2": (2, 2, _float_fn(math.atan2), True),
    "cot": (1, 1, _float_fn(lambda x: 1 / math.tan(x)), True),
    "degrees": (1, 1, _float_fn(math.degrees), True),
    "radians": (1, 1, _float_fn(math.radians), True),
    "rand": (0, 1, _bind_rand, False), "pi": (0, 0, _bind_pi, True),
    "greatest": (1, 254, _bind_greatest, True), "least": (1, 254, _bind_least, True),
}
