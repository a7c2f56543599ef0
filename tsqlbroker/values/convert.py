"""CAST / CONVERT / implicit conversion between T-SQL types, compiled once per type pair.

:func:`converter` looks at the two static types once and returns a small closure; the closure
does no type dispatch when it runs. Conversions SQL Server refuses are refused when the
converter is built (Msg 529 explicit, 257 implicit-only-explicit, 206 operand type clash);
value errors (245, 8114, 8115, 241 …) are raised when a value fails at run time, or turned
into NULL for ``TRY_CAST`` / ``TRY_CONVERT``.
"""

from __future__ import annotations

import math
import re
import struct
import uuid
from collections.abc import Callable
from datetime import UTC, date, datetime, timedelta
from decimal import ROUND_HALF_UP, Context, Decimal, InvalidOperation, localcontext
from typing import Any

from tsqlbroker.errors import TSqlError, tsql_error
from tsqlbroker.values import dates as dt
from tsqlbroker.values.text import (
    binary_text,
    cp1252_encode,
    float_text,
    money_text,
    parse_guid,
    to_varchar_text,
)
from tsqlbroker.values.types import (
    INT_BYTES,
    INT_INTERNAL_NAMES,
    INT_RANGES,
    MAX,
    SqlType,
    type_of_value,
)

Conv = Callable[[Any], Any]

MONEY_RANGE = {"money": Decimal("922337203685477.5807"), "smallmoney": Decimal("214748.3647")}
_FOUR = Decimal("0.0001")
# Rounding of in-range values: 38 digits plus 38 places fit easily in 100.
_EXACT = Context(prec=100, rounding=ROUND_HALF_UP)
_INT_TEXT = re.compile(r"^[ \t\r\n]*([+-]?)[ \t]*(\d+)[ \t\r\n]*$")
_DEC_TEXT = re.compile(r"^\s*[+-]?(\d+\.?\d*|\.\d+)\s*$")
_FLOAT_TEXT = re.compile(r"^\s*[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?\s*$")
_MONEY_TEXT = re.compile(r"^\s*([+-]?)\s*[$€£¥]?\s*([+-]?)\s*(\d[\d,]*\.?\d*|\.\d+)\s*$")
# The conversion error numbers TRY_CAST / TRY_CONVERT turn into NULL.
CONVERSION_ERRORS = frozenset(
    {220, 232, 235, 241, 242, 244, 245, 248, 517, 8114, 8115, 8169, 8170}
    | set(range(9400, 9500))
)


def _family(t: SqlType) -> str:
    n = t.name
    if n in INT_RANGES:
        return "bit" if n == "bit" else "int"
    if t.is_decimal:
        return "decimal"
    if t.is_money:
        return "money"
    if t.is_float:
        return "float"
    if n in ("text", "ntext"):
        return "text"
    if t.is_string:
        return "string"
    if n == "image":
        return "image"
    if t.is_binary:
        return "binary"
    if n in ("datetime", "smalldatetime"):
        return "datetime"
    if t.is_datetime:
        return "newdate"
    return n  # uniqueidentifier, xml, sql_variant, null


_NUMERIC_FAMILIES = frozenset({"int", "bit", "decimal", "money", "float"})
_STRINGY = frozenset({"string", "text"})
_BINARYISH = frozenset({"binary", "image"})


def _allowed(src: SqlType, dst: SqlType) -> str:
    """'I' implicit, 'E' explicit only, 'N' not allowed — SQL Server's conversion chart."""
    s, d = _family(src), _family(dst)
    if {src.name, dst.name} == {"date", "time"}:
        return "N"
    if s == "null" or d == "sql_variant" or s == d:
        return "I"
    if s == "sql_variant":
        return "E"
    if s == "text":
        return "I" if d in ("string", "xml") else "N"
    if d == "text":
        return "I" if s in ("string", "xml") or s in _NUMERIC_FAMILIES or s in (
            "datetime", "newdate", "uniqueidentifier") else "N"
    if s == "image":
        return "I" if d in ("binary", "xml") else "N"
    if d == "image":
        return "I" if s in ("binary",) else "E" if s == "string" else "N"
    if s == "xml":
        return "E" if d in ("string", "binary") else "N"
    if d == "xml":
        return "I" if s in ("string", "binary") else "N"
    if s == "uniqueidentifier":
        return "I" if d in ("string", "binary") else "N"
    if d == "uniqueidentifier":
        return "I" if s in ("string", "binary") else "N"
    if s == "string":
        return "E" if d == "binary" else "I"
    if d == "string":
        return "I"
    if s == "binary":
        return "I" if d in ("int", "bit", "money", "decimal", "datetime") else \
            "E" if d in ("float", "newdate") else "N"
    if d == "binary":
        return "I" if s in ("int", "bit", "money", "decimal") else "E"
    if s == "newdate" or d == "newdate":
        if s in ("newdate", "datetime") and d in ("newdate", "datetime"):
            if {src.name, dst.name} == {"date", "time"}:
                return "N"
            return "I"
        return "N"
    if s == "datetime":
        return "E" if d in _NUMERIC_FAMILIES else "I"
    return "I"  # numeric ↔ numeric, numeric → datetime


