"""FORMAT (the .NET format strings SQL Server passes to the CLR) and STR.

Numbers: standard ``N C D F E P X G`` with an optional precision, and custom patterns built
from ``0 # . , % ‰ 'literal' \\x`` with ``;`` sections. Dates: standard ``d D t T f F g G M Y
s u o`` and custom ``yyyy yy MMMM MMM MM M dddd ddd dd d HH H hh h mm m ss s f… tt zzz``.
time: .NET's TimeSpan formats (``c g G``, custom ``d h m s f F`` with other text escaped).
Cultures: the table of values/cultures.py (en-US, the session's, by default). An invalid format
gives NULL, as SQL Server's FORMAT does.
"""

from __future__ import annotations

import re
import struct
from datetime import date, datetime, time, timedelta
from decimal import ROUND_HALF_UP, Decimal, localcontext
from typing import Any

from tsqlbroker.values.cultures import Culture, culture
from tsqlbroker.values.dates import default_text
from tsqlbroker.values.text import money_text
from tsqlbroker.values.types import EXACT, SqlType, parse_type_spec


class _Invalid(Exception):
    """The format string is not valid for the value: FORMAT returns NULL."""


def format_value(value: Any, fmt: str, culture_name: str | None = None) -> str | None:
    """FORMAT(value, fmt[, culture]); None for NULL input or an invalid format."""
    if value is None or fmt is None:
        return None
    cul = culture(culture_name)
    if fmt == "":  # .NET's ToString(""): the general format (a TimeSpan's constant one)
        fmt = "c" if isinstance(value, time) else "G"
    try:
        with localcontext() as ctx:
            ctx.prec = 400  # exact digits for any float or decimal(38)
            return _format_any(value, fmt, cul)
    except (_Invalid, ArithmeticError, ValueError, OverflowError):
        return None


def _format_any(value: Any, fmt: str, cul: Culture) -> str | None:
    if isinstance(value, time):
        return _format_timespan(value, fmt, cul)
    if isinstance(value, (datetime, date)):
        return _format_date(value, fmt, cul)
    if isinstance(value, bool):
        return _format_number(int(value), fmt, cul)
    if isinstance(value, (int, float, Decimal)):
        return _format_number(value, fmt, cul)
    return None


# ------------------------------------------------------------------------------------ numbers
def _group(digits: str, cul: Culture) -> str:
    """Digits in the culture's groups (NumberGroupSizes: en-IN's 3 then 2s, 12,34,567)."""
    out = []
    sizes = list(cul.group_sizes)
    size = sizes.pop(0)
    while len(digits) > size:
        out.append(digits[-size:])
        digits = digits[:-size]
        size = sizes.pop(0) if sizes else size
    out.append(digits)
    return cul.group.join(reversed(out))


def _fixed(value: Any, places: int) -> tuple[bool, str, str]:
    """(negative, integer digits, fraction digits) rounded half away from zero."""
    d = value if isinstance(value, Decimal) else Decimal(repr(value)) if isinstance(
        value, float) else Decimal(value)
    q = d.quantize(Decimal(1).scaleb(-places), rounding=ROUND_HALF_UP, context=EXACT)
    neg = q < 0
    text = f"{abs(q):f}"
    ip, _, fp = text.partition(".")
    return neg and q != 0, ip, fp


_STD = re.compile(r"^([NnCcDdFfEePpXxGgRr])(\d{0,2})$")
_LETTER_DIGITS = re.compile(r"^[A-Za-z]\d{0,2}$")


def _format_number(value: Any, fmt: str, cul: Culture) -> str:
    m = _STD.match(fmt)
    if m:
        return _standard_number(value, m.group(1), m.group(2), cul)
    if _LETTER_DIGITS.match(fmt):
        raise _Invalid  # .NET reads a letter (+ digits) as an unknown standard format
    return _custom_number(value, fmt, cul)


