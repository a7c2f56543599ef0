"""Arithmetic, concatenation, bitwise and comparison operators, LIKE, three-valued logic.

Each operator is resolved once for a pair of static types into a result type and a tiny
closure; the closures for the common cases (int + int, int < int, string + string) do a NULL
check, the operation and an overflow check, nothing else. Mixed types are converted to the
type of higher precedence first, as SQL Server does (``'1' + 1`` is 2, ``'a' + 1`` fails
with Msg 245).
"""

from __future__ import annotations

import operator
import re
import unicodedata
from collections.abc import Callable
from datetime import UTC, timedelta
from decimal import ROUND_HALF_UP, Context, Decimal
from functools import lru_cache
from typing import Any

from tsqlbroker.errors import tsql_error
from tsqlbroker.values import dates as dt
from tsqlbroker.values.convert import converter, to_real
from tsqlbroker.values.precedence import decimal_arith, int_as_decimal, precedence
from tsqlbroker.values.text import to_varchar_text
from tsqlbroker.values.types import (
    INT,
    INT_RANGES,
    MAX,
    SqlType,
    decimal_type,
    type_of_value,
)

Fn2 = Callable[[Any, Any], Any]
_CTX = Context(prec=80, rounding=ROUND_HALF_UP)
_OPNAMES = {"+": "add", "-": "subtract", "*": "multiply", "/": "divide", "%": "modulo",
            "&": "'&'", "|": "'|'", "^": "'^'"}
_ARITH = frozenset("+-*/%")
_BITWISE = frozenset("&|^")


def _null2(_a: Any, _b: Any) -> None:
    return None


def _fam(t: SqlType) -> str:
    n = t.name
    if n in INT_RANGES:
        return "int"
    if t.is_decimal:
        return "decimal"
    if t.is_money:
        return "money"
    if t.is_float:
        return "float"
    if t.is_string:
        return "string"
    if t.is_binary:
        return "binary"
    if n in ("datetime", "smalldatetime"):
        return "datetime"
    if t.is_datetime:
        return "newdate"
    return n


# ------------------------------------------------------------------------ decimal p/s rules
def decimal_result(op: str, a: SqlType, b: SqlType) -> SqlType:
    """The decimal(p,s) of ``a op b`` by SQL Server's documented formulas."""
    p, s = decimal_arith(op, a.precision or 18, a.scale or 0, b.precision or 18, b.scale or 0)
    return decimal_type(p, s)


# -------------------------------------------------------------------------------- arithmetic
def _int_op(op: str, rtype: SqlType) -> Fn2:
    lo, hi = INT_RANGES[rtype.name]
    name = rtype.name

    def overflow() -> Exception:
        return tsql_error(8115, "expression", name)

    if op == "+":
        def add(a: Any, b: Any) -> Any:
            if a is None or b is None:
                return None
            r = a + b
            if lo <= r <= hi:
                return r
            raise overflow()
        return add
    if op == "-":
        def sub(a: Any, b: Any) -> Any:
            if a is None or b is None:
                return None
            r = a - b
            if lo <= r <= hi:
                return r
            raise overflow()
        return sub
    if op == "*":
        def mul(a: Any, b: Any) -> Any:
            if a is None or b is None:
                return None
            r = a * b
            if lo <= r <= hi:
                return r
            raise overflow()
        return mul
    if op == "/":
        def div(a: Any, b: Any) -> Any:
            if a is None or b is None:
                return None
            if b == 0:
                raise tsql_error(8134)
            q = abs(a) // abs(b)  # truncate toward zero, exactly (no float rounding)
            if (a < 0) != (b < 0):
                q = -q
            if lo <= q <= hi:
                return q
            raise overflow()
        return div
    if op == "%":
        def mod(a: Any, b: Any) -> Any:
            if a is None or b is None:
                return None
            if b == 0:
                raise tsql_error(8134)
            r = abs(a) % abs(b)  # the sign follows the dividend
            return -r if a < 0 else r
        return mod
    fn = {"&": operator.and_, "|": operator.or_, "^": operator.xor}[op]

    def bitwise(a: Any, b: Any) -> Any:
        if a is None or b is None:
            return None
        r = fn(a, b)
        if name == "tinyint":
            r &= 0xFF
        return r
    return bitwise