def _raise_not_allowed(src: SqlType, dst: SqlType, explicit: bool) -> TSqlError:
    rule = _allowed(src, dst)
    if rule == "N":
        if explicit:
            return tsql_error(529, src.name, dst.name)
        return tsql_error(206, src.name, dst.name)
    return tsql_error(257, src.name, dst.name)


def converter(src: SqlType, dst: SqlType, *, style: int | None = None, try_: bool = False,
              explicit: bool = True) -> Conv:
    """A callable converting values of ``src`` to ``dst`` (NULL stays NULL).

    Raises Msg 529/257/206 now if SQL Server refuses the conversion; the callable raises
    245/8114/8115/241/242/8169… on bad values, or returns None for them when ``try_``.
    """
    rule = _allowed(src, dst)
    if rule == "N" or (rule == "E" and not explicit):
        raise _raise_not_allowed(src, dst, explicit)
    if src.name == "null":
        return _null
    core = _build(src, dst, style)
    if core is None:
        return _identity
    if try_:
        def safe(v: Any) -> Any:
            if v is None:
                return None
            try:
                return core(v)
            except TSqlError as e:
                if e.number in CONVERSION_ERRORS:
                    return None
                raise
        return safe

    def conv(v: Any) -> Any:
        return None if v is None else core(v)
    return conv


def implicit_converter(src: SqlType, dst: SqlType) -> Conv:
    """Conversion for assignment and parameter passing: implicit conversions only."""
    return converter(src, dst, explicit=False)


def conversion_for_assignment(src: SqlType, dst: SqlType) -> Conv | None:
    """The implicit conversion ``src`` → ``dst`` of a value assigned to a variable or passed
    as a parameter, or None when none is needed.

    A ``sql_variant`` source (also the static type of a value only typed at run time, such
    as a subquery's) converts by its actual value, as an explicit CAST would: the value came
    from a query whose column type the compiler could not know."""
    if src == dst and dst.name != "sql_variant":
        return None
    if src.name == "null":
        return None
    if src.name == "sql_variant":
        conv = converter(src, dst)
    else:
        fast = _same_scale_decimal(src, dst)
        if fast is not None:
            return fast
        conv = implicit_converter(src, dst)
    return None if conv is _identity else conv


def _same_scale_decimal(src: SqlType, dst: SqlType) -> Conv | None:
    """decimal(p1,s) → decimal(p2,s): the value needs no rounding, only the precision check
    (the common ``SET @d = @d + 1.25`` shape, on the hot path of procedural loops)."""
    if not (src.is_decimal and dst.is_decimal) or src.scale != dst.scale:
        return None
    p, s = dst.precision or 18, dst.scale or 0
    if (src.precision or 18) - (src.scale or 0) <= p - s:
        return lambda v: v
    limit = Decimal(10) ** (p - s)

    def check(v: Any) -> Any:
        if v is None or -limit < v < limit:
            return v
        raise tsql_error(8115, "numeric", "numeric")
    return check


def convert_value(value: Any, src: SqlType, dst: SqlType, style: int | None = None) -> Any:
    """Convert one value (convenience for non-hot paths)."""
    return converter(src, dst, style=style)(value)