def _standard_number(value: Any, kind: str, prec_text: str, cul: Culture) -> str:
    k = kind.upper()
    prec = int(prec_text) if prec_text else None
    if k in ("N", "F", "C", "P"):
        places = (cul.currency_digits if k == "C" else 2) if prec is None else prec
        v = value * 100 if k == "P" else value
        neg, ip, fp = _fixed(v, places)
        ip = ip if k == "F" else _group(ip, cul)
        num = ip + (cul.decimal + fp if places else "")
        if k == "C":
            pat = cul.currency_negative if neg else cul.currency_positive
            return pat.replace("n", num).replace("$", cul.currency)
        if k == "P":
            return ("-" if neg else "") + cul.percent_positive.replace("n", num)
        return ("-" if neg else "") + num
    if k == "D":
        if not isinstance(value, int):
            raise _Invalid
        digits = str(abs(value)).rjust(prec or 0, "0")
        return ("-" if value < 0 else "") + digits
    if k == "X":
        if not isinstance(value, int):
            raise _Invalid
        v = value if value >= 0 else value + (1 << 64 if value < -(2**31) else 1 << 32)
        text = f"{v:x}".rjust(prec or 0, "0")
        return text.upper() if kind == "X" else text
    if k == "E":
        places = 6 if prec is None else prec
        text = f"{float(value):.{places}e}"
        mant, _, exp = text.partition("e")
        sign = exp[0]
        body = f"{mant}{'E' if kind == 'E' else 'e'}{sign}{int(exp[1:]):03d}"
        return body.replace(".", cul.decimal)
    # G / R: shortest round-trip text
    if isinstance(value, int):
        return str(value)
    if isinstance(value, Decimal):
        # .NET's decimal keeps its scale: 'G' of -0.5000 is -0.5000.
        text = f"{value:f}" if prec is None else f"{value:.{prec}g}"
    else:
        text = repr(float(value)) if prec is None else f"{float(value):.{prec}g}"
        text = text.removesuffix(".0")
    return text.replace(".", cul.decimal)


def _split_sections(fmt: str) -> list[str]:
    sections, cur, i = [], [], 0
    while i < len(fmt):
        c = fmt[i]
        if c == "\\" and i + 1 < len(fmt):
            cur.append(fmt[i:i + 2])
            i += 2
            continue
        if c in "'\"":
            j = fmt.find(c, i + 1)
            j = len(fmt) if j < 0 else j
            cur.append(fmt[i:j + 1])
            i = j + 1
            continue
        if c == ";":
            sections.append("".join(cur))
            cur = []
        else:
            cur.append(c)
        i += 1
    sections.append("".join(cur))
    return sections


def _custom_number(value: Any, fmt: str, cul: Culture) -> str:
    sections = _split_sections(fmt)
    neg_value = value < 0
    section = sections[0]
    explicit_sign = False
    if neg_value and len(sections) > 1 and sections[1]:
        section, explicit_sign = sections[1], True
    elif value == 0 and len(sections) > 2 and sections[2]:
        section = sections[2]
    # literal parts and the number pattern
    tokens: list[tuple[str, str]] = []
    i = 0
    while i < len(section):
        c = section[i]
        if c == "\\" and i + 1 < len(section):
            tokens.append(("lit", section[i + 1]))
            i += 2
        elif c in "'\"":
            j = section.find(c, i + 1)
            j = len(section) if j < 0 else j
            tokens.append(("lit", section[i + 1:j]))
            i = j + 1
        elif c in "0#.,":
            tokens.append(("pat", c))
            i += 1
        elif c in "%\u2030":
            tokens.append(("pct", c))
            i += 1
        else:
            tokens.append(("lit", c))
            i += 1
    pattern = "".join(t for k, t in tokens if k == "pat")
    if not pattern:
        return "".join(t for _k, t in tokens)
    scale = 1
    for k, t in tokens:
        if k == "pct":
            scale *= 100 if t == "%" else 1000
    ip_pat, _, fp_pat = pattern.partition(".")
    # trailing commas before the point divide by 1000 each
    while ip_pat.endswith(","):
        ip_pat = ip_pat[:-1]
        scale = scale / 1000 if isinstance(scale, float) else Decimal(scale) / 1000
    grouping = "," in ip_pat
    ip_pat = ip_pat.replace(",", "")
    fp_pat = fp_pat.replace(",", "")
    v = Decimal(repr(value)) if isinstance(value, float) else Decimal(value)
    v = abs(v * Decimal(scale))
    places = len(fp_pat)
    _neg, ip, fp = _fixed(v, places)
    min_int = ip_pat.count("0")
    if ip == "0" and min_int == 0:
        ip = ""
    ip = ip.rjust(min_int, "0")
    if grouping and ip:
        ip = _group(ip, cul)
    # fraction: '0' places are kept, trailing '#' places drop zeros
    required = len(fp_pat.rstrip("#"))
    while len(fp) > required and fp.endswith("0"):
        fp = fp[:-1]
    number = ip + (cul.decimal + fp if fp else "")
    if _interleaved(tokens):
        return _placed_digits(tokens, ip, fp, cul, neg_value and not explicit_sign and any(
            ch not in "0" for ch in ip + fp))
    out: list[str] = []
    placed = False
    for k, t in tokens:
        if k == "pat":
            if not placed:
                out.append(number)
                placed = True
        elif k == "pct":
            out.append(t)
        else:
            out.append(t)
    text = "".join(out)
    is_zero = not any(ch.isdigit() and ch != "0" for ch in number)
    if neg_value and not explicit_sign and not is_zero:
        text = "-" + text
    return text