def _exact_op(op: str, scale: int, limit: Decimal, target: str) -> Fn2:
    """decimal / money arithmetic: exact, then rounded half-up to the result scale."""
    exp = Decimal(1).scaleb(-scale)
    ctx = _CTX
    fn = {"+": ctx.add, "-": ctx.subtract, "*": ctx.multiply, "/": ctx.divide,
          "%": ctx.remainder}[op]
    checks_zero = op in "/%"

    def calc(a: Any, b: Any) -> Any:
        if a is None or b is None:
            return None
        if checks_zero and b == 0:
            raise tsql_error(8134)
        r = fn(a, b).quantize(exp, context=ctx)
        if abs(r) >= limit:
            raise tsql_error(8115, "expression", target)
        return r
    return calc


def _float_op(op: str, real: bool) -> Fn2:
    fn = {"+": operator.add, "-": operator.sub, "*": operator.mul,
          "/": operator.truediv}[op]
    name = "real" if real else "float"

    def calc(a: Any, b: Any) -> Any:
        if a is None or b is None:
            return None
        if op == "/" and b == 0:
            raise tsql_error(8134)
        r = fn(float(a), float(b))
        if r in (float("inf"), float("-inf")):
            raise tsql_error(8115, "expression", name)
        return to_real(r) if real else r
    return calc


def _with_conversions(fn: Fn2, lc: Callable[[Any], Any] | None,
                      rc: Callable[[Any], Any] | None) -> Fn2:
    if lc is None and rc is None:
        return fn
    lcv = lc or (lambda v: v)
    rcv = rc or (lambda v: v)
    return lambda a, b: fn(lcv(a), rcv(b))


def _conv(src: SqlType, dst: SqlType) -> Callable[[Any], Any] | None:
    """A converter unless the values need none (int into int, int into decimal …)."""
    fs, fd = _fam(src), _fam(dst)
    if fs == fd and fs in ("int", "float", "string", "binary"):
        return None
    if fs == "int" and fd in ("decimal", "money", "float"):
        return None  # Python mixes int with Decimal/float exactly
    if fs in ("decimal", "money") and fd in ("decimal", "money"):
        return None
    return converter(src, dst, explicit=False)


def concat_type(lt: SqlType, rt: SqlType) -> SqlType:
    """varchar(n1+n2) (nvarchar if either is unicode), capped at 8000 bytes, max if either is."""
    unicode = lt.is_unicode or rt.is_unicode
    cap = 4000 if unicode else 8000
    n1, n2 = lt.length or 1, rt.length or 1
    if lt.is_binary or rt.is_binary:
        if MAX in (n1, n2) or lt.is_max or rt.is_max:
            return SqlType("varbinary", MAX)
        return SqlType("varbinary", min(n1 + n2, 8000))
    if MAX in (n1, n2) or lt.is_max or rt.is_max:
        return SqlType("nvarchar" if unicode else "varchar", MAX)
    return SqlType("nvarchar" if unicode else "varchar", min(n1 + n2, cap))


def _concat(lt: SqlType, rt: SqlType) -> tuple[SqlType, Fn2]:
    rtype = concat_type(lt, rt)
    n1, n2 = lt.length or 1, rt.length or 1
    limit = 4000 if rtype.is_unicode else 8000
    narrow = not rtype.is_unicode and (lt.is_unicode or rt.is_unicode)
    if rtype.length == MAX or n1 + n2 <= limit:
        if narrow:
            return rtype, lambda a, b: None if a is None or b is None else \
                to_varchar_text(a + b)

        def cat(a: Any, b: Any) -> Any:
            if a is None or b is None:
                return None
            return a + b
        return rtype, cat

    def cat_cut(a: Any, b: Any) -> Any:  # non-max concatenation stops at 8000 bytes
        if a is None or b is None:
            return None
        return (a + b)[:limit]
    return rtype, cat_cut


def binary_bitwise_error(op: str, left: str, right: str) -> Exception:
    """Msg 402 for ``&``, ``|`` or ``^`` between two binary strings: only one operand of a
    bitwise operator may be binary or varbinary (even two varbinary are a pair of types
    the operator does not take)."""
    return tsql_error(402, left, right, _OPNAMES[op])


def _operand_error(op: str, lt: SqlType, rt: SqlType) -> Exception:
    if "sql_variant" in (lt.name, rt.name):
        return tsql_error(8117, "sql_variant", _OPNAMES[op])
    if op in _BITWISE and _fam(lt) == _fam(rt) == "binary":
        return binary_bitwise_error(op, lt.name, rt.name)
    if lt.name == rt.name or rt.name == "null":
        return tsql_error(8117, lt.name, _OPNAMES[op])
    return tsql_error(402, lt.name, rt.name, _OPNAMES[op])