def assignment_converter(src: SqlType, dst: SqlType) -> Conv | None:
    """How INSERT and UPDATE convert a value of a known numeric type ``src`` for a column of
    integer type ``dst``: as CAST does (money and smallmoney round to the nearest integer,
    decimal and float are truncated, Msg 8115 / 220 past the column's range); None where
    the store's own conversion of the value already is CAST's."""
    if _family(dst) != "int" or _family(src) not in ("int", "decimal", "money", "float"):
        return None
    core = converter(src, dst)
    if _family(src) != "money":
        return core

    def from_money(v: Any) -> Any:  # a store may hand money back as a float
        return core(Decimal(str(v)) if isinstance(v, float) else v)
    return from_money


def _identity(v: Any) -> Any:
    return v


def _null(_v: Any) -> None:
    return None


# ------------------------------------------------------------------------------ the builders
def _build(src: SqlType, dst: SqlType, style: int | None) -> Conv | None:
    d = _family(dst)
    if d == "sql_variant":
        return None
    if _family(src) == "sql_variant":
        return _from_variant(dst, style)
    builder = _TARGETS[d]
    return builder(src, dst, style)


def _src_name(src: SqlType) -> str:
    return {"text": "varchar", "ntext": "nvarchar"}.get(src.name, src.name)


# ---- to integer types
def _to_int(src: SqlType, dst: SqlType, style: int | None) -> Conv | None:
    lo, hi = INT_RANGES[dst.name]
    name = dst.name
    s = _family(src)
    if s in ("int", "bit"):
        slo, shi = INT_RANGES[src.name]
        if lo <= slo and shi <= hi:
            return None
        if name == "bit":
            return lambda v: 1 if v else 0

        def narrow(v: int) -> int:
            if lo <= v <= hi:
                return v
            if name in ("tinyint", "smallint"):
                raise tsql_error(220, name, v)
            raise tsql_error(8115, "expression", name)
        return narrow
    if s in ("decimal", "money", "float"):
        if name == "bit":
            return lambda v: 1 if v else 0

        # money rounds to an integer, decimal and float are truncated (CAST's table).
        rounds = s == "money"

        def trunc(v: Any) -> int:
            if isinstance(v, float) and not math.isfinite(v):
                raise tsql_error(8115, "expression", name)
            i = int(v.to_integral_value(ROUND_HALF_UP)) if rounds else int(v)
            if lo <= i <= hi:
                return i
            raise tsql_error(8115, "expression", name)
        return trunc
    if s in _STRINGY:
        sname = _src_name(src)
        if name == "bit":
            def to_bit(v: str) -> int:
                t = v.strip()
                low = t.lower()
                if low == "true":
                    return 1
                if low == "false" or t == "":
                    return 0
                m = _INT_TEXT.match(t) or _DEC_TEXT.match(t)
                if not m:
                    raise tsql_error(245, sname, v, "bit")
                return 0 if Decimal(t) == 0 else 1
            return to_bit

        def parse_int(v: str) -> int:
            m = _INT_TEXT.match(v)
            if not m:
                if v.strip() == "":
                    return 0
                raise tsql_error(245, sname, v, name)
            i = int(m.group(2))
            if m.group(1) == "-":
                i = -i
            if lo <= i <= hi:
                return i
            if name == "int":
                raise tsql_error(248, sname, v)
            if name == "bigint":
                raise tsql_error(8114, sname, name)
            raise tsql_error(244, sname, v, INT_INTERNAL_NAMES[name])
        return parse_int
    if s in _BINARYISH:
        size = INT_BYTES[name]
        signed = name not in ("tinyint", "bit")

        def from_bytes(v: bytes) -> int:
            b = v[-size:].rjust(size, b"\0")
            i = int.from_bytes(b, "big", signed=signed)
            return (1 if i else 0) if name == "bit" else i
        return from_bytes
    if s == "datetime":
        def days(v: datetime) -> int:
            delta = v - dt.EPOCH
            whole = delta.days + (1 if delta.seconds >= 43200 else 0)
            if not lo <= whole <= hi:
                raise tsql_error(8115, "expression", name)
            return whole
        return days
    raise _raise_not_allowed(src, dst, True)


# ---- to decimal / money
def _quantizer(p: int, s: int, errname: Callable[[], TSqlError]) -> Callable[[Decimal], Decimal]:
    exp = Decimal(1).scaleb(-s)
    limit = Decimal(10) ** (p - s)

    def q(d: Decimal) -> Decimal:
        if abs(d) >= limit:  # checked first: quantizing a huge value needs huge precision
            raise errname()
        r = d.quantize(exp, context=_EXACT)
        if abs(r) >= limit:
            raise errname()
        return r
    return q


