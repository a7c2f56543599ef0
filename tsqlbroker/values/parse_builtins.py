"""PARSE and TRY_PARSE: a string read as a number or a date/time the way the .NET parsers SQL
Server calls read it in a culture (``PARSE('€345,98' AS money USING 'de-DE')``).

Numbers follow the styles PARSE's page lists: ``NumberStyles.Number`` for the integer and
decimal types (signs before or after, group separators, a decimal separator: an integer's
fraction must be zeros), ``Float`` for float and real (an exponent, no group separators),
``Currency`` for money (the currency symbol, parentheses for a negative value). Dates and
times are read as ``DateTime.Parse`` reads them: day and month names of the culture, the
culture's order of a numeric date (month-day-year in en-US and the invariant culture,
day-month-year in en-GB, de-DE and fr-FR, year-month-day in ja-JP or when the year comes
first with four digits), a time with AM/PM, an offset (``Z``, ``+01:00``). Cultures: en-US
(the session's, us_english), en-GB, de-DE, fr-FR, ja-JP and the invariant culture; others
are Msg 9818 (docs/decisions.md).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta, timezone
from decimal import Decimal, InvalidOperation
from typing import Any

from ..errors import BindError, TSqlError, tsql_error
from .convert import CONVERSION_ERRORS, converter
from .dates import DAYS, MONTHS, from_datetime
from .format_builtins import CULTURES, Culture
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


@dataclass(frozen=True)
class _DateNames:
    """What DateTime.Parse knows of a culture: its names and its numeric date order."""

    order: str  # 'mdy', 'dmy' or 'ymd'
    months: tuple[str, ...]
    month_abbr: tuple[str, ...]
    days: tuple[str, ...]
    day_abbr: tuple[str, ...]
    am: tuple[str, ...] = ("am",)
    pm: tuple[str, ...] = ("pm",)


_ENGLISH = _DateNames("mdy", MONTHS, tuple(m[:3] for m in MONTHS), DAYS,
                      tuple(d[:3] for d in DAYS))
_DATE_NAMES = {
    "en-us": _ENGLISH,
    "": _ENGLISH,
    "en-gb": _DateNames("dmy", MONTHS, tuple(m[:3] for m in MONTHS), DAYS,
                        tuple(d[:3] for d in DAYS)),
    "de-de": _DateNames(
        "dmy", ("Januar", "Februar", "März", "April", "Mai", "Juni", "Juli", "August",
                "September", "Oktober", "November", "Dezember"),
        ("Jan", "Feb", "Mär", "Apr", "Mai", "Jun", "Jul", "Aug", "Sep", "Okt", "Nov", "Dez"),
        ("Montag", "Dienstag", "Mittwoch", "Donnerstag", "Freitag", "Samstag", "Sonntag"),
        ("Mo", "Di", "Mi", "Do", "Fr", "Sa", "So")),
    "fr-fr": _DateNames(
        "dmy", ("janvier", "février", "mars", "avril", "mai", "juin", "juillet", "août",
                "septembre", "octobre", "novembre", "décembre"),
        ("janv", "févr", "mars", "avr", "mai", "juin", "juil", "août", "sept", "oct", "nov",
         "déc"),
        ("lundi", "mardi", "mercredi", "jeudi", "vendredi", "samedi", "dimanche"),
        ("lun", "mar", "mer", "jeu", "ven", "sam", "dim")),
    "ja-jp": _DateNames("ymd", (), (), ("月曜日", "火曜日", "水曜日", "木曜日", "金曜日", "土曜日",
                                        "日曜日"), (), ("午前", "am"), ("午後", "pm")),
}
_ALIASES = {"en": "en-us", "de": "de-de", "fr": "fr-fr", "ja": "ja-jp", "invariant": ""}
_JA_NUMBERS = Culture(",", ".", "¥", "$n", "-$n", "n%", "yyyy/MM/dd", "yyyy/MM/dd", "H:mm",
                      "H:mm:ss", "M/d", "yyyy/M")
_CURRENCY_EXTRA = {"ja-jp": ("￥",), "": ("$",)}

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
    key = _culture_key(culture)
    kind = PARSE_TYPES[target.name]
    try:
        return _parse(str(text), target, key, kind)
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


def _culture_key(name: str | None) -> str:
    key = "en-us" if name is None else name.strip().lower()
    key = _ALIASES.get(key, key)
    if key not in _DATE_NAMES:
        raise tsql_error(9818, name)
    return key


def _parse(text: str, target: SqlType, key: str, kind: str) -> Any:
    if kind == "date":
        value, tz = _read_datetime(text, key)
        return from_datetime(value, tz, target.name, target.scale, "nvarchar")
    number = _read_number(text, key, kind)
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
def _number_culture(key: str) -> Culture:
    return _JA_NUMBERS if key == "ja-jp" else CULTURES[key]


def _read_number(text: str, key: str, kind: str) -> Decimal:
    cul = _number_culture(key)
    s = text.strip(_WHITE)
    negative = False
    if kind == "currency" and s.startswith("(") and s.endswith(")"):
        negative, s = True, s[1:-1].strip(_WHITE)
    symbols = (cul.currency, *_CURRENCY_EXTRA.get(key, ())) if kind == "currency" else ()
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
        " \u00a0\u202f" if cul.group in ("\u202f", "\u00a0") else "")
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
def _read_datetime(text: str, key: str) -> tuple[datetime, timezone | None]:
    names = _DATE_NAMES[key]
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
    s, half = _designator(s, names)
    if half is not None:
        if clock is None or not 1 <= hour <= 12:
            raise _Unreadable
        hour = hour % 12 + (12 if half == "pm" else 0)
    if hour > 23 or minute > 59 or second > 59:
        raise _Unreadable
    day_of_week, month_word, s = _names_in(s, names)
    numbers = [m.group() for m in _NUMBER.finditer(s)]
    if re.sub(r"[\d\s/.,\-年月日]", "", s):
        raise _Unreadable  # a word the culture does not know
    when = _date_of(numbers, month_word, names.order, bool(clock))
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


def _designator(s: str, names: _DateNames) -> tuple[str, str | None]:
    low = s.lower()
    for half, words in (("am", names.am), ("pm", names.pm)):
        for word in words:
            i = low.find(word)
            if i >= 0 and (not word.isascii() or _alone(low, i, len(word))):
                return s[:i] + " " + s[i + len(word):], half
    return s, None


def _alone(s: str, i: int, n: int) -> bool:
    return (i == 0 or not s[i - 1].isalpha()) and (i + n == len(s) or not s[i + n].isalpha())


def _names_in(s: str, names: _DateNames) -> tuple[int | None, int | None, str]:
    """The day name (0 = Monday) and month (1-12) written in ``s``, and ``s`` without them."""
    day = month = None
    for i, word in enumerate(names.days):  # ja-JP's day names hold 月 and 日
        at = s.find(word)
        if at >= 0 and not word.isascii():
            day, s = i, s[:at] + " " + s[at + len(word):]
    out = []
    last = 0
    for m in _WORD.finditer(s):
        word = m.group().rstrip(".").lower()
        if word in ("年", "月", "日"):
            continue
        found = _lookup(word, names.months, names.month_abbr)
        if found is not None and month is None:
            month = found
        else:
            found_day = _lookup(word, names.days, names.day_abbr)
            if found_day is None or day is not None:
                continue  # left in the text: not a name of this culture
            day = found_day - 1
        out.append(s[last:m.start()] + " ")
        last = m.end()
    out.append(s[last:])
    return day, month, "".join(out)


def _lookup(word: str, full: tuple[str, ...], abbr: tuple[str, ...]) -> int | None:
    for names in (full, abbr):
        for i, name in enumerate(names):
            if name.lower() == word:
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
