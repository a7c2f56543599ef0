"""PARSE and TRY_PARSE: a string read as a number or a date/time the way the .NET parsers SQL
Server calls read it in a culture (``PARSE('€345,98' AS money USING 'de-DE')``).

Numbers follow the styles PARSE's page lists: ``NumberStyles.Number`` for the integer and
decimal types (signs before or after, group separators, a decimal separator: an integer's
fraction must be zeros), ``Float`` for float and real (an exponent, no group separators),
``Currency`` for money (the currency symbol, parentheses for a negative value). Dates and
times are read as ``DateTime.Parse`` reads them: day and month names of the culture, the
culture's order of a numeric date (month-day-year in en-US and the invariant culture,
day-month-year in en-GB or de-DE, year-month-day in ja-JP or when the year comes first with
four digits), the words of its long date pattern ('de' in es-ES, 'г.' in ru-RU, 年 月 日), a
time with AM/PM, an offset (``Z``, ``+01:00``). Cultures: the table of values/cultures.py
(en-US, the session's us_english, by default); others are Msg 9818 (docs/decisions.md).
"""

from __future__ import annotations

import re
from datetime import UTC, date, datetime, timedelta, timezone
from decimal import Decimal, InvalidOperation
from typing import Any

from ..errors import BindError, TSqlError, tsql_error
from .convert import CONVERSION_ERRORS, converter
from .cultures import NBSP, NNBSP, Culture
from .cultures import culture as culture_named
from .dates import from_datetime
from .types import SqlType, decimal_type

__all__ = ["PARSE_TYPES", "check_parse_arguments", "parse_value"]

_INTEGERS = {"bigint": 2**63, "int": 2**31, "smallint": 2**15, "tinyint": 0}
# The target types PARSE's page lists, by the .NET style that reads them.
PARSE_TYPES = {**{n: "number" for n in ("bigint", "int", "smallint", "tinyint", "decimal",
                                         "numeric")},
               "float": "float", "real": "float", "money": "currency",
               "smallmoney": "currency",
               **{n: "date" for n in ("date", "time", "datetime", "smalldatetime",
                                      "datetime2", "datetimeoffset")}}
_WHITE = " \t\n\v\f\r"


_TIME = re.compile(
    r"(?<![\d.:])(\d{1,2}):(\d{1,2})(?::(\d{1,2})(?:[.,](\d{1,7}))?)?(?![\d:])")
_OFFSET = re.compile(r"^\s*(?:Z|GMT|([+-])(\d{1,2})(?::?(\d{2}))?)(?![\w:])")
_ISO = re.compile(r"^(\d{4})-(\d{1,2})-(\d{1,2})T")
_WORD = re.compile(r"[^\W\d_]+\.?")
_NUMBER = re.compile(r"\d+")


def parse_value(text: Any, target: SqlType, culture: str | None = None, *,
                try_: bool = False) -> Any:
    """``PARSE(text AS target [USING culture])`` (``try_``: TRY_PARSE, NULL where the text
    does not read as the type). NULL text gives NULL; an unsupported culture is Msg 9818
    also for TRY_PARSE; the value read becomes the target type as CAST would make it."""
    if text is None:
        return None
    cul = culture_named(culture)
    kind = PARSE_TYPES[target.name]
    try:
        return _parse(str(text), target, cul, kind)
    except TSqlError as e:
        if try_ and e.number in CONVERSION_ERRORS:
            return None
        raise
    except _Unreadable:
        if try_:
            return None
        raise tsql_error(9819, str(text), target.name, culture or "") from None


def check_parse_arguments(source: SqlType, target: SqlType, function: str) -> None:
    """PARSE's compile-time rules: the value must be a string (a NULL constant included:
    Msg 8116), the target a number or date/time type (Msg 10761). ``function``: PARSE or
    TRY_PARSE."""
    if not source.is_string or source.name in ("text", "ntext"):
        name = "NULL" if source.is_null else source.name
        raise tsql_error(8116, name, 1, function.lower(), cls=BindError)
    if target.name not in PARSE_TYPES:
        raise tsql_error(10761, target.name, function.upper(), cls=BindError)


class _Unreadable(Exception):
    """The text does not read as the type in the culture (Msg 9819 / NULL)."""