def _numeric_reader(src: SqlType, dst_label: str) -> Callable[[Any], Decimal]:
    """Read a source value as an exact Decimal (strings parsed, floats via repr)."""
    s = _family(src)
    if s in ("int", "bit", "decimal", "money"):
        return lambda v: Decimal(v)
    if s == "float":
        def from_float(v: float) -> Decimal:
            if not math.isfinite(v):
                raise tsql_error(8115, "float", dst_label)
            return Decimal(repr(v))
        return from_float
    if s in _STRINGY:
        sname = _src_name(src)
        if dst_label in ("money", "smallmoney"):
            def money_text(v: str) -> Decimal:
                m = _MONEY_TEXT.match(v)
                if not m or (m.group(1) and m.group(2)):
                    if v.strip() == "":
                        return Decimal(0)
                    raise tsql_error(235)
                d = Decimal(m.group(3).replace(",", ""))
                return -d if "-" in (m.group(1) + m.group(2)) else d
            return money_text

        def dec_text(v: str) -> Decimal:
            if not _DEC_TEXT.match(v):
                raise tsql_error(8114, sname, "numeric")
            return Decimal(v.strip())
        return dec_text
    if s == "datetime":
        return lambda v: Decimal(repr(_datetime_days(v)))
    if s in _BINARYISH and dst_label in ("money", "smallmoney"):
        size = 8 if dst_label == "money" else 4
        return lambda v: Decimal(int.from_bytes(v[-size:].rjust(size, b"\0"), "big",
                                                signed=True)).scaleb(-4)
    raise tsql_error(529, src.name, dst_label)


def _to_decimal(src: SqlType, dst: SqlType, style: int | None) -> Conv | None:
    p, s = dst.precision or 18, dst.scale or 0
    if src.is_decimal and src.precision is not None and (
            (src.scale or 0) == s and (src.precision - (src.scale or 0)) <= p - s):
        return None
    read = _numeric_reader(src, "numeric")
    fam = _family(src)
    srcname = {"int": "int", "bit": "bit", "float": "float", "money": "money"}.get(
        fam, "numeric" if fam == "decimal" else _src_name(src))
    q = _quantizer(p, s, lambda: tsql_error(8115, srcname, "numeric"))
    return lambda v: q(read(v))


def _to_money(src: SqlType, dst: SqlType, style: int | None) -> Conv | None:
    name = dst.name
    if src.name == name or (src.name == "smallmoney" and name == "money"):
        return None
    read = _numeric_reader(src, name)
    limit = MONEY_RANGE[name]
    srcname = _src_name(src) if src.is_string else src.name

    def money(v: Any) -> Decimal:
        d = read(v)
        if abs(d) > limit or abs(d := d.quantize(_FOUR, context=_EXACT)) > limit:
            raise tsql_error(8115, "expression" if srcname != "varchar" else srcname, name)
        return d
    return money


# ---- to float / real
def to_real(v: float) -> float:
    """Round a double to single precision, as ``real`` stores it."""
    try:
        return struct.unpack("<f", struct.pack("<f", v))[0]
    except OverflowError:
        raise tsql_error(8115, "expression", "real") from None


def _datetime_days(v: datetime) -> float:
    """Days since 1900-01-01 as SQL Server computes them from what datetime stores: whole
    days and 1/300 s ticks (a shown .123 is 37 ticks, .12333… s)."""
    delta = v - dt.EPOCH
    ticks = (delta.microseconds * 300 + 500_000) // 1_000_000
    return delta.days + (delta.seconds + ticks / 300) / 86400.0


def _to_float(src: SqlType, dst: SqlType, style: int | None) -> Conv | None:
    real = dst.name == "real"
    fam = _family(src)
    if fam == "float" and (src.name == "real" or not real):
        return None
    if fam in ("int", "bit", "decimal", "money", "float"):
        return (lambda v: to_real(float(v))) if real else float
    if fam in _STRINGY:
        sname = _src_name(src)

        def parse_float(v: str) -> float:
            if not _FLOAT_TEXT.match(v):
                if v.strip() == "":
                    return 0.0
                raise tsql_error(8114, sname, dst.name)
            f = float(v)
            if not math.isfinite(f):
                raise tsql_error(8115, sname, dst.name)
            return to_real(f) if real else f
        return parse_float
    if fam == "datetime":
        return (lambda v: to_real(_datetime_days(v))) if real else _datetime_days
    if fam in _BINARYISH:
        if real:
            return lambda v: struct.unpack(">f", v[-4:].rjust(4, b"\0"))[0]
        return lambda v: struct.unpack(">d", v[-8:].rjust(8, b"\0"))[0]
    raise _raise_not_allowed(src, dst, True)


