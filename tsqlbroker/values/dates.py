"""Date and time values: parsing strings, CONVERT styles, rounding, DATEADD/DATEDIFF/DATEPART.

Values are Python ``date`` (date), ``time`` (time), naive ``datetime`` (datetime, datetime2,
smalldatetime) and aware ``datetime`` (datetimeoffset). The session setting DATEFORMAT mdy
(us_english) is assumed, as a default SQL Server login has it; DATEFIRST is an argument of
:func:`datepart` (7, Sunday, unless the session SET another).
"""

from __future__ import annotations

import calendar
import re
from datetime import UTC, date, datetime, time, timedelta, timezone
from typing import Any

from tsqlbroker.errors import TSqlError, tsql_error

EPOCH = datetime(1900, 1, 1)
SMALLDATETIME_MIN, SMALLDATETIME_MAX = EPOCH, datetime(2079, 6, 6, 23, 59)
MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August",
          "September", "October", "November", "December")
DAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")
_MONTH_ABBR = {m[:3].lower(): i + 1 for i, m in enumerate(MONTHS)}
_MONTH_FULL = {m.lower(): i + 1 for i, m in enumerate(MONTHS)}

# Canonical datepart names with every abbreviation SQL Server accepts.
DATEPARTS: dict[str, str] = {}
for _canon, _names in {
    "year": ("year", "yy", "yyyy"), "quarter": ("quarter", "qq", "q"),
    "month": ("month", "mm", "m"), "dayofyear": ("dayofyear", "dy", "y"),
    "day": ("day", "dd", "d"), "week": ("week", "wk", "ww"),
    "weekday": ("weekday", "dw", "w"), "hour": ("hour", "hh"),
    "minute": ("minute", "mi", "n"), "second": ("second", "ss", "s"),
    "millisecond": ("millisecond", "ms"), "microsecond": ("microsecond", "mcs"),
    "nanosecond": ("nanosecond", "ns"), "tzoffset": ("tzoffset", "tz"),
    "iso_week": ("iso_week", "isowk", "isoww"),
}.items():
    for _n in _names:
        DATEPARTS[_n] = _canon
# Functions whose first argument is a datepart keyword (a parser reads it as a column name).
DATEPART_FIRST = frozenset({"datename", "datediff_big", "datepart", "dateadd", "datediff",
                            "datetrunc"})

_TIME_PARTS = frozenset({"hour", "minute", "second", "millisecond", "microsecond",
                         "nanosecond"})
_DATE_PARTS = frozenset({"year", "quarter", "month", "dayofyear", "day", "week", "weekday",
                         "iso_week"})


def datepart_name(text: str, function: str) -> str:
    """Canonical datepart for ``text`` (``'dd'`` → ``'day'``); Msg 155 when unknown."""
    canon = DATEPARTS.get(str(text).strip().lower())
    if canon is None:
        raise tsql_error(155, text, function.lower())
    return canon


def check_datepart(part: str, type_name: str, function: str) -> None:
    """Msg 9810 when ``part`` makes no sense for the date/time type (hour of a date …)."""
    bad = (type_name == "date" and part in _TIME_PARTS) or (
        type_name == "time" and part in _DATE_PARTS) or (
        part == "tzoffset" and type_name not in ("datetimeoffset", "datetime2", "varchar",
                                                 "nvarchar")
        and function.lower() != "datepart")
    if bad:
        raise tsql_error(9810, part, function.lower(), type_name)