def _interleaved(tokens: list[tuple[str, str]]) -> bool:
    """Whether literal text stands between the digit placeholders ('###-##-####')."""
    kinds = [k for k, _t in tokens]
    first = kinds.index("pat")
    last = len(kinds) - 1 - kinds[::-1].index("pat")
    return any(k != "pat" for k in kinds[first:last + 1])


def _placed_digits(tokens: list[tuple[str, str]], ip: str, fp: str, cul: Culture,
                   negative: bool) -> str:
    """A custom pattern whose placeholders literals interleave, as .NET fills it: the
    integer digits from the right, one per placeholder before the point (the leftmost
    takes any extra digits), the fraction digits from the left after it."""
    point = next((i for i, (k, t) in enumerate(tokens) if k == "pat" and t == "."),
                 len(tokens))
    int_slots = [i for i, (k, t) in enumerate(tokens[:point]) if k == "pat" and t in "0#"]
    frac_slots = [i for i, (k, t) in enumerate(tokens) if i > point and k == "pat"
                  and t in "0#"]
    ip = "" if ip.strip("0") == "" and not any(tokens[i][1] == "0" for i in int_slots) else ip
    filled: dict[int, str] = {}
    digits = ip
    for n, i in enumerate(reversed(int_slots)):
        if n == len(int_slots) - 1:
            filled[i] = digits.rjust(1, "0") if tokens[i][1] == "0" else digits
        else:
            filled[i] = digits[-1:] if digits else ("0" if tokens[i][1] == "0" else "")
            digits = digits[:-1]
    for n, i in enumerate(frac_slots):
        filled[i] = fp[n] if n < len(fp) else ""
    out = []
    for i, (k, t) in enumerate(tokens):
        if i in filled:
            out.append(filled[i])
        elif k == "pat" and t == ".":
            out.append(cul.decimal if fp else "")
        elif k != "pat":
            out.append(t)
    return ("-" if negative else "") + "".join(out)


# -------------------------------------------------------------------------------------- dates
_DATE_TOKEN = re.compile(
    r"yyyy+|yy|y|MMMM+|MMM|MM|M|dddd+|ddd|dd|d|HH|H|hh|h|mm|m|ss|s|f{1,7}|F{1,7}|tt|t|"
    r"zzz|zz|z|K|gg|g|'[^']*'|\"[^\"]*\"|\\.|.", re.DOTALL)


def _genitive(tokens: list[str], at: int) -> bool:
    """.NET writes MMMM / MMM in the genitive next to a day number: the nearest run of 'd'
    before or after the month is 'd' or 'dd' ('d MMMM yyyy', not 'dddd MMMM')."""
    for run in (reversed(tokens[:at]), tokens[at + 1:]):
        for tok in run:
            if tok[0] == "d" and not tok.startswith("'"):
                if len(tok) <= 2:
                    return True
                break
    return False


# TimeSpan's custom specifiers and the most of each a format may repeat.
_SPAN_WIDTHS = {"d": 8, "h": 2, "m": 2, "s": 2, "f": 7, "F": 7}