def binary(op: str, lt: SqlType, rt: SqlType) -> tuple[SqlType, Fn2]:
    """Result type and callable of ``left op right`` for ``op`` in ``+ - * / % & | ^``."""
    if lt.is_null and rt.is_null:
        return INT, _null2
    if lt.is_null or rt.is_null:
        other = rt if lt.is_null else lt
        rtype, _fn = binary(op, other, other)
        return rtype, _null2
    fl, fr = _fam(lt), _fam(rt)
    w = lt if precedence(lt) >= precedence(rt) else rt
    fw = _fam(w)
    # strings and binaries: '+' concatenates
    if fl in ("string", "binary") and fr in ("string", "binary"):
        if op != "+" or "text" in (lt.name, rt.name) or "ntext" in (lt.name, rt.name) \
                or "image" in (lt.name, rt.name):
            raise _operand_error(op, lt, rt)
        if fl == fr == "binary":
            return _concat(lt, rt)
        lc = None if fl == "string" else converter(lt, SqlType(
            "nvarchar" if rt.is_unicode else "varchar", MAX), explicit=False)
        rc = None if fr == "string" else converter(rt, SqlType(
            "nvarchar" if lt.is_unicode else "varchar", MAX), explicit=False)
        rtype, fn = _concat(lt if fl == "string" else SqlType("varchar", lt.length),
                            rt if fr == "string" else SqlType("varchar", rt.length))
        return rtype, _with_conversions(fn, lc, rc)
    if fw in ("xml", "uniqueidentifier", "sql_variant", "binary", "string") or \
            fl in ("xml",) or fr in ("xml",):
        raise _operand_error(op, lt, rt)
    if fw == "newdate":
        if fl == fr:
            raise tsql_error(8117, w.name, _OPNAMES[op])
        raise tsql_error(206, lt.name, rt.name)
    if fw == "datetime":
        return _datetime_arith(op, lt, rt, w)
    if op in _BITWISE:
        if fl == "binary" and fr == "int" and lt.name != "image":
            # One operand may be binary / varbinary: it is read as the other's integer type
            # (COLUMNS_UPDATED() & 14), as SQL Server's bitwise operators document.
            rtype = SqlType(rt.name)
            return rtype, _with_conversions(_int_op(op, rtype), converter(lt, rtype), None)
        if fr == "binary" and fl == "int" and rt.name != "image":
            rtype = SqlType(lt.name)
            return rtype, _with_conversions(_int_op(op, rtype), None, converter(rt, rtype))
        if fl != "int" or fr != "int":
            raise _operand_error(op, lt, rt)
        rtype = SqlType(w.name)
        return rtype, _int_op(op, rtype)
    # numeric arithmetic on the higher-precedence family
    if fw == "int":
        if lt.name == "bit" and rt.name == "bit":
            raise tsql_error(8117, "bit", _OPNAMES[op])
        rtype = SqlType("int") if w.name == "bit" else SqlType(w.name)
        fn = _int_op(op, rtype)
        return rtype, _with_conversions(fn, _conv(lt, rtype), _conv(rt, rtype))
    if fw == "float":
        if op == "%":
            raise tsql_error(402, lt.name, rt.name, _OPNAMES[op])
        rtype = SqlType(w.name)
        lc = None if fl in ("int", "float", "decimal", "money") else _conv(lt, rtype)
        rc = None if fr in ("int", "float", "decimal", "money") else _conv(rt, rtype)
        return rtype, _with_conversions(_float_op(op, w.name == "real"), lc, rc)
    if fw == "money":
        rtype = SqlType(w.name if lt.name == rt.name else "money")
        limit = Decimal("922337203685477.5808") if rtype.name == "money" else \
            Decimal("214748.3648")
        fn = _exact_op(op, 4, limit, rtype.name)
        return rtype, _with_conversions(fn, _conv(lt, rtype), _conv(rt, rtype))
    # decimal
    ld = _as_decimal_operand(lt)
    rd = _as_decimal_operand(rt)
    rtype = decimal_result(op, ld, rd)
    rtype = SqlType(w.name, precision=rtype.precision, scale=rtype.scale)
    limit = Decimal(10) ** ((rtype.precision or 38) - (rtype.scale or 0))
    fn = _exact_op(op, rtype.scale or 0, limit, "numeric")
    return rtype, _with_conversions(fn, _conv(lt, ld), _conv(rt, rd))