def _parse(text: str, target: SqlType, cul: Culture, kind: str) -> Any:
    if kind == "date":
        value, tz = _read_datetime(text, cul)
        return from_datetime(value, tz, target.name, target.scale, "nvarchar")
    number = _read_number(text, cul, kind)
    name = target.name
    if name in _INTEGERS:
        if number != number.to_integral_value():
            raise _Unreadable  # Int32.Parse refuses a fraction that is not zeros
        bound = _INTEGERS[name]
        if not (-bound <= number < bound if bound else 0 <= number < 256):
            raise _Unreadable  # .NET's overflow, before SQL Server sees a value
        return int(number)
    if name in ("float", "real"):
        source = SqlType("float")
        value: Any = float(number)
    else:
        exponent = number.as_tuple().exponent
        scale = min(-exponent, 38) if isinstance(exponent, int) and exponent < 0 else 0
        source, value = decimal_type(38, scale), number
    return converter(source, target)(value)


# ---- numbers
def _read_number(text: str, cul: Culture, kind: str) -> Decimal:
    s = text.strip(_WHITE)
    negative = False
    if kind == "currency" and s.startswith("(") and s.endswith(")"):
        negative, s = True, s[1:-1].strip(_WHITE)
    symbols = (cul.currency, *cul.currency_extra) if kind == "currency" else ()
    sign_seen = False
    for _round in range(3):  # a sign and a currency symbol on either side, in any order
        for sym in symbols:
            if sym and s.startswith(sym):
                s = s[len(sym):].lstrip(_WHITE)
            if sym and s.endswith(sym):
                s = s[:-len(sym)].rstrip(_WHITE)
        if not sign_seen and s[:1] in ("+", "-"):
            sign_seen, negative = True, negative != (s[0] == "-")
            s = s[1:].lstrip(_WHITE)
        if not sign_seen and kind != "float" and s[-1:] in ("+", "-"):
            sign_seen, negative = True, negative != (s[-1] == "-")
            s = s[:-1].rstrip(_WHITE)
    groups = "" if kind == "float" else re.escape(cul.group) + (
        " \u00a0\u202f" if cul.group in (NNBSP, NBSP) else "")
    digits = rf"\d[\d{groups}]*" if groups else r"\d+"
    exponent = r"(?:[eE][+-]?\d+)?" if kind == "float" else ""
    pattern = rf"(?:{digits})?(?:{re.escape(cul.decimal)}\d*)?{exponent}"
    if not s or not re.fullmatch(pattern, s) or not any(c.isdigit() for c in s):
        raise _Unreadable
    plain = s
    for g in groups.replace("\\", ""):
        plain = plain.replace(g, "")
    plain = plain.replace(cul.decimal, ".")
    try:
        number = Decimal(plain)
    except InvalidOperation:
        raise _Unreadable from None
    return -number if negative else number


# ---- dates and times
def _read_datetime(text: str, cul: Culture) -> tuple[datetime, timezone | None]:
    s = text.strip(_WHITE)
    if not s:
        raise _Unreadable
    iso = _ISO.match(s)
    if iso:
        s = f"{iso.group(1)}-{iso.group(2)}-{iso.group(3)} " + s[iso.end():]
    hour = minute = second = micro = 0
    clock = _TIME.search(s)
    tz: timezone | None = None
    if clock:
        hour, minute = int(clock.group(1)), int(clock.group(2))
        second = int(clock.group(3) or 0)
        micro = int((clock.group(4) or "0").ljust(6, "0")[:6])
        after, tz = _offset(s[clock.end():])
        s = s[:clock.start()] + " " + after
    elif s.endswith("Z") and s[-2:-1].isdigit():
        s, tz = s[:-1], UTC
    s, half = _designator(s, cul)
    if half is not None:
        if clock is None or not 1 <= hour <= 12:
            raise _Unreadable
        hour = hour % 12 + (12 if half == "pm" else 0)
    if hour > 23 or minute > 59 or second > 59:
        raise _Unreadable
    day_of_week, month_word, s = _names_in(s, cul)
    numbers = [m.group() for m in _NUMBER.finditer(s)]
    if re.sub(r"[\d\s/.,\-]", "", s):
        raise _Unreadable  # a word the culture does not know
    when = _date_of(numbers, month_word, cul.order, bool(clock))
    if day_of_week is not None and when.weekday() != day_of_week:
        raise _Unreadable  # .NET checks a day name against the date
    return datetime(when.year, when.month, when.day, hour, minute, second, micro), tz


def _offset(s: str) -> tuple[str, timezone | None]:
    """An offset written right after the time (``Z``, ``+01:00``, ``-0500``), taken out."""
    m = _OFFSET.match(s)
    if m is None:
        return s, None
    if m.group(1) is None:
        return s[m.end():], UTC
    hours, minutes = int(m.group(2)), int(m.group(3) or 0)
    if hours > 14 or minutes > 59:
        raise _Unreadable
    delta = timedelta(hours=hours, minutes=minutes)
    return s[m.end():], timezone(-delta if m.group(1) == "-" else delta)