def _format_timespan(value: time, fmt: str, cul: Culture) -> str:
    """A time as .NET formats the TimeSpan SQL Server passes for it: the standard formats
    c (t, T), g and G; custom ones of d h m s f F only, any other character escaped
    (``hh\\:mm``) or quoted, else the format is invalid (``hh:mm`` is NULL)."""
    frac = f"{value.microsecond:06d}0"
    hms = f"{value.hour:02d}:{value.minute:02d}:{value.second:02d}"
    if len(fmt) == 1:
        if fmt in "ctT":
            return hms + ("." + frac if value.microsecond else "")
        if fmt == "g":
            short = frac.rstrip("0")
            return f"{value.hour}:{value.minute:02d}:{value.second:02d}" + (
                cul.decimal + short if short else "")
        if fmt == "G":
            return f"0:{hms}{cul.decimal}{frac}"
        raise _Invalid
    parts = {"d": 0, "h": value.hour, "m": value.minute, "s": value.second}
    out: list[str] = []
    i = 0
    while i < len(fmt):
        c = fmt[i]
        if c == "%" and i + 1 < len(fmt) and fmt[i + 1] in _SPAN_WIDTHS:
            i += 1
            continue
        if c == "\\":
            if i + 1 >= len(fmt):
                raise _Invalid
            out.append(fmt[i + 1])
            i += 2
            continue
        if c in "'\"":
            j = fmt.find(c, i + 1)
            if j < 0:
                raise _Invalid
            out.append(fmt[i + 1:j])
            i = j + 1
            continue
        if c not in _SPAN_WIDTHS:
            raise _Invalid
        n = 1
        while i + n < len(fmt) and fmt[i + n] == c:
            n += 1
        if n > _SPAN_WIDTHS[c]:
            raise _Invalid
        if c == "f":
            out.append(frac[:n])
        elif c == "F":
            out.append(frac[:n].rstrip("0"))
        else:
            out.append(str(parts[c]).rjust(n, "0"))
        i += n
    return "".join(out)


def _format_date(value: Any, fmt: str, cul: Culture) -> str:
    if isinstance(value, datetime):
        d = value
    else:
        d = datetime(value.year, value.month, value.day)
    if len(fmt) == 1:
        std = {
            "d": cul.short_date, "D": cul.long_date, "t": cul.short_time, "T": cul.long_time,
            "f": f"{cul.long_date} {cul.short_time}", "F": f"{cul.long_date} {cul.long_time}",
            "g": f"{cul.short_date} {cul.short_time}", "G": f"{cul.short_date} {cul.long_time}",
            "M": cul.month_day, "m": cul.month_day, "Y": cul.year_month, "y": cul.year_month,
            "s": "yyyy'-'MM'-'dd'T'HH':'mm':'ss", "u": "yyyy'-'MM'-'dd HH':'mm':'ss'Z'",
            "o": "yyyy'-'MM'-'dd'T'HH':'mm':'ss'.'fffffffK",
            "O": "yyyy'-'MM'-'dd'T'HH':'mm':'ss'.'fffffffK",
        }.get(fmt)
        if std is None:
            raise _Invalid
        fmt = std
    out: list[str] = []
    tokens = _DATE_TOKEN.findall(fmt)
    for at, tok in enumerate(tokens):
        c = tok[0]
        if tok.startswith(("'", '"')):
            out.append(tok[1:-1])
        elif c == "\\":
            out.append(tok[1:])
        elif c == "y":
            out.append(f"{d.year % 100:02d}" if len(tok) == 2 else
                       str(d.year % 100) if len(tok) == 1 else f"{d.year:0{len(tok)}d}")
        elif c == "M":
            n = len(tok)
            if n >= 3:
                full = n >= 4
                names = cul.months if full else cul.month_abbr
                genitive = cul.months_genitive if full else cul.month_abbr_genitive
                if genitive and _genitive(tokens, at):
                    names = genitive
                out.append(names[d.month - 1])
            else:
                out.append(f"{d.month:02d}" if n == 2 else str(d.month))
        elif c == "d":
            n = len(tok)
            out.append(cul.days[d.weekday()] if n >= 4 else cul.day_abbr[d.weekday()] if n == 3
                       else f"{d.day:02d}" if n == 2 else str(d.day))
        elif c == "H":
            out.append(f"{d.hour:02d}" if len(tok) == 2 else str(d.hour))
        elif c == "h":
            h = d.hour % 12 or 12
            out.append(f"{h:02d}" if len(tok) == 2 else str(h))
        elif c == "m":
            out.append(f"{d.minute:02d}" if len(tok) == 2 else str(d.minute))
        elif c == "s":
            out.append(f"{d.second:02d}" if len(tok) == 2 else str(d.second))
        elif c in "fF":
            digits = f"{d.microsecond:06d}0"[:len(tok)]
            out.append(digits if c == "f" else digits.rstrip("0"))
        elif c == "t":
            mark = cul.am if d.hour < 12 else cul.pm
            out.append(mark if len(tok) == 2 else mark[:1])
        elif c in "zK":
            off = d.utcoffset() if d.tzinfo else None
            if off is None:
                out.append("" if c == "K" else "+00:00" if tok == "zzz" else "+00")
            else:
                mins = int(off / timedelta(minutes=1))
                sign = "-" if mins < 0 else "+"
                mins = abs(mins)
                if tok in ("zzz", "K"):
                    out.append(f"{sign}{mins // 60:02d}:{mins % 60:02d}")
                else:
                    out.append(f"{sign}{mins // 60:02d}" if tok == "zz" else
                               f"{sign}{mins // 60}")
        elif c == "g":
            out.append("A.D.")
        elif c == "/":
            out.append(cul.date_sep)
        elif c == ":":
            out.append(cul.time_sep)
        else:
            out.append(tok)
    return "".join(out)


