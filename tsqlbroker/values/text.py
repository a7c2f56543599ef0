"""How values look as text and bytes: float and money text, code page 1252, GUID text.

Shared by CAST/CONVERT (:mod:`convert`), the string functions and the SQLite functions, so
that ``CAST(1e10 AS varchar)`` is ``1e+010`` and a varchar's bytes are Windows-1252 bytes
wherever they are produced.
"""

from __future__ import annotations

import codecs
import uuid
from decimal import ROUND_HALF_UP, Decimal

from tsqlbroker.errors import tsql_error
from tsqlbroker.values.types import EXACT

_FOUR = Decimal("0.0001")


def float_text(v: float, style: int | None = 0) -> str:
    """A float as CAST/CONVERT writes it: 6 significant digits (style 0), 8 (1), 16 (2 and
    the legacy 126, as for money), 17 (3), the shortest digits that read back as the same
    float (the legacy 128 and 129), with SQL Server's three-digit exponent (``1e+010``)."""
    st = style or 0
    if st in (128, 129):
        return _shortest_float_text(v)
    if st == 1:
        text = f"{v:.7e}"
    elif st in (2, 126):
        text = f"{v:.15e}"
    elif st == 3:
        text = f"{v:.17g}"
    else:
        text = f"{v:.6g}"
    if "e" in text:
        mant, _, exp = text.partition("e")
        sign = exp[0] if exp[0] in "+-" else "+"
        digits = exp.lstrip("+-")
        text = f"{mant}e{sign}{int(digits):03d}"
    return text


def _shortest_float_text(v: float) -> str:
    """The legacy styles 128 and 129: the fewest significant digits that read back as ``v``
    (``124.323125453``, where style 0 writes ``124.323``), in fixed notation for a decimal
    exponent from -6 to 5 and in exponent notation (``1.5e+020``) outside it."""
    sign, digits, exp = Decimal(repr(v)).normalize().as_tuple()
    assert isinstance(exp, int)  # a float is finite here (SQL Server stores no inf / NaN)
    text = "".join(map(str, digits))
    x = len(text) - 1 + exp  # the exponent of the first digit
    if -6 <= x <= 5:
        body = f"{Decimal(repr(abs(v))).normalize():f}"
    else:
        body = text[0] + ("." + text[1:] if len(text) > 1 else "") + \
            f"e{'-' if x < 0 else '+'}{abs(x):03d}"
    return ("-" if sign else "") + body


def money_text(v: Decimal, style: int | None = 0) -> str:
    """money as text: two decimals (style 0), thousands separators (1), four decimals (2)."""
    st = style or 0
    if st == 1:
        return f"{v.quantize(Decimal('0.01'), rounding=ROUND_HALF_UP, context=EXACT):,f}"
    if st in (2, 126):
        return f"{v.quantize(_FOUR, context=EXACT):f}"
    return f"{v.quantize(Decimal('0.01'), rounding=ROUND_HALF_UP, context=EXACT):f}"


def decimal_text(v: Decimal) -> str:
    """A decimal as text, never in exponent form."""
    return f"{v:f}"


def _cp1252_errors(err: UnicodeError) -> tuple[str | bytes, int]:
    """Windows-1252 as SQL Server uses it: the five undefined bytes map to the same code
    points (and back); other characters a varchar cannot hold become '?'."""
    if isinstance(err, UnicodeDecodeError):
        return "".join(chr(b) for b in err.object[err.start:err.end]), err.end
    if isinstance(err, UnicodeEncodeError):
        out = bytearray()
        for ch in err.object[err.start:err.end]:
            out.append(ord(ch) if ord(ch) in (0x81, 0x8D, 0x8F, 0x90, 0x9D) else 0x3F)
        return bytes(out), err.end
    raise err


codecs.register_error("tsql_cp1252", _cp1252_errors)


def cp1252_encode(s: str) -> bytes:
    """A varchar's bytes (code page 1252)."""
    return s.encode("cp1252", "tsql_cp1252")


def cp1252_decode(b: bytes) -> str:
    """Bytes read as a varchar (code page 1252)."""
    return b.decode("cp1252", "tsql_cp1252")


def to_varchar_text(v: str) -> str:
    """What survives of a unicode string in a cp1252 varchar (others become '?')."""
    if v.isascii():
        return v
    return cp1252_decode(cp1252_encode(v))


def binary_text(v: bytes, unicode: bool) -> str:
    """Bytes read as characters: UTF-16LE for n-types, cp1252 otherwise."""
    if unicode:
        if len(v) % 2:
            v = v[:-1]
        return v.decode("utf-16-le", "surrogatepass")
    return cp1252_decode(v)


def parse_guid(text: str) -> uuid.UUID:
    """'6F9619FF-8B86-D011-B42D-00C04FC964FF' or '{…}' (Msg 8169 otherwise)."""
    t = text.strip()
    if t.startswith("{"):
        if len(t) < 38 or t[37] != "}":
            raise tsql_error(8169)
        t = t[1:37]
    else:
        t = t[:36]  # SQL Server ignores anything after the 36 characters of a GUID
    if len(t) != 36 or t[8] != "-" or t[13] != "-" or t[18] != "-" or t[23] != "-":
        raise tsql_error(8169)
    try:
        return uuid.UUID(t)
    except ValueError:
        raise tsql_error(8169) from None