def _as_decimal_operand(t: SqlType) -> SqlType:
    if t.is_exact_numeric:
        return int_as_decimal(t)
    # a string meeting a decimal is read as a decimal wide enough for ordinary numbers
    return decimal_type(38, 10)


def _datetime_arith(op: str, lt: SqlType, rt: SqlType, w: SqlType) -> tuple[SqlType, Fn2]:
    """datetime ± number (days) and datetime - datetime, as SQL Server allows on datetime."""
    if op not in "+-":
        raise tsql_error(8117, w.name, _OPNAMES[op])
    for t in (lt, rt):
        if _fam(t) not in ("datetime", "int", "decimal", "money", "float", "string"):
            raise tsql_error(206, lt.name, rt.name)

    def days_of(t: SqlType) -> Callable[[Any], float]:
        f = _fam(t)
        if f == "datetime":
            return lambda v: (v - dt.EPOCH) / timedelta(days=1)
        if f == "string":
            c = converter(t, w, explicit=False)
            return lambda v: (c(v) - dt.EPOCH) / timedelta(days=1)
        return float

    ld, rd = days_of(lt), days_of(rt)
    sign = 1 if op == "+" else -1
    name = w.name

    def calc(a: Any, b: Any) -> Any:
        if a is None or b is None:
            return None
        try:
            r = dt.EPOCH + timedelta(days=ld(a) + sign * rd(b))
        except OverflowError:
            raise tsql_error(517, name) from None
        if name == "smalldatetime":
            return dt.round_smalldatetime(r)
        if r.year < 1753:
            raise tsql_error(517, name)
        return dt.round_datetime(r)
    return SqlType(name), calc


def negation_type(name: str) -> str:
    """The integer type of ``-x`` for ``x`` of integer type ``name``: its own, except that
    an unsigned tinyint negates into a signed smallint (the documented rule of unary minus)."""
    return "smallint" if name == "tinyint" else name


def unary(op: str, t: SqlType) -> tuple[SqlType, Callable[[Any], Any]]:
    """``-x``, ``+x``, ``~x``."""
    if t.is_null:
        return INT, lambda v: None
    f = _fam(t)
    if op == "+":
        if f in ("int", "decimal", "money", "float", "string"):
            return t, lambda v: v
        raise tsql_error(8117, t.name, "plus")
    if op == "-":
        if f == "int" and t.name != "bit":
            name = negation_type(t.name)
            lo, hi = INT_RANGES[name]

            def neg(v: Any) -> Any:
                if v is None:
                    return None
                r = -v
                if lo <= r <= hi:
                    return r
                raise tsql_error(8115, "expression", name)
            return SqlType(name), neg
        if f in ("decimal", "money"):
            # copy_negate is exact: -v would round to the context's 28 digits.
            return t, lambda v: None if v is None else v.copy_negate()
        if f == "float":
            return t, lambda v: None if v is None else -v
        if f == "string":
            c = converter(t, SqlType("float"), explicit=False)
            return SqlType("float"), lambda v: None if v is None else -c(v)
        raise tsql_error(8117, t.name, "minus")
    if op == "~":
        if f == "int":
            name = t.name
            if name == "bit":
                return t, lambda v: None if v is None else 1 - v
            if name == "tinyint":
                return t, lambda v: None if v is None else (~v) & 0xFF
            return t, lambda v: None if v is None else ~v
        raise tsql_error(8117, t.name, "'~'")
    raise ValueError(f"unknown unary operator {op!r}")


# ------------------------------------------------------------------------------- comparison
def collation_key(s: str) -> tuple[str, str]:
    """Sort key of SQL Server's default collation in stored data (case-insensitive,
    accent-sensitive, trailing spaces ignored): letters first by their base letter (é sorts
    with e, before f), then accents break ties — as PostgreSQL's ICU collation ``tsqlb_ci``
    sorts. (:func:`string_key` is the interpreter's, which ignores accent order; see
    docs/decisions.md.)"""
    folded = s.rstrip(" ").casefold()
    if folded.isascii():
        return folded, folded
    base = "".join(c for c in unicodedata.normalize("NFD", folded)
                   if not unicodedata.combining(c))
    return base, folded


