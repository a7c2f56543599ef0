"""String built-ins: LEN, SUBSTRING, CHARINDEX, REPLACE, STUFF, QUOTENAME, CONCAT …

Each ``bind_<name>(types, consts)`` returns the result type and a callable taking the
evaluated arguments; arguments are converted to the types the function wants once, at bind
time. Searches and replacements compare as the default collation does: case-insensitively.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable
from typing import Any

from tsqlbroker.errors import BindError, tsql_error
from tsqlbroker.values.convert import converter, implicit_converter
from tsqlbroker.values.operators import like_regex
from tsqlbroker.values.text import cp1252_decode, cp1252_encode, to_varchar_text
from tsqlbroker.values.types import (
    BIGINT,
    INT,
    MAX,
    NVARCHAR_MAX,
    VARCHAR_MAX,
    SqlType,
    type_of_value,
)
from tsqlbroker.values.variant_props import variant_data_length

Bound = tuple[SqlType, Callable[..., Any]]
Types = list[SqlType]
Consts = list[Any]


def as_string(t: SqlType) -> Callable[[Any], Any]:
    """Converter of an argument to text (identity for strings)."""
    if t.is_string or t.is_null:
        return lambda v: v
    return converter(t, NVARCHAR_MAX if t.is_unicode else VARCHAR_MAX)


def as_int(t: SqlType) -> Callable[[Any], Any]:
    """Converter of an argument to int (identity for integer types)."""
    if t.is_integer or t.is_null:
        return lambda v: v
    if t.is_exact_numeric or t.is_float:
        return lambda v: None if v is None else int(v)
    return converter(t, BIGINT, explicit=False)


def string_type(t: SqlType) -> SqlType:
    """The string type a function returns for an argument of type ``t``."""
    if t.is_string:
        if t.name in ("text",):
            return VARCHAR_MAX
        if t.name == "ntext":
            return NVARCHAR_MAX
        return SqlType("nvarchar" if t.is_unicode else "varchar", t.length or 1)
    if t.is_binary:
        return SqlType("varbinary", t.length or 1)
    return SqlType("varchar", 30)


def text_type(t: SqlType) -> SqlType:
    """The type a function working on text returns for an argument of type ``t``: binary
    arguments are converted to varchar (UPPER, LTRIM, REVERSE … take "character or binary
    data ... implicitly convertible to varchar")."""
    if t.is_binary:
        return SqlType("varchar", t.length or 1)
    return string_type(t)


def _len_type(t: SqlType) -> SqlType:
    return BIGINT if t.is_max else INT


def _bind_len(types: Types, consts: Consts) -> Bound:
    t = types[0]
    if t.name == "sql_variant":  # no implicit conversion to a string: Msg 8116
        raise tsql_error(8116, t.name, 1, "len", cls=BindError)
    if t.is_binary:
        return _len_type(t), lambda v: None if v is None else len(v)
    s = as_string(t)

    def length(v: Any) -> Any:
        if v is None:
            return None
        return len(s(v).rstrip(" "))
    return _len_type(t), length


_FIXED_SIZES = {"bigint": 8, "int": 4, "smallint": 2, "tinyint": 1, "bit": 1, "float": 8,
                "real": 4, "money": 8, "smallmoney": 4, "datetime": 8, "smalldatetime": 4,
                "date": 3, "uniqueidentifier": 16}


def _decimal_size(p: int) -> int:
    return 5 if p <= 9 else 9 if p <= 19 else 13 if p <= 28 else 17


def _bind_datalength(types: Types, consts: Consts) -> Bound:
    t = types[0]
    rtype = BIGINT if t.is_max else INT
    if t.name == "sql_variant":  # the value's bytes in the base type it stands for
        return INT, lambda v: None if v is None else variant_data_length(type_of_value(v), v)
    if t.is_string:
        if t.is_unicode:
            return rtype, lambda v: None if v is None else len(v.encode("utf-16-le", "surrogatepass"))
        return rtype, lambda v: None if v is None else len(v)
    if t.is_binary:
        return rtype, lambda v: None if v is None else len(v)
    if t.is_xml:
        return rtype, lambda v: None if v is None else 2 * len(v.to_string()) + 5
    if t.is_decimal:
        size = _decimal_size(t.precision or 18)
        return rtype, lambda v: None if v is None else size
    if t.name in ("time", "datetime2", "datetimeoffset"):
        s = 7 if t.scale is None else t.scale
        base = 3 if s <= 2 else 4 if s <= 4 else 5
        size = base + (3 if t.name == "datetime2" else 5 if t.name == "datetimeoffset" else 0)
        return rtype, lambda v: None if v is None else size
    size = _FIXED_SIZES.get(t.name)
    if size is not None:
        return rtype, lambda v: None if v is None else size
    s = as_string(t)
    return rtype, lambda v: None if v is None else len(s(v))


def _bind_substring(types: Types, consts: Consts) -> Bound:
    t = types[0]
    rtype = string_type(t)
    s = (lambda v: v) if t.is_binary else as_string(t)
    si, li = as_int(types[1]), as_int(types[2])

    def substring(v: Any, start: Any, length: Any) -> Any:
        if v is None or start is None or length is None:
            return None
        start, length = si(start), li(length)
        if length < 0:
            raise tsql_error(536, "substring")
        text = s(v)
        begin = max(start, 1)
        end = start + length  # exclusive, 1-based
        if end <= begin:
            return text[:0]
        return text[begin - 1:end - 1]
    return rtype, substring


def _bind_left(types: Types, consts: Consts) -> Bound:
    return _left_right(types, "left")


def _bind_right(types: Types, consts: Consts) -> Bound:
    return _left_right(types, "right")


def _left_right(types: Types, which: str) -> Bound:
    t = types[0]
    rtype = string_type(t)
    s = (lambda v: v) if t.is_binary else as_string(t)
    ni = as_int(types[1])

    def cut(v: Any, n: Any) -> Any:
        if v is None or n is None:
            return None
        n = ni(n)
        if n < 0:
            raise tsql_error(536, which)
        text = s(v)
        if which == "left":
            return text[:n]
        return text[len(text) - n:] if n else text[:0]
    return rtype, cut


def _bind_charindex(types: Types, consts: Consts) -> Bound:
    fs, ss = as_string(types[0]), as_string(types[1])
    st = as_int(types[2]) if len(types) > 2 else None
    rtype = BIGINT if types[1].is_max else INT
    if types[0].is_binary and types[1].is_binary:
        fs = ss = bytes  # bytes have no collation: found exactly, as SQL Server does

    def charindex(find: Any, text: Any, start: Any = 1) -> Any:
        if find is None or text is None or (st is not None and start is None):
            return None
        f, s = fs(find), ss(text)
        if isinstance(f, str):
            f, s = f.lower(), s.lower()
        if not f:
            return 0
        begin = max((st(start) if st else 1), 1)
        return s.find(f, begin - 1) + 1
    return rtype, charindex


def patindex(pattern: str, text: str) -> int:
    """1-based position of the first match of a LIKE pattern (0 if none)."""
    if pattern.startswith("%"):
        rest = pattern.lstrip("%")
        if not rest:
            return 1 if text or pattern else 0
        body = rest.rstrip("%")
        open_end = len(body) != len(rest)
        rx = like_regex(body).pattern
        flags = re.IGNORECASE | re.DOTALL
        m = re.search(rx if open_end else f"(?:{rx})$", text, flags)
        return m.start() + 1 if m else 0
    return 1 if like_regex(pattern).fullmatch(text) else 0


def _bind_patindex(types: Types, consts: Consts) -> Bound:
    ps, ts = as_string(types[0]), as_string(types[1])
    rtype = BIGINT if types[1].is_max else INT
    return rtype, lambda p, t: None if p is None or t is None else patindex(ps(p), ts(t))


def _wide(t: SqlType) -> SqlType:
    if t.is_max or t.name in ("text", "ntext"):
        return NVARCHAR_MAX if t.is_unicode else VARCHAR_MAX
    return SqlType("nvarchar", 4000) if t.is_unicode else SqlType("varchar", 8000)


def _cap(rtype: SqlType) -> Callable[[str], str]:
    if rtype.length == MAX:
        return lambda s: s
    n = rtype.length or 8000
    return lambda s: s[:n]


def _bind_replace(types: Types, consts: Consts) -> Bound:
    unicode = any(t.is_unicode for t in types)
    rtype = _wide(SqlType("nvarchar" if unicode else "varchar",
                          MAX if types[0].is_max else 1))
    a, b, c = (as_string(t) for t in types[:3])
    cap = _cap(rtype)

    def replace(s: Any, find: Any, repl: Any) -> Any:
        if s is None or find is None or repl is None:
            return None
        text, f, r = a(s), b(find), c(repl)
        if f == "":
            return text
        out = re.sub(re.escape(f), lambda _m: r, text, flags=re.IGNORECASE)
        return cap(out)
    return rtype, replace


def _bind_replicate(types: Types, consts: Consts) -> Bound:
    t = types[0]
    rtype = _wide(string_type(t)) if not t.is_binary else SqlType("varbinary", 8000)
    # A binary value is repeated as bytes: REPLICATE returns its argument's type.
    s, ni = (lambda v: v) if t.is_binary else as_string(t), as_int(types[1])
    cap = _cap(rtype)

    limit = MAX_VALUE_CHARS if rtype.length == MAX else (rtype.length or 8000)

    def replicate(v: Any, n: Any) -> Any:
        if v is None or n is None:
            return None
        out = replicate_text(s(v), ni(n), limit)
        return None if out is None else cap(out)
    return rtype, replicate


MAX_VALUE_CHARS = 100_000_000  # what one value may grow to here before Msg 701


def replicate_text(text: str, n: int, limit: int = MAX_VALUE_CHARS) -> str | None:
    """REPLICATE: ``text`` n times, never built beyond ``limit`` characters (a non-max
    result is cut there anyway); NULL for a negative count, Msg 701 past the memory cap."""
    if n < 0:
        return None
    if not text or n == 0:
        return text[:0]
    needed = -(-limit // len(text))  # copies that reach the limit
    if n > needed and limit >= MAX_VALUE_CHARS:
        raise tsql_error(701, "default")
    return (text * min(n, needed))[:limit]


def _bind_stuff(types: Types, consts: Consts) -> Bound:
    t = types[0]
    rtype = _wide(string_type(t)) if not types[3].is_unicode or t.is_unicode else \
        SqlType("nvarchar", 4000)
    s, si, li, ins = as_string(t), as_int(types[1]), as_int(types[2]), as_string(types[3])
    if t.is_binary:  # binary data in, binary data out (STUFF)
        s, ins = (lambda v: v), converter(types[3], SqlType("varbinary", MAX))

    def stuff(v: Any, start: Any, length: Any, new: Any) -> Any:
        if v is None or start is None or length is None:
            return None
        text, st, ln = s(v), si(start), li(length)
        if st < 1 or st > len(text) or ln < 0:
            return None
        return text[:st - 1] + (ins(new) if new is not None else text[:0]) + text[st - 1 + ln:]
    return rtype, stuff


def _same_string(types: Types, fn: Callable[[str], str]) -> Bound:
    t = types[0]
    rtype = text_type(t)
    s = as_string(t)
    return rtype, lambda v: None if v is None else fn(s(v))


def _bind_upper(types: Types, consts: Consts) -> Bound:
    return _same_string(types, str.upper)


def _bind_lower(types: Types, consts: Consts) -> Bound:
    return _same_string(types, str.lower)


def _bind_reverse(types: Types, consts: Consts) -> Bound:
    return _same_string(types, lambda x: x[::-1])


def _trimmer(types: Types, kind: str) -> Bound:
    t = types[0]
    rtype = text_type(t)
    s = as_string(t)
    cs = as_string(types[1]) if len(types) > 1 else None

    def trim(v: Any, chars: Any = " ") -> Any:
        if v is None or (cs is not None and chars is None):
            return None
        ch = cs(chars) if cs is not None else " "
        text = s(v)
        if kind == "l":
            return text.lstrip(ch)
        if kind == "r":
            return text.rstrip(ch)
        return text.strip(ch)
    return rtype, trim


def _bind_ltrim(types: Types, consts: Consts) -> Bound:
    return _trimmer(types, "l")


def _bind_rtrim(types: Types, consts: Consts) -> Bound:
    return _trimmer(types, "r")


def _bind_trim(types: Types, consts: Consts) -> Bound:
    """TRIM(s) or TRIM(s, chars) — the parser maps ``TRIM(chars FROM s)`` to the latter."""
    return _trimmer(types, "b")


def _concat_type(types: Types) -> SqlType:
    unicode = any(t.is_unicode for t in types)
    if any(t.is_max for t in types):
        return NVARCHAR_MAX if unicode else VARCHAR_MAX
    total = sum((t.length if t.is_string and t.length else 30) for t in types)
    cap = 4000 if unicode else 8000
    if total > cap:
        return NVARCHAR_MAX if unicode else VARCHAR_MAX
    return SqlType("nvarchar" if unicode else "varchar", max(total, 1))


def _bind_concat(types: Types, consts: Consts) -> Bound:
    rtype = _concat_type(types)
    convs = [as_string(t) for t in types]
    narrow = not rtype.is_unicode

    def concat(*vals: Any) -> Any:
        out = "".join(c(v) for c, v in zip(convs, vals) if v is not None)
        return to_varchar_text(out) if narrow else out
    return rtype, concat


def _bind_concat_ws(types: Types, consts: Consts) -> Bound:
    rtype = _concat_type(types[1:] + [types[0]] * max(len(types) - 2, 0))
    sep = as_string(types[0])
    convs = [as_string(t) for t in types[1:]]

    def concat_ws(separator: Any, *vals: Any) -> Any:
        sp = sep(separator) if separator is not None else ""
        return sp.join(c(v) for c, v in zip(convs, vals) if v is not None)
    return rtype, concat_ws


_QUOTES = {"[": ("[", "]"), "]": ("[", "]"), '"': ('"', '"'), "'": ("'", "'"),
           "(": ("(", ")"), ")": ("(", ")"), "<": ("<", ">"), ">": ("<", ">"),
           "{": ("{", "}"), "}": ("{", "}"), "`": ("`", "`")}


def quotename(name: str, quote: str = "[") -> str | None:
    """QUOTENAME: delimit ``name``, doubling the closing character; NULL past 128 chars."""
    if len(name) > 128 or quote not in _QUOTES:
        return None
    o, c = _QUOTES[quote]
    return o + name.replace(c, c + c) + c


def _bind_quotename(types: Types, consts: Consts) -> Bound:
    s = as_string(types[0])
    q = as_string(types[1]) if len(types) > 1 else None

    def quote(v: Any, ch: Any = "[") -> Any:
        if v is None or (q is not None and ch is None):
            return None
        return quotename(s(v), (q(ch) if q else ch)[:1] or "[")
    return SqlType("nvarchar", 258), quote


def _bind_nchar(types: Types, consts: Consts) -> Bound:
    ni = as_int(types[0])

    def nchar(v: Any) -> Any:
        if v is None:
            return None
        n = ni(v)
        if not 0 <= n <= 0xFFFF:  # UCS-2: one UTF-16 code unit
            return None
        return chr(n)
    return SqlType("nchar", 1), nchar


def _bind_char(types: Types, consts: Consts) -> Bound:
    ni = as_int(types[0])

    def char(v: Any) -> Any:
        if v is None:
            return None
        n = ni(v)
        if not 0 <= n <= 255:
            return None
        return cp1252_decode(bytes([n]))
    return SqlType("char", 1), char


def _bind_unicode(types: Types, consts: Consts) -> Bound:
    s = as_string(types[0])
    return INT, lambda v: None if v is None or s(v) == "" else ord(s(v)[0])


def _bind_ascii(types: Types, consts: Consts) -> Bound:
    s = as_string(types[0])

    def ascii_(v: Any) -> Any:
        if v is None:
            return None
        text = s(v)
        if not text:
            return None
        return cp1252_encode(text[0])[0]
    return INT, ascii_


def _bind_space(types: Types, consts: Consts) -> Bound:
    ni = as_int(types[0])

    def space(v: Any) -> Any:
        if v is None:
            return None
        n = ni(v)
        return None if n < 0 else " " * min(n, 8000)
    return SqlType("varchar", 8000), space


def _bind_string_escape(types: Types, consts: Consts) -> Bound:
    s, k = as_string(types[0]), as_string(types[1])
    table = {'"': '\\"', "\\": "\\\\", "/": "\\/", "\b": "\\b", "\f": "\\f", "\n": "\\n",
             "\r": "\\r", "\t": "\\t"}

    def escape(v: Any, kind: Any) -> Any:
        if kind is None or k(kind).lower() != "json":
            raise tsql_error(8116, types[1].name, 2, "string_escape")
        if v is None:
            return None
        out = []
        for ch in s(v):
            if ch in table:
                out.append(table[ch])
            elif ord(ch) < 32:
                out.append(f"\\u{ord(ch):04x}")
            else:
                out.append(ch)
        return "".join(out)
    return NVARCHAR_MAX, escape


def _bind_translate(types: Types, consts: Consts) -> Bound:
    a, b, c = (as_string(t) for t in types[:3])
    rtype = text_type(types[0])

    def translate(v: Any, src: Any, dst: Any) -> Any:
        if v is None or src is None or dst is None:
            return None
        f, t = b(src), c(dst)
        if len(f) != len(t):
            raise tsql_error(9828)
        table: dict[int, str] = {}
        for x, y in zip(f, t):
            table.setdefault(ord(x), y)
        return a(v).translate(table)
    return rtype, translate


_HASHES = {"md2": None, "md4": "md4", "md5": "md5", "sha": "sha1", "sha1": "sha1",
           "sha2_256": "sha256", "sha2_512": "sha512"}


def hashbytes(algorithm: str, data: bytes) -> bytes | None:
    """HASHBYTES: the digest, or NULL for an algorithm this platform lacks or none exists."""
    name = _HASHES.get(algorithm.strip().lower())
    if name is None:
        return None
    try:
        return hashlib.new(name, data).digest()
    except ValueError:  # md4 missing from this OpenSSL build
        return None


# HASHBYTES hashes its input as varbinary: a string's own bytes (varchar in code page 1252,
# nvarchar UTF-16LE), any other type as its implicit conversion to varbinary gives it (an int
# as its 4 bytes, high first).
HASHED_AS = SqlType("varbinary", MAX)


def hashed_input(t: SqlType) -> Callable[[Any], bytes]:
    """How HASHBYTES turns a value of type ``t`` into the bytes it hashes (Msg 257 now for
    a type with no implicit conversion to varbinary)."""
    if t.is_binary:
        return bytes
    if t.is_unicode:
        s = as_string(t)
        return lambda v: s(v).encode("utf-16-le", "surrogatepass")
    if t.is_string:
        s = as_string(t)
        return lambda v: cp1252_encode(s(v))
    return implicit_converter(t, HASHED_AS)


def _bind_hashbytes(types: Types, consts: Consts) -> Bound:
    a = as_string(types[0])
    data = hashed_input(types[1])

    def hb(alg: Any, v: Any) -> Any:
        if alg is None or v is None:
            return None
        return hashbytes(a(alg), data(v))
    return SqlType("varbinary", 8000), hb


_SOUNDEX = {**dict.fromkeys("BFPV", "1"), **dict.fromkeys("CGJKQSXZ", "2"),
            **dict.fromkeys("DT", "3"), "L": "4", **dict.fromkeys("MN", "5"), "R": "6"}


def soundex(text: str) -> str:
    """SOUNDEX: letter + three digits; H and W do not separate equal codes."""
    letters = [c for c in text.upper() if "A" <= c <= "Z"]
    if not letters:
        return "0000"
    first = letters[0]
    out = [first]
    last = _SOUNDEX.get(first, "")
    for c in letters[1:]:
        code = _SOUNDEX.get(c, "")
        if code and code != last:
            out.append(code)
        if c not in "HW":
            last = code
        if len(out) == 4:
            break
    return "".join(out).ljust(4, "0")


def _bind_soundex(types: Types, consts: Consts) -> Bound:
    s = as_string(types[0])
    return SqlType("varchar", 4), lambda v: None if v is None else soundex(s(v))


def _bind_difference(types: Types, consts: Consts) -> Bound:
    a, b = as_string(types[0]), as_string(types[1])

    def difference(x: Any, y: Any) -> Any:
        if x is None or y is None:
            return None
        return sum(1 for p, q in zip(soundex(a(x)), soundex(b(y)), strict=True) if p == q)
    return INT, difference


STRING_FUNCTIONS: dict[str, tuple[int, int, Callable[[Types, Consts], Bound]]] = {
    "len": (1, 1, _bind_len), "datalength": (1, 1, _bind_datalength),
    "substring": (3, 3, _bind_substring), "left": (2, 2, _bind_left),
    "right": (2, 2, _bind_right), "charindex": (2, 3, _bind_charindex),
    "patindex": (2, 2, _bind_patindex), "replace": (3, 3, _bind_replace),
    "replicate": (2, 2, _bind_replicate), "stuff": (4, 4, _bind_stuff),
    "upper": (1, 1, _bind_upper), "lower": (1, 1, _bind_lower), "ltrim": (1, 2, _bind_ltrim),
    "rtrim": (1, 2, _bind_rtrim), "trim": (1, 2, _bind_trim), "concat": (2, 254, _bind_concat),
    "concat_ws": (3, 254, _bind_concat_ws), "quotename": (1, 2, _bind_quotename),
    "nchar": (1, 1, _bind_nchar), "char": (1, 1, _bind_char), "unicode": (1, 1, _bind_unicode),
    "ascii": (1, 1, _bind_ascii), "space": (1, 1, _bind_space), "reverse": (1, 1, _bind_reverse),
    "string_escape": (2, 2, _bind_string_escape), "translate": (3, 3, _bind_translate),
    "hashbytes": (2, 2, _bind_hashbytes), "soundex": (1, 1, _bind_soundex),
    "difference": (2, 2, _bind_difference),
}