# ---- to strings
def _fit(dst: SqlType) -> Callable[[str], str]:
    """Truncate (CAST truncates silently) and pad char(n) to its length."""
    n = dst.length
    unicode = dst.is_unicode
    fixed = dst.name in ("char", "nchar")
    if n is None or n == MAX or dst.name in ("text", "ntext"):
        return _identity if unicode else to_varchar_text
    if fixed:
        if unicode:
            return lambda s: s[:n].ljust(n)
        return lambda s: to_varchar_text(s[:n]).ljust(n)
    if unicode:
        return lambda s: s[:n]
    return lambda s: to_varchar_text(s[:n])


def _overflow_or_star(dst: SqlType, srcname: str) -> Callable[[str], str]:
    """Numbers that do not fit: '*' for char types from int, Msg 8115 otherwise."""
    n = dst.length
    fit = _fit(dst)
    if n is None or n == MAX:
        return fit
    star = srcname == "int" and not dst.is_unicode

    def check(s: str) -> str:
        if len(s) <= n:
            return fit(s)
        if star:
            return fit("*")
        raise tsql_error(8115, "expression" if srcname == "int" else srcname, dst.name)
    return check


def _to_string(src: SqlType, dst: SqlType, style: int | None) -> Conv | None:
    fam = _family(src)
    fit = _fit(dst)
    if fam in _STRINGY:
        lossless = dst.is_unicode or not src.is_unicode
        if dst.length in (None, MAX) and dst.name not in ("char", "nchar"):
            return None if lossless else fit
        if (lossless and src.length not in (None, MAX) and dst.name not in ("char", "nchar")
                and src.length <= dst.length):  # type: ignore[operator]
            return None
        return fit
    if fam == "bit" or fam == "int":
        check = _overflow_or_star(dst, "int")
        return lambda v: check(str(v))
    if fam == "decimal":
        check = _overflow_or_star(dst, "numeric")
        return lambda v: check(f"{v:f}")
    if fam == "money":
        check = _overflow_or_star(dst, "money")
        return lambda v: check(money_text(v, style))
    if fam == "float":
        check = _overflow_or_star(dst, src.name)
        if style not in (None, 0, 1, 2, 3, 126, 128, 129):
            raise tsql_error(281, style, src.name)
        return lambda v: check(float_text(v, style))
    if fam in _BINARYISH:
        st = style or 0
        if st == 0:
            uni = dst.is_unicode
            return lambda v: fit(binary_text(v, uni))
        if st == 1:
            return lambda v: fit("0x" + v.hex().upper())
        if st == 2:
            return lambda v: fit(v.hex().upper())
        raise tsql_error(281, st, src.name)
    if fam == "uniqueidentifier":
        n = dst.length

        def guid_text(v: uuid.UUID) -> str:
            if n is not None and n != MAX and n < 36:
                raise tsql_error(8170)
            return fit(str(v).upper())
        return guid_text
    if fam in ("datetime", "newdate"):
        tname, scale = src.name, src.scale
        st = 0 if style is None else style
        dt.format_style(datetime(2000, 1, 1), tname, st, scale)  # Msg 281 now, not per row
        return lambda v: fit(dt.format_style(v, tname, st, scale))
    if fam == "xml":
        return lambda v: fit(v.to_string())
    raise _raise_not_allowed(src, dst, True)


# ---- to binary
_HEX_OK = re.compile(r"^[0-9A-Fa-f]*$")


def _fit_binary(dst: SqlType) -> Callable[[bytes], bytes]:
    n = dst.length
    if n is None or n == MAX or dst.name == "image":
        return _identity
    if dst.name == "binary":
        return lambda b: b[:n].ljust(n, b"\0")
    return lambda b: b[:n]