def string_key(s: str) -> str:
    """Collation key of SQL_Latin1_General_CP1_CI_AS-like comparison: case- and
    trailing-space-insensitive."""
    return s.rstrip(" ").lower()


def _guid_key(u: Any) -> bytes:
    b = u.bytes  # SQL Server orders by the last group first, then right to left
    return b[10:16] + b[8:10] + b[6:8] + b[4:6] + b[0:4]


def _binary_key(b: bytes) -> bytes:
    return b.rstrip(b"\0")


def _key_fn(t: SqlType) -> Callable[[Any], Any] | None:
    f = _fam(t)
    if f == "string":
        return string_key
    if f == "binary":
        return _binary_key
    if t.name == "uniqueidentifier":
        return _guid_key
    if t.name == "datetimeoffset":
        return lambda v: v.astimezone(UTC)
    return None


def _compare_plan(lt: SqlType, rt: SqlType) -> tuple[Callable[[Any], Any] | None,
                                                      Callable[[Any], Any] | None,
                                                      Callable[[Any], Any] | None]:
    """(left converter, right converter, key) bringing both sides to one comparable form."""
    if lt.is_xml or rt.is_xml:
        raise tsql_error(305)
    fl, fr = _fam(lt), _fam(rt)
    numeric = ("int", "decimal", "money", "float")
    if fl in numeric and fr in numeric:
        return None, None, None
    if fl == fr and fl in ("string", "binary", "uniqueidentifier", "datetime"):
        return None, None, _key_fn(lt)
    w = lt if precedence(lt) >= precedence(rt) else rt
    if fl in ("newdate", "datetime") and fr in ("newdate", "datetime"):
        # two date/time types meet in the widest form: offsets compare as UTC
        if "datetimeoffset" in (lt.name, rt.name):
            w = SqlType("datetimeoffset", scale=7)
        elif "time" in (lt.name, rt.name):
            w = lt if lt.name == "time" else rt
        else:
            w = SqlType("datetime2", scale=7)
        lc = None if lt.name == w.name else converter(lt, w, explicit=False)
        rc = None if rt.name == w.name else converter(rt, w, explicit=False)
        return lc, rc, _key_fn(w)
    lc = None if lt == w else _conv(lt, w)
    rc = None if rt == w else _conv(rt, w)
    return lc, rc, _key_fn(w)


def _variant_plan(build: Callable[[SqlType, SqlType], Fn2]) -> Fn2:
    """sql_variant operands: the values' own types decide, resolved once per type pair."""

    cache: dict[tuple[str, str], Fn2] = {}

    def dynamic(a: Any, b: Any) -> Any:
        if a is None or b is None:
            return None
        ta, tb = type_of_value(a), type_of_value(b)
        key = (ta.spec(), tb.spec())
        fn = cache.get(key)
        if fn is None:
            fn = cache[key] = build(ta, tb)
        return fn(a, b)
    return dynamic


def sort_key(t: SqlType) -> Callable[[Any], Any]:
    """A ``sorted()`` key ordering values of ``t`` as ORDER BY does: NULLs first (and last
    with ``reverse=True``, as DESC puts them), strings by the collation, GUIDs by SQL
    Server's byte order."""
    if t.is_xml:
        raise tsql_error(305)
    key = _key_fn(t) or (lambda v: v)

    def k(v: Any) -> tuple[int, Any]:
        return (0, 0) if v is None else (1, key(v))
    return k


def compare(lt: SqlType, rt: SqlType) -> Callable[[Any, Any], int | None]:
    """-1 / 0 / 1 comparison of values of the two types; None if either is NULL."""
    if lt.is_null or rt.is_null:
        return _null2
    if "sql_variant" in (lt.name, rt.name):
        return _variant_plan(compare)
    lc, rc, key = _compare_plan(lt, rt)
    lcv = lc or (lambda v: v)
    rcv = rc or (lambda v: v)
    kv = key or (lambda v: v)

    def cmp(a: Any, b: Any) -> int | None:
        if a is None or b is None:
            return None
        x, y = kv(lcv(a)), kv(rcv(b))
        return (x > y) - (x < y)
    return cmp


_CMP_OPS: dict[str, Callable[[Any, Any], bool]] = {
    "=": operator.eq, "<>": operator.ne, "!=": operator.ne, "<": operator.lt,
    ">": operator.gt, "<=": operator.le, ">=": operator.ge, "!<": operator.ge,
    "!>": operator.le,
}