def _designator(s: str, cul: Culture) -> tuple[str, str | None]:
    low = s.lower()
    for half, mark in (("am", cul.am), ("pm", cul.pm)):
        for word in dict.fromkeys((mark.lower(), half)):  # the culture's, and AM / PM
            i = low.find(word) if word else -1
            if i >= 0 and (_ideographic(word) or _alone(low, i, len(word))):
                return s[:i] + " " + s[i + len(word):], half
    return s, None


def _ideographic(word: str) -> bool:
    """A CJK word: found inside the text, with no spaces around it (2010年5月4日 午前)."""
    return word[:1] >= "\u2e80"


def _alone(s: str, i: int, n: int) -> bool:
    return (i == 0 or not s[i - 1].isalpha()) and (i + n == len(s) or not s[i + n].isalpha())


def _date_words(cul: Culture) -> frozenset[str]:
    """The literal words of the culture's date patterns, which DateTime.Parse skips ('de' of
    es-ES's 'd' de 'MMMM' de 'yyyy', 'г.' of ru-RU's, 年 月 日)."""
    patterns = (cul.long_date, cul.short_date, cul.month_day, cul.year_month)
    return frozenset(w.rstrip(".").lower() for p in patterns
                     for lit in re.findall(r"'([^']*)'", p) for w in lit.split() if w.strip("."))


def _names_in(s: str, cul: Culture) -> tuple[int | None, int | None, str]:
    """The day name (0 = Monday) and month (1-12) written in ``s``, and ``s`` without them."""
    day = month = None
    for i, word in enumerate(cul.days):  # ja-JP's day names hold 月 and 日; pt's a hyphen
        at = s.lower().find(word.lower())
        if at >= 0 and (_ideographic(word) or ("-" in word and _alone(s, at, len(word)))):
            day, s = i, s[:at] + " " + s[at + len(word):]
            break
    skip = _date_words(cul)
    out = []
    last = 0
    for m in _WORD.finditer(s):
        word = m.group().rstrip(".").lower()
        if word not in skip:
            found = _lookup(word, cul.months, cul.month_abbr, cul.months_genitive,
                            cul.month_abbr_genitive)
            if found is not None and month is None:
                month = found
            else:
                found_day = _lookup(word, cul.days, cul.day_abbr)
                if found_day is None or day is not None:
                    continue  # left in the text: not a name of this culture
                day = found_day - 1
        out.append(s[last:m.start()] + " ")
        last = m.end()
    out.append(s[last:])
    return day, month, "".join(out)


def _lookup(word: str, *lists: tuple[str, ...]) -> int | None:
    for names in lists:
        for i, name in enumerate(names):
            if name.rstrip(".").lower() == word:
                return i + 1
    return None


def _year(text: str) -> int:
    n = int(text)
    if len(text) <= 2:
        return 2000 + n if n <= 29 else 1900 + n  # .NET's TwoDigitYearMax, 2029
    return n


def _date_of(numbers: list[str], month: int | None, order: str, has_time: bool) -> date:
    today = date.today()
    try:
        if month is not None:
            if len(numbers) == 1:
                n = numbers[0]
                return date(_year(n), month, 1) if len(n) > 2 or int(n) > 31 else date(
                    today.year, month, int(n))
            if len(numbers) == 2:
                a, b = numbers
                if len(a) > 2 or (int(a) > 31 and len(b) <= 2):
                    a, b = b, a
                return date(_year(b), month, int(a))
            raise _Unreadable
        if not numbers:
            if has_time:
                return today
            raise _Unreadable
        if len(numbers[0]) > 2:
            order = "ymd"
        elif order == "ymd" and len(numbers) == 3 and len(numbers[2]) > 2:
            order = "mdy"  # a year of 3+ digits is the year wherever it stands
        if len(numbers) == 3:
            parts = dict(zip(order, numbers, strict=True))
            return date(_year(parts["y"]), int(parts["m"]), int(parts["d"]))
        if len(numbers) == 2:
            a, b = numbers
            if len(a) > 2:
                return date(_year(a), int(b), 1)
            if len(b) > 2:
                return date(_year(b), int(a), 1)
            month_first = order in ("mdy", "ymd")
            m, d = (a, b) if month_first else (b, a)
            return date(today.year, int(m), int(d))
    except ValueError:
        raise _Unreadable from None
    raise _Unreadable