def _fit_number_bytes(dst: SqlType) -> Callable[[bytes], bytes]:
    """Numbers keep their rightmost bytes when the binary is shorter, pad left when longer."""
    n = dst.length
    if n is None or n == MAX or dst.name == "image":
        return _identity
    if dst.name == "binary":
        return lambda b: b[-n:].rjust(n, b"\0")
    return lambda b: b[-n:]


def _to_binary(src: SqlType, dst: SqlType, style: int | None) -> Conv | None:
    fam = _family(src)
    fit = _fit_binary(dst)
    if fam in _BINARYISH:
        if dst.name != "binary" and dst.length in (None, MAX):
            return None
        return fit
    if fam in _STRINGY:
        st = style or 0
        if st == 0:
            if src.is_unicode:
                return lambda v: fit(v.encode("utf-16-le", "surrogatepass"))
            return lambda v: fit(cp1252_encode(v))
        if st in (1, 2):
            sname = _src_name(src)

            def unhex(v: str) -> bytes:
                t = v
                if st == 1:
                    if not t[:2].lower() == "0x":
                        raise tsql_error(8114, sname, dst.name)
                    t = t[2:]
                if not _HEX_OK.match(t):
                    raise tsql_error(8114, sname, dst.name)
                if len(t) % 2:
                    t = "0" + t if st == 1 else t
                if len(t) % 2:
                    raise tsql_error(8114, sname, dst.name)
                return fit(bytes.fromhex(t))
            return unhex
        raise tsql_error(9809, st, src.name, dst.name)
    numfit = _fit_number_bytes(dst)
    if fam in ("int", "bit"):
        size = INT_BYTES[src.name]
        return lambda v: numfit(int(v).to_bytes(size, "big", signed=src.name != "tinyint"))
    if fam == "money":
        size = 8 if src.name == "money" else 4
        return lambda v: numfit(int(v.scaleb(4)).to_bytes(size, "big", signed=True))
    if fam == "float":
        if src.name == "real":
            return lambda v: numfit(struct.pack(">f", v))
        return lambda v: numfit(struct.pack(">d", v))
    if fam == "uniqueidentifier":
        return lambda v: fit(v.bytes_le)
    if fam == "datetime":
        small = src.name == "smalldatetime"

        def dt_bytes(v: datetime) -> bytes:
            delta = v - dt.EPOCH
            if small:
                return numfit(delta.days.to_bytes(2, "big") +
                              (delta.seconds // 60).to_bytes(2, "big"))
            ticks = (delta.seconds * 1_000_000 + delta.microseconds) * 3 // 10_000
            return numfit(delta.days.to_bytes(4, "big", signed=True) + ticks.to_bytes(4, "big"))
        return dt_bytes
    if fam == "xml":
        return lambda v: fit(b"\xff\xfe" + v.to_string().encode("utf-16-le"))
    raise _raise_not_allowed(src, dst, True)


# ---- to uniqueidentifier
def _to_guid(src: SqlType, dst: SqlType, style: int | None) -> Conv | None:
    fam = _family(src)
    if fam == "uniqueidentifier":   # e.g. a sql_variant holding one (untyped view columns)
        return None
    if fam in _STRINGY:
        return parse_guid
    if fam in _BINARYISH:
        return lambda v: uuid.UUID(bytes_le=v[:16].ljust(16, b"\0"))
    raise _raise_not_allowed(src, dst, True)


# ---- to date/time types
def _to_datetime(src: SqlType, dst: SqlType, style: int | None) -> Conv | None:
    fam, name, scale = _family(src), dst.name, dst.scale
    if fam in _STRINGY:
        sname = _src_name(src)
        if style is not None and style not in (0, 100) and style not in range(1, 15) and \
                style not in range(101, 115) and style not in (20, 21, 22, 23, 24, 25, 120,
                                                               121, 126, 127, 130, 131):
            raise tsql_error(9809, style, src.name, name)
        return lambda v: dt.parse_to(v, name, scale, style, sname)
    if fam in ("datetime", "newdate"):
        return _between_dates(src, dst)
    if fam in ("int", "bit", "decimal", "money", "float"):
        if name not in ("datetime", "smalldatetime"):
            raise _raise_not_allowed(src, dst, True)

        def from_days(v: Any) -> datetime:
            try:
                r = dt.EPOCH + timedelta(days=float(v))
            except OverflowError:
                raise tsql_error(8115, "expression", name) from None
            return dt.from_datetime(r, None, name, None, "expression") \
                if r.year >= 1753 else _overflow_date(name)
        return from_days
    if fam in _BINARYISH and name in ("datetime", "smalldatetime"):
        def from_bytes(v: bytes) -> datetime:
            try:
                return read_bytes(v)
            except (OverflowError, ValueError):
                raise tsql_error(8115, "expression", name) from None

        def read_bytes(v: bytes) -> datetime:
            if name == "smalldatetime":
                b = v[-4:].rjust(4, b"\0")
                return dt.EPOCH + timedelta(days=int.from_bytes(b[:2], "big"),
                                            minutes=int.from_bytes(b[2:], "big"))
            b = v[-8:].rjust(8, b"\0")
            days = int.from_bytes(b[:4], "big", signed=True)
            ticks = int.from_bytes(b[4:], "big")
            return dt.round_datetime(dt.EPOCH + timedelta(days=days,
                                                          microseconds=ticks * 10_000 / 3))
        return from_bytes
    raise _raise_not_allowed(src, dst, True)


def _overflow_date(name: str) -> datetime:
    raise tsql_error(8115, "expression", name)


def _between_dates(src: SqlType, dst: SqlType) -> Conv | None:
    s, d, scale = src.name, dst.name, dst.scale
    if s == d and (scale is None or src.scale is None or src.scale <= scale):
        return None
    if d == "date":
        return lambda v: v if type(v) is date else v.date()
    if d == "time":
        return lambda v: dt.round_fraction(v.time().replace(tzinfo=None)
                                           if isinstance(v, datetime) else v, scale)
    if d == "datetimeoffset":
        def to_dto(v: Any) -> datetime:
            x = dt.as_datetime(v)
            if x.tzinfo is None:
                x = x.replace(tzinfo=UTC)
            return dt.round_fraction(x, scale)
        return to_dto

    def to_naive(v: Any) -> datetime:
        x = dt.as_datetime(v)
        if x.tzinfo is not None:
            x = x.replace(tzinfo=None)  # datetimeoffset → datetime keeps the local time
        return dt.from_datetime(x, None, d, scale, s)
    return to_naive


# ---- to xml
def _to_xml(src: SqlType, dst: SqlType, style: int | None) -> Conv | None:
    # start-up laziness: lxml (xml_value) loads only when an xml conversion is built
    from tsqlbroker.values.xml_value import XmlValue

    fam = _family(src)
    if fam == "xml":
        return None
    if fam in _STRINGY:
        source = "nvarchar" if src.is_unicode else "varchar"
        return lambda v: XmlValue.parse(v, source)
    if fam in _BINARYISH:
        return XmlValue.from_bytes
    raise _raise_not_allowed(src, dst, True)


# ---- from sql_variant: the value's own type decides, looked up once per Python type
# The old name, called by interpreter/function_calls.py and expressions.py until P5 (issue 15).
variant_type = type_of_value


def _from_variant(dst: SqlType, style: int | None) -> Conv:
    cache: dict[tuple[type, str], Conv] = {}

    def conv(v: Any) -> Any:
        st = type_of_value(v)
        key = (type(v), st.spec())
        f = cache.get(key)
        if f is None:
            f = cache[key] = converter(st, dst, style=style)
        return f(v)
    return conv


_TARGETS: dict[str, Callable[[SqlType, SqlType, int | None], Conv | None]] = {
    "int": _to_int, "bit": _to_int, "decimal": _to_decimal, "money": _to_money,
    "float": _to_float, "string": _to_string, "text": _to_string, "binary": _to_binary,
    "image": _to_binary, "uniqueidentifier": _to_guid, "datetime": _to_datetime,
    "newdate": _to_datetime, "xml": _to_xml,
}


def quantize(v: Decimal, scale: int) -> Decimal:
    """Round a Decimal half away from zero to ``scale`` places (SQL Server's rounding)."""
    try:
        return v.quantize(Decimal(1).scaleb(-scale), rounding=ROUND_HALF_UP)
    except InvalidOperation:
        with localcontext() as ctx:
            ctx.prec = 100
            return v.quantize(Decimal(1).scaleb(-scale), rounding=ROUND_HALF_UP)