def comparison(op: str, lt: SqlType, rt: SqlType) -> Callable[[Any, Any], bool | None]:
    """Three-valued ``left op right`` for ``= <> != < > <= >= !< !>``."""
    fn = _CMP_OPS[op]
    if lt.is_null or rt.is_null:
        return _null2
    if "sql_variant" in (lt.name, rt.name):
        return _variant_plan(lambda a, b: comparison(op, a, b))
    lc, rc, key = _compare_plan(lt, rt)
    if lc is None and rc is None and key is None:
        if op in ("<", "<="):
            # the hot loop case (WHILE @i < n): one closure, no indirection
            if op == "<":
                return lambda a, b: None if a is None or b is None else a < b
            return lambda a, b: None if a is None or b is None else a <= b

        def direct(a: Any, b: Any) -> bool | None:
            if a is None or b is None:
                return None
            return fn(a, b)
        return direct
    if lc is None and rc is None and key is not None:
        def keyed(a: Any, b: Any) -> bool | None:
            if a is None or b is None:
                return None
            return fn(key(a), key(b))
        return keyed
    lcv = lc or (lambda v: v)
    rcv = rc or (lambda v: v)
    kv = key or (lambda v: v)

    def converted(a: Any, b: Any) -> bool | None:
        if a is None or b is None:
            return None
        return fn(kv(lcv(a)), kv(rcv(b)))
    return converted


# ------------------------------------------------------------------------------------- LIKE
@lru_cache(maxsize=1024)
def like_regex(pattern: str, escape: str | None = None) -> re.Pattern[str]:
    """Compile a LIKE pattern (``% _ [abc] [a-z] [^x]``, optional ESCAPE) to a regex."""
    out: list[str] = []
    i, n = 0, len(pattern)
    while i < n:
        c = pattern[i]
        if escape is not None and c == escape and i + 1 < n:
            out.append(re.escape(pattern[i + 1]))
            i += 2
            continue
        if c == "%":
            out.append(".*")
        elif c == "_":
            out.append(".")
        elif c == "[":
            j = pattern.find("]", i + 2 if i + 1 < n and pattern[i + 1] == "]" else i + 1)
            if j < 0:
                out.append(re.escape(c))  # an unclosed bracket matches nothing special
            else:
                body = pattern[i + 1:j]
                neg = body.startswith("^")
                if neg:
                    body = body[1:]
                parts = []
                k = 0
                while k < len(body):
                    if k + 2 < len(body) and body[k + 1] == "-":
                        if body[k] <= body[k + 2]:  # a reversed range matches nothing
                            parts.append(f"{re.escape(body[k])}-{re.escape(body[k + 2])}")
                        k += 3
                    else:
                        parts.append(re.escape(body[k]))
                        k += 1
                out.append(("[^" if neg else "[") + "".join(parts) + "]" if parts else
                           ("." if neg else "(?!)"))
                i = j
        else:
            out.append(re.escape(c))
        i += 1
    return re.compile("".join(out), re.IGNORECASE | re.DOTALL)


def like(value: str | None, pattern: str | None, escape: str | None = None) -> bool | None:
    """``value LIKE pattern [ESCAPE escape]``, case-insensitive; trailing blanks of the value
    are ignored as SQL Server ignores them."""
    if value is None or pattern is None:
        return None
    rx = like_regex(pattern, escape)
    if rx.fullmatch(value):
        return True
    # the value's trailing blanks may be dropped, some or all of them
    keep = len(value.rstrip(" "))
    return any(rx.fullmatch(value, 0, end) for end in range(len(value) - 1, keep - 1, -1))


# ---------------------------------------------------------------------------- 3-valued logic
def and3(a: bool | None, b: bool | None) -> bool | None:
    """Three-valued AND: False wins over UNKNOWN."""
    if a is False or b is False:
        return False
    if a is None or b is None:
        return None
    return True


def or3(a: bool | None, b: bool | None) -> bool | None:
    """Three-valued OR: True wins over UNKNOWN."""
    if a is True or b is True:
        return True
    if a is None or b is None:
        return None
    return False


def not3(a: bool | None) -> bool | None:
    """Three-valued NOT: NOT UNKNOWN is UNKNOWN."""
    return None if a is None else not a


__all__ = [
    "and3",
    "binary",
    "compare",
    "comparison",
    "concat_type",
    "decimal_result",
    "like",
    "like_regex",
    "not3",
    "or3",
    "sort_key",
    "string_key",
    "unary",
]