# ---------------------------------------------------------------------------------- rounding
def round_datetime(v: datetime) -> datetime:
    """Round to the 1/300 s ticks of the ``datetime`` type (…000, …003, …007)."""
    micro = v.microsecond
    ticks = (micro * 300 + 500_000) // 1_000_000
    base = v.replace(microsecond=0)
    # a tick is 3.333 ms; SQL Server shows it rounded to whole milliseconds
    return base + timedelta(microseconds=((ticks * 10 + 1) // 3) * 1000)


def round_smalldatetime(v: datetime) -> datetime:
    """Round to the minute (29.998 s and up rounds up), as smalldatetime stores."""
    base = v.replace(second=0, microsecond=0)
    if v.second * 1_000_000 + v.microsecond >= 29_999_000:
        base += timedelta(minutes=1)
    return base


def round_fraction(v: Any, scale: int | None) -> Any:
    """Round a datetime/time value's fractional seconds to ``scale`` digits (0..7)."""
    if scale is None or scale >= 6:
        return v
    unit = 10 ** (6 - scale)
    micro = v.microsecond
    rounded = (micro + unit // 2) // unit * unit
    if isinstance(v, time):
        full = datetime.combine(date(1900, 1, 1), v.replace(microsecond=0))
        full += timedelta(microseconds=rounded)
        return full.time().replace(tzinfo=v.tzinfo)
    return v.replace(microsecond=0) + timedelta(microseconds=rounded)


# ----------------------------------------------------------------------------------- parsing
_TIME_RE = r"(\d{1,2}):(\d{1,2})(?::(\d{1,2})(?:[.:](\d{1,9}))?)?\s*([AaPp][Mm])?"
_TZ_RE = r"\s*(Z|[+-]\d{1,2}:\d{2})?"
_ISO = re.compile(
    r"^(\d{4})-(\d{1,2})-(\d{1,2})(?:(?:T|\s+)" + _TIME_RE + r")?" + _TZ_RE + "$")
_COMPACT = re.compile(r"^(\d{4})(\d{2})(\d{2})(?:\s+" + _TIME_RE + r")?" + _TZ_RE + "$")
_NUMERIC = re.compile(
    r"^(\d{1,4})([/.-])(\d{1,2})\2(\d{1,4})(?:\s+" + _TIME_RE + r")?" + _TZ_RE + "$")
_TIME_ONLY = re.compile(r"^" + _TIME_RE + _TZ_RE + "$")
_HOUR_AMPM = re.compile(r"^(\d{1,2})\s*([AaPp][Mm])$")
_ALPHA = re.compile(
    r"^(?:(?P<m1>[A-Za-z]+)\.?\s*(?P<d1>\d{1,2})(?:st|nd|rd|th)?,?\s+(?P<y1>\d{2,4})"
    r"|(?P<d2>\d{1,2})\s*(?P<m2>[A-Za-z]+)\.?,?\s*(?P<y2>\d{2,4})"
    r"|(?P<m3>[A-Za-z]+)\s+(?P<y3>\d{4}))"
    r"(?:\s+" + _TIME_RE + r")?" + _TZ_RE + "$")

_DMY_STYLES = frozenset({3, 103, 4, 104, 5, 105, 13, 113, 131})
_YMD_STYLES = frozenset({2, 102, 11, 111, 12, 112})


class NotADate(Exception):
    """The text is not a date/time: Msg 241."""


class DateOutOfRange(Exception):
    """The text names a date that does not exist or is out of range: Msg 242 for datetime."""


def _year(text: str) -> int:
    y = int(text)
    if len(text) <= 2:  # two-digit year cutoff 2049
        y += 2000 if y < 50 else 1900
    return y


def _month_from_name(name: str) -> int:
    key = name.lower()
    m = _MONTH_FULL.get(key) or _MONTH_ABBR.get(key[:3] if len(key) >= 3 else "")
    if m is None or (len(key) > 3 and key not in _MONTH_FULL):
        raise NotADate
    return m


def _time_parts(g: tuple[Any, ...]) -> tuple[int, int, int, int]:
    hh, mi, ss, frac, ampm = g
    h, m = int(hh), int(mi)
    s = int(ss) if ss else 0
    micro = int((frac + "000000")[:6]) if frac else 0
    if frac and len(frac) > 6 and int(frac[6]) >= 5:
        micro += 1
    if ampm:
        if h > 12:
            raise NotADate
        if ampm.lower() == "pm" and h < 12:
            h += 12
        elif ampm.lower() == "am" and h == 12:
            h = 0
    if h > 23 or m > 59 or s > 59:
        raise NotADate
    return h, m, s, micro


def _tz(text: str | None) -> timezone | None:
    if not text:
        return None
    if text == "Z":
        return UTC
    sign = -1 if text[0] == "-" else 1
    hh, mm = text[1:].split(":")
    if int(hh) > 14 or int(mm) > 59:
        raise NotADate
    return timezone(sign * timedelta(hours=int(hh), minutes=int(mm)))


def parse_datetime(text: str, style: int | None = None) -> tuple[datetime, timezone | None, bool]:
    """Parse T-SQL date/time text into ``(naive datetime, offset or None, has_date)``.

    Raises ``NotADate`` (not a date) or ``DateOutOfRange`` (impossible date) for :func:`parse_to`.
    """
    s = text.strip()
    y = mo = d = None
    tparts: tuple[Any, ...] | None = None
    tz = None
    has_date = True
    if (m := _ISO.match(s)) or (m := _COMPACT.match(s)):
        y, mo, d = int(m[1]), int(m[2]), int(m[3])
        tparts, tz = m.groups()[3:8], m[9]
    elif m := _NUMERIC.match(s):
        a, b, c = m[1], m[3], m[4]
        if len(a) == 4:
            y, mo, d = int(a), int(b), int(c)
        elif style in _DMY_STYLES:
            d, mo, y = int(a), int(b), _year(c)
        elif style in _YMD_STYLES:
            y, mo, d = _year(a), int(b), int(c)
        else:
            mo, d, y = int(a), int(b), _year(c)
        tparts, tz = m.groups()[4:9], m[10]
    elif m := _ALPHA.match(s):
        if m["m1"]:
            mo, d, y = _month_from_name(m["m1"]), int(m["d1"]), _year(m["y1"])
        elif m["m2"]:
            mo, d, y = _month_from_name(m["m2"]), int(m["d2"]), _year(m["y2"])
        else:
            mo, d, y = _month_from_name(m["m3"]), 1, int(m["y3"])
        g = m.groups()
        tparts, tz = g[8:13], g[13]
    elif m := _TIME_ONLY.match(s):
        y, mo, d = 1900, 1, 1
        has_date = False
        tparts, tz = m.groups()[0:5], m[6]
    elif m := _HOUR_AMPM.match(s):
        y, mo, d = 1900, 1, 1
        has_date = False
        tparts = (m[1], "0", None, None, m[2])
    else:
        raise NotADate
    h = mi = sec = micro = 0
    if tparts and tparts[0] is not None:
        h, mi, sec, micro = _time_parts(tuple(tparts))
    if not (1 <= mo <= 12) or d < 1 or y < 1 or y > 9999:
        raise DateOutOfRange
    if d > calendar.monthrange(y, mo)[1]:
        raise DateOutOfRange
    value = datetime(y, mo, d, h, mi, sec) + timedelta(microseconds=micro)
    return value, _tz(tz), has_date


def parse_to(text: str, type_name: str, scale: int | None = None, style: int | None = None,
             src_name: str = "varchar") -> Any:
    """Convert date/time text to the Python value of ``type_name`` (Msg 241 / 242 on failure)."""
    if text.strip() == "" and type_name in ("datetime", "smalldatetime"):
        return EPOCH
    try:
        value, tz, _has_date = parse_datetime(text, style)
    except DateOutOfRange:
        if type_name in ("datetime", "smalldatetime"):
            raise tsql_error(242, src_name, type_name) from None
        raise tsql_error(241) from None
    except (NotADate, ValueError, OverflowError):
        raise tsql_error(241) from None
    return from_datetime(value, tz, type_name, scale, src_name)


def from_datetime(value: datetime, tz: timezone | None, type_name: str, scale: int | None,
                  src_name: str = "varchar") -> Any:
    """Shape a parsed naive datetime (plus offset) into a value of ``type_name``."""
    if type_name == "date":
        return value.date()
    if type_name == "time":
        return round_fraction(value.time(), scale)
    if type_name == "datetimeoffset":
        return round_fraction(value.replace(tzinfo=tz or UTC), scale)
    if tz is not None:  # an offset in text for a type without one: local time is kept
        pass
    if type_name == "datetime":
        if value.year < 1753:
            raise tsql_error(242, src_name, type_name)
        return round_datetime(value)
    if type_name == "smalldatetime":
        if value.year < 1900 or value >= datetime(2079, 6, 6, 23, 59, 29, 999000):
            raise tsql_error(242, src_name, type_name)
        return round_smalldatetime(value)
    return round_fraction(value, scale)


def is_date_text(text: str) -> bool:
    """ISDATE: does ``text`` convert to datetime?"""
    try:
        parse_to(text, "datetime")
    except TSqlError:
        return False
    return text.strip() != ""


# ---------------------------------------------------------------------------------- coercion
def as_datetime(v: Any) -> datetime:
    """Any date/time value as a datetime (time → on 1900-01-01; aware values keep tzinfo)."""
    if isinstance(v, datetime):
        return v
    if isinstance(v, date):
        return datetime(v.year, v.month, v.day)
    if isinstance(v, time):
        return datetime.combine(date(1900, 1, 1), v)
    raise TypeError(v)


# -------------------------------------------------------------------------------- formatting
def _frac(micro: int, digits: int) -> str:
    if digits <= 0:
        return ""
    return "." + f"{micro:06d}0"[:digits]


def _ms(v: datetime | time) -> str:
    return f"{(v.microsecond + 500) // 1000:03d}"


def _ampm12(v: datetime | time) -> tuple[int, str]:
    h = v.hour % 12 or 12
    return h, "AM" if v.hour < 12 else "PM"


def _offset_text(v: datetime) -> str:
    off = v.utcoffset() or timedelta(0)
    mins = int(off.total_seconds() // 60)
    sign = "-" if mins < 0 else "+"
    mins = abs(mins)
    return f"{sign}{mins // 60:02d}:{mins % 60:02d}"


def default_text(v: Any, type_name: str, scale: int | None) -> str:
    """``CAST(v AS varchar)`` for a date/time value of ``type_name`` (style 0)."""
    sc = 7 if scale is None else scale
    if type_name == "date":
        return f"{v.year:04d}-{v.month:02d}-{v.day:02d}"
    if type_name == "time":
        return f"{v.hour:02d}:{v.minute:02d}:{v.second:02d}{_frac(v.microsecond, sc)}"
    if type_name in ("datetime", "smalldatetime"):
        return format_style(v, type_name, 0, scale)
    d = as_datetime(v)
    text = (f"{d.year:04d}-{d.month:02d}-{d.day:02d} {d.hour:02d}:{d.minute:02d}:"
            f"{d.second:02d}{_frac(d.microsecond, sc)}")
    if type_name == "datetimeoffset":
        text += " " + _offset_text(d)
    return text


def format_style(v: Any, type_name: str, style: int, scale: int | None = None) -> str:
    """CONVERT(varchar, v, style) for a date/time value; Msg 281 for an unknown style."""
    if style == 0 and type_name not in ("datetime", "smalldatetime"):
        return default_text(v, type_name, scale)
    d = as_datetime(v)
    base = style % 100 if style < 100 or style in range(100, 115) else style
    century = style >= 100 or style in (20, 21, 23, 24, 25, 0, 9, 13, 14)
    yy = f"{d.year:04d}" if century else f"{d.year % 100:02d}"
    mm, dd, mon = f"{d.month:02d}", f"{d.day:02d}", MONTHS[d.month - 1][:3]
    h12, ampm = _ampm12(d)
    has_date = type_name != "time"
    has_time = type_name != "date"
    if type_name in ("datetime",):
        frac_digits = 3
    elif type_name == "smalldatetime":
        frac_digits = 0
    else:
        frac_digits = 7 if scale is None else scale
    hms = f"{d.hour:02d}:{d.minute:02d}:{d.second:02d}"
    date_text: str | None
    time_text = ""
    if base in (0, 100):
        date_text = f"{mon} {d.day:2d} {d.year:04d}"
        time_text = f"{h12:2d}:{d.minute:02d}{ampm}"
    elif base in (9, 109):
        date_text = f"{mon} {d.day:2d} {d.year:04d}"
        frac = _ms(d) if frac_digits == 3 else f"{d.microsecond:06d}0"[:max(frac_digits, 3)]
        time_text = f"{h12:2d}:{d.minute:02d}:{d.second:02d}:{frac}{ampm}"
    elif base == 1:
        date_text = f"{mm}/{dd}/{yy}"
    elif base == 2:
        date_text = f"{yy}.{mm}.{dd}"
    elif base == 3:
        date_text = f"{dd}/{mm}/{yy}"
    elif base == 4:
        date_text = f"{dd}.{mm}.{yy}"
    elif base == 5:
        date_text = f"{dd}-{mm}-{yy}"
    elif base == 6:
        date_text = f"{dd} {mon} {yy}"
    elif base == 7:
        date_text = f"{mon} {dd}, {yy}"
    elif base in (8, 24, 108):
        date_text, time_text = None, hms
    elif base == 10:
        date_text = f"{mm}-{dd}-{yy}"
    elif base == 11:
        date_text = f"{yy}/{mm}/{dd}"
    elif base == 12:
        date_text = f"{yy}{mm}{dd}"
    elif base in (13, 113):
        date_text = f"{dd} {mon} {d.year:04d}"
        time_text = f"{hms}:{_ms(d)}"
    elif base in (14, 114):
        date_text, time_text = None, f"{hms}:{_ms(d)}"
    elif base in (20, 120):
        date_text, time_text = f"{d.year:04d}-{mm}-{dd}", hms
    elif base in (21, 25, 121):
        date_text = f"{d.year:04d}-{mm}-{dd}"
        time_text = hms + _frac(d.microsecond, frac_digits)
    elif base == 22:
        date_text = f"{mm}/{dd}/{yy}"
        time_text = f"{h12:2d}:{d.minute:02d}:{d.second:02d} {ampm}"
    elif base == 23:
        date_text = f"{d.year:04d}-{mm}-{dd}"
    elif base in (126, 127):
        date_text = f"{d.year:04d}-{mm}-{dd}"
        frac = _frac(d.microsecond, frac_digits) if d.microsecond else ""
        if type_name == "datetime" and d.microsecond:
            frac = "." + _ms(d)
        time_text = hms + frac
        if not has_date:
            return time_text
        if not has_time:
            return date_text
        text = f"{date_text}T{time_text}"
        if type_name == "datetimeoffset":
            off = _offset_text(d)
            text += "Z" if (style == 127 and off == "+00:00") else off
        return text
    else:
        raise tsql_error(281, style, type_name)
    if base in (1, 2, 3, 4, 5, 6, 7, 10, 11, 12, 23):
        if not has_date:
            raise tsql_error(9809, style, type_name, "varchar")
        return date_text or ""
    if not has_date or date_text is None:
        return time_text
    if not has_time:
        return date_text  # a date converted with a date-and-time style has no time part
    text = f"{date_text} {time_text}"
    if type_name == "datetimeoffset" and base in (20, 120, 21, 25, 121):
        text += " " + _offset_text(d)
    return text


# ------------------------------------------------------------------------ DATEADD / DATEDIFF
def _add_months(d: datetime, n: int) -> datetime:
    total = d.year * 12 + (d.month - 1) + n
    y, m = divmod(total, 12)
    if y < 1 or y > 9999:
        raise OverflowError
    day = min(d.day, calendar.monthrange(y, m + 1)[1])
    return d.replace(year=y, month=m + 1, day=day)


_FIXED_UNITS = {
    "day": timedelta(days=1), "dayofyear": timedelta(days=1), "weekday": timedelta(days=1),
    "week": timedelta(days=7), "iso_week": timedelta(days=7), "hour": timedelta(hours=1),
    "minute": timedelta(minutes=1), "second": timedelta(seconds=1),
    "millisecond": timedelta(milliseconds=1), "microsecond": timedelta(microseconds=1),
}


def dateadd(part: str, n: int, v: Any, type_name: str, scale: int | None = None) -> Any:
    """DATEADD(part, n, v) for a value of ``type_name`` (Msg 517 when out of range)."""
    d = as_datetime(v)
    try:
        if part == "year":
            r = _add_months(d, 12 * n)
        elif part == "quarter":
            r = _add_months(d, 3 * n)
        elif part == "month":
            r = _add_months(d, n)
        elif part == "nanosecond":
            r = d + timedelta(microseconds=(n // 1000) if n >= 0 else -((-n) // 1000))
        elif part in _FIXED_UNITS:
            r = d + _FIXED_UNITS[part] * n
        else:
            raise tsql_error(155, part, "dateadd")
    except (OverflowError, ValueError):
        raise tsql_error(517, type_name) from None
    if type_name == "date":
        return r.date()
    if type_name == "time":
        return r.time()
    if type_name == "datetime":
        if r.year < 1753:
            raise tsql_error(517, type_name)
        return round_datetime(r)
    if type_name == "smalldatetime":
        r = round_smalldatetime(r)
        if not SMALLDATETIME_MIN <= r <= SMALLDATETIME_MAX:
            raise tsql_error(517, type_name)
        return r
    return round_fraction(r, scale)


def _units(d: datetime, part: str) -> int:
    """Count of ``part`` boundaries from 0001-01-01 to ``d`` (DATEDIFF counts crossings)."""
    if part == "year":
        return d.year
    if part == "quarter":
        return d.year * 4 + (d.month - 1) // 3
    if part == "month":
        return d.year * 12 + d.month - 1
    days = d.toordinal()
    if part in ("day", "dayofyear", "weekday"):
        return days
    if part == "week":  # weeks start on Sunday (DATEFIRST 7); ordinal 7 is a Sunday
        return days // 7
    if part == "iso_week":
        return (days - 1) // 7
    secs = days * 86400 + d.hour * 3600 + d.minute * 60 + d.second
    if part == "hour":
        return days * 24 + d.hour
    if part == "minute":
        return days * 1440 + d.hour * 60 + d.minute
    if part == "second":
        return secs
    if part == "millisecond":
        return secs * 1000 + d.microsecond // 1000
    if part == "microsecond":
        return secs * 1_000_000 + d.microsecond
    if part == "nanosecond":
        return (secs * 1_000_000 + d.microsecond) * 1000
    raise tsql_error(155, part, "datediff")


def datediff(part: str, a: Any, b: Any, big: bool = False) -> int:
    """DATEDIFF(part, a, b): boundaries crossed; Msg 535 when it overflows int."""
    da, db = as_datetime(a), as_datetime(b)
    if da.tzinfo is not None:
        da = da.astimezone(UTC).replace(tzinfo=None)
    if db.tzinfo is not None:
        db = db.astimezone(UTC).replace(tzinfo=None)
    r = _units(db, part) - _units(da, part)
    limit = 2**63 if big else 2**31
    if not -limit <= r < limit:
        name = "datediff_big" if big else "datediff"
        raise tsql_error(535, name, name)
    return r


def datepart(part: str, v: Any, datefirst: int = 7) -> int:
    """DATEPART(part, v); weekday and week count from the session's first day of the week
    (``SET DATEFIRST``: 7, Sunday, by default)."""
    d = as_datetime(v)
    if part == "year":
        return d.year
    if part == "quarter":
        return (d.month - 1) // 3 + 1
    if part == "month":
        return d.month
    if part == "dayofyear":
        return d.timetuple().tm_yday
    if part == "day":
        return d.day
    if part == "weekday":
        return (d.isoweekday() - datefirst) % 7 + 1
    if part == "week":  # week 1 holds January 1st; a week begins on day ``datefirst``
        offset = (date(d.year, 1, 1).isoweekday() - datefirst) % 7
        return (d.timetuple().tm_yday - 1 + offset) // 7 + 1
    if part == "iso_week":
        return d.isocalendar()[1]
    if part == "hour":
        return d.hour
    if part == "minute":
        return d.minute
    if part == "second":
        return d.second
    if part == "millisecond":
        return d.microsecond // 1000
    if part == "microsecond":
        return d.microsecond
    if part == "nanosecond":
        return d.microsecond * 1000
    if part == "tzoffset":
        off = d.utcoffset()
        return int(off.total_seconds() // 60) if off else 0
    raise tsql_error(155, part, "datepart")


def datename(part: str, v: Any) -> str:
    """DATENAME(part, v): month and weekday names, the number as text otherwise."""
    d = as_datetime(v)
    if part == "month":
        return MONTHS[d.month - 1]
    if part == "weekday":
        return DAYS[d.weekday()]
    if part == "tzoffset":
        return _offset_text(d) if d.tzinfo else "+00:00"
    return str(datepart(part, v))


def eomonth(v: Any, months: int = 0) -> date:
    """EOMONTH(v [, months]): the last day of the month."""
    d = _add_months(as_datetime(v).replace(day=1), months)
    return date(d.year, d.month, calendar.monthrange(d.year, d.month)[1])