# --------------------------------------------------------------------------------------- STR
def str_function(value: Any, length: int = 10, decimals: int = 0) -> str | None:
    """STR(float[, length[, decimals]]): right-aligned, rounded; '*'s when it does not fit."""
    if value is None or length is None or decimals is None:
        return None
    if length <= 0 or length > 8000 or decimals < 0:
        return None
    decimals = min(decimals, 16)
    d = Decimal(repr(float(value)))
    q = d.quantize(Decimal(1).scaleb(-decimals), rounding=ROUND_HALF_UP, context=EXACT)
    text = f"{q:f}"
    if len(text) > length:
        # fewer decimals first, then give up
        int_text = f"{d.quantize(Decimal(1), rounding=ROUND_HALF_UP, context=EXACT):f}"
        if len(int_text) > length:
            return "*" * length
        room = length - len(int_text) - 1
        if room > 0:
            q = d.quantize(Decimal(1).scaleb(-room), rounding=ROUND_HALF_UP, context=EXACT)
            text = f"{q:f}"
        else:
            text = int_text
    return text.rjust(length)


__all__ = ["display_text", "format_value", "real_text", "str_function"]


# ------------------------------------------------------------------------- result display
def real_text(v: float) -> str:
    """The shortest text that reads back as the same single-precision value (0.1, not
    0.10000000149011612)."""
    target = struct.pack("<f", v)
    for digits in range(1, 10):
        text = f"{v:.{digits}g}"
        if struct.pack("<f", float(text)) == target:
            return _plain_float(text)
    return _plain_float(repr(v))


def _plain_float(text: str) -> str:
    if "e" in text or "E" in text:
        mant, _, exp = text.lower().partition("e")
        return f"{mant}E{int(exp):+d}"
    return text.removesuffix(".0")


def display_text(value: Any, spec: Any = None) -> str:
    """A result value as SQL Server's tools show it, given its type (a SqlType or spec string;
    None when unknown): datetime2/time/datetimeoffset with their own fraction digits, money
    with four decimals, float as the shortest exact text, real at single precision."""
    if value is None:
        return "NULL"
    t = spec if isinstance(spec, SqlType) or spec is None else parse_type_spec(str(spec))
    name = t.name if t is not None else None
    if isinstance(value, bool):
        return "1" if value else "0"
    if isinstance(value, (bytes, bytearray)):
        return "0x" + bytes(value).hex().upper()
    if isinstance(value, float):
        if name == "real":
            return real_text(value)
        return _plain_float(repr(value))
    if isinstance(value, Decimal):
        if name in ("money", "smallmoney"):
            return money_text(value, 2)
        return f"{value:f}"
    if isinstance(value, (datetime, date, time)):
        if name in ("date", "time", "datetime2", "datetimeoffset", "datetime",
                    "smalldatetime"):
            if name in ("datetime", "smalldatetime"):
                return value.strftime("%Y-%m-%d %H:%M:%S.%f")[:-3]
            return default_text(value, name, t.scale if t is not None else None)
        if isinstance(value, datetime):
            if value.tzinfo is not None:
                return default_text(value, "datetimeoffset", 7)
            return value.strftime("%Y-%m-%d %H:%M:%S.%f")[:-3]
        if isinstance(value, date):
            return value.isoformat()
        return default_text(value, "time", 7)
    if hasattr(value, "to_string"):
        return str(value.to_string())
    if type(value).__name__ == "UUID":
        return str(value).upper()
    return str(value)
