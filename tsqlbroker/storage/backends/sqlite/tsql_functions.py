"""T-SQL scalar functions inside SQLite queries: adapters over the values layer.

``functions.py`` registers each entry of :data:`TSQL_FUNCTIONS` on every SQLite connection as
``tsql_<name>`` (the transpiler rewrites T-SQL calls to them), and the entries of
:data:`ENGINE_FUNCTIONS` under the ``tsqlb_*`` names the transpiler writes on either backend
(PostgreSQL's are PL/pgSQL). The callables receive SQLite storage values — int, float, str,
bytes, None; uniqueidentifiers, decimals and date/times arrive as TEXT (dates as
``YYYY-MM-DD HH:MM:SS.ffffff``) — convert them to T-SQL values, call the one implementation
in ``tsqlbroker.values`` (CAST / CONVERT in values/convert.py, DATEADD … in values/dates.py,
the string built-ins in values/string_builtins.py) and return storage values.
"""

from __future__ import annotations

import json
import re
import uuid
from collections.abc import Callable
from datetime import UTC, date, datetime, time, timedelta
from decimal import Decimal
from functools import lru_cache
from typing import Any

from ....errors import TSqlError, tsql_error
from ....values import dates as dt
from ....values.builtins import isnumeric, lookup, newsequentialid
from ....values.convert import converter
from ....values.date_builtins import from_parts
from ....values.format_builtins import format_value, str_function
from ....values.json_builtins import is_json, json_query, json_value, openjson_rows
from ....values.operators import like
from ....values.parse_builtins import parse_value
from ....values.string_builtins import hashbytes, patindex, quotename, replicate_text
from ....values.text import cp1252_decode, cp1252_encode, float_text
from ....values.types import parse_type_spec
from ....values.xquery import namespace_pairs
from ...stored_values import (
    column_spec_for,
    from_storage,
    to_storage,
    variant_backend_value,
    variant_field,
)


# ------------------------------------------------------------------------------ storage I/O
def _text(v: Any) -> str:
    """A storage value read as T-SQL text."""
    if isinstance(v, str):
        return v
    if isinstance(v, bytes):
        return cp1252_decode(v)
    if isinstance(v, float):
        return float_text(v)
    return str(v)


def _int(v: Any) -> int:
    if isinstance(v, int):
        return v
    if isinstance(v, float):
        return int(v)
    try:
        return int(Decimal(str(v).strip()))
    except ArithmeticError:
        raise tsql_error(245, "varchar", str(v), "int") from None


def _when(v: Any) -> Any:
    """A stored date/time (ISO text, or a number of days since 1900 as datetime does)."""
    if isinstance(v, (int, float)):
        return dt.EPOCH + timedelta(days=v)
    text = _text(v).strip()
    try:
        parsed, tz, has_date = dt.parse_datetime(text)
    except (ValueError, OverflowError, TSqlError, dt.NotADate, dt.DateOutOfRange):
        raise tsql_error(241) from None
    if tz is not None:
        return parsed.replace(tzinfo=tz)
    if not has_date:
        return parsed.time()
    return parsed


def _stored(v: Any) -> Any:
    """A Python value in the form the storage layer keeps it."""
    if isinstance(v, bool):
        return int(v)
    if isinstance(v, datetime):  # (strftime's %Y drops the zeros of years before 1000)
        return v.isoformat(sep=" ", timespec="microseconds")
    if isinstance(v, date):
        return v.isoformat()
    if isinstance(v, time):
        return v.strftime("%H:%M:%S.%f")
    if isinstance(v, uuid.UUID):
        return str(v).upper()
    if isinstance(v, Decimal):
        return str(v)
    return v


def _nulls(fn: Callable[..., Any]) -> Callable[..., Any]:
    """NULL in any argument gives NULL, as nearly every T-SQL scalar function does."""
    def call(*args: Any) -> Any:
        if any(a is None for a in args):
            return None
        return _stored(fn(*args))
    call.__name__ = fn.__name__
    call.__doc__ = fn.__doc__
    return call


# -------------------------------------------------------------------------------- strings
def _len(v: Any) -> int:
    return len(v) if isinstance(v, bytes) else len(_text(v).rstrip(" "))


def _datalength(v: Any, spec: Any = None) -> int:
    """DATALENGTH of a stored value; ``spec`` (the argument's type, when the transpiler knows
    it) tells a varchar (a byte per character) from an nvarchar (two per UTF-16 unit)."""
    if isinstance(v, bytes):
        return len(v)
    if isinstance(v, (bool, int)):
        return 4 if -(2**31) <= v < 2**31 else 8
    if isinstance(v, float):
        return 8
    text = _text(v)
    if spec and not str(spec).startswith(("n", "sysname", "xml")):
        return len(cp1252_encode(text))  # char / varchar: the single-byte code page
    return len(text.encode("utf-16-le", "surrogatepass"))


def _charindex(find: Any, text: Any, start: Any = 1) -> int:
    if isinstance(find, bytes) and isinstance(text, bytes):
        f, s = find, text  # bytes have no collation: found exactly
    else:
        f, s = _text(find).lower(), _text(text).lower()
    if not f:
        return 0
    return s.find(f, max(_int(start), 1) - 1) + 1


def _substring(v: Any, start: Any, length: Any) -> Any:
    st, ln = _int(start), _int(length)
    if ln < 0:
        raise tsql_error(536, "substring")
    seq = v if isinstance(v, bytes) else _text(v)
    begin = max(st, 1)
    end = st + ln
    return seq[begin - 1:end - 1] if end > begin else seq[:0]


def _left(v: Any, n: Any) -> Any:
    k = _int(n)
    if k < 0:
        raise tsql_error(536, "left")
    seq = v if isinstance(v, bytes) else _text(v)
    return seq[:k]


def _right(v: Any, n: Any) -> Any:
    k = _int(n)
    if k < 0:
        raise tsql_error(536, "right")
    seq = v if isinstance(v, bytes) else _text(v)
    return seq[len(seq) - k:] if k else seq[:0]


def _replace(v: Any, find: Any, repl: Any) -> str:
    s, f, r = _text(v), _text(find), _text(repl)
    if not f:
        return s
    return re.sub(re.escape(f), lambda _m: r, s, flags=re.IGNORECASE)


def _replicate(v: Any, n: Any) -> Any:
    return replicate_text(_text(v), _int(n))


def _stuff(v: Any, start: Any, length: Any, new: Any = "") -> Any:
    s, st, ln = _text(v), _int(start), _int(length)
    if st < 1 or st > len(s) or ln < 0:
        return None
    return s[:st - 1] + (_text(new) if new is not None else "") + s[st - 1 + ln:]


def _stuff_fn(v: Any, start: Any, length: Any, new: Any) -> Any:
    if v is None or start is None or length is None:
        return None
    return _stuff(v, start, length, new)


def _quotename(v: Any, q: Any = "[") -> Any:
    return quotename(_text(v), (_text(q) or "[")[:1])


def _concat(*args: Any) -> str:
    return "".join(_text(a) for a in args if a is not None)


def _concat_ws(sep: Any, *args: Any) -> str:
    return ("" if sep is None else _text(sep)).join(_text(a) for a in args if a is not None)


def _isnull(a: Any, b: Any) -> Any:
    return b if a is None else a


def _char(n: Any) -> Any:
    k = _int(n)
    return cp1252_decode(bytes([k])) if 0 <= k <= 255 else None


def _nchar(n: Any) -> Any:
    k = _int(n)
    return chr(k) if 0 <= k <= 0xFFFF else None


def _unicode(v: Any) -> Any:
    s = _text(v)
    return ord(s[0]) if s else None


def _ascii(v: Any) -> Any:
    s = _text(v)
    return cp1252_encode(s[0])[0] if s else None


def _space(n: Any) -> Any:
    # SPACE returns varchar(8000): "to return more than 8000 spaces, use REPLICATE".
    k = _int(n)
    return None if k < 0 else " " * min(k, 8000)


def _like(v: Any, pattern: Any, escape: Any = None) -> Any:
    if v is None or pattern is None:
        return None  # UNKNOWN: NOT LIKE must not turn it into a match
    r = like(_text(v), _text(pattern), None if escape is None else _text(escape))
    return None if r is None else int(r)


_FORMAT_TEXT = parse_type_spec("nvarchar(4000)")


@lru_cache(maxsize=64)
def _bound_format(spec: str, nargs: int) -> Callable[..., Any]:
    builtin = lookup("format")
    assert builtin is not None
    return builtin.bind([parse_type_spec(spec), *[_FORMAT_TEXT] * (nargs - 1)], [])[1]


def _format(spec: Any, v: Any, fmt: Any, *culture: Any) -> Any:
    """FORMAT of a stored value of type ``spec`` (the transpiler's) as the interpreter's
    built-in formats it; '' when the type was not known: read as the stored value looks."""
    if v is None or fmt is None:
        return None
    texts = [_text(fmt), *(None if c is None else _text(c) for c in culture)]
    if spec:
        return _bound_format(_text(spec), 1 + len(texts))(from_storage(v, _text(spec)), *texts)
    value: Any = v
    if isinstance(v, str):
        try:
            value = Decimal(v)
        except ArithmeticError:
            value = _when(v)
    return format_value(value, *texts)


def _str(v: Any, length: Any = 10, decimals: Any = 0) -> Any:
    return str_function(float(v), _int(length), _int(decimals))


# ---------------------------------------------------------------------------------- dates
def _dateadd(part: Any, n: Any, d: Any, spec: Any = "") -> Any:
    """DATEADD of a stored value of type ``spec`` (the transpiler's; '' when it did not know
    the type: then as the stored text looks)."""
    p = dt.datepart_name(_text(part), "dateadd")
    value = _when(d)
    if spec:
        t = parse_type_spec(_text(spec))
        kind, scale = t.name, t.scale
    else:
        kind = "datetimeoffset" if isinstance(value, datetime) and value.tzinfo else \
            "time" if isinstance(value, time) else "datetime2"
        scale = None
    return dt.dateadd(p, _int(n), value, kind, scale)


def _datediff(part: Any, a: Any, b: Any) -> int:
    return dt.datediff(dt.datepart_name(_text(part), "datediff"), _when(a), _when(b))


def _datediff_big(part: Any, a: Any, b: Any) -> int:
    return dt.datediff(dt.datepart_name(_text(part), "datediff_big"), _when(a), _when(b), True)


def _datepart(part: Any, d: Any, datefirst: Any = 7) -> int:
    return dt.datepart(dt.datepart_name(_text(part), "datepart"), _when(d), _int(datefirst))


def _datename(part: Any, d: Any) -> str:
    return dt.datename(dt.datepart_name(_text(part), "datename"), _when(d))


def _eomonth(d: Any, months: Any = 0) -> date:
    return dt.eomonth(_when(d), _int(months))


def _parts_of(kind: str) -> Callable[..., Any]:
    """DATEFROMPARTS and the other *FROMPARTS making ``kind`` (values/date_builtins.py)."""
    def make(*parts: Any) -> Any:
        return from_parts(kind, [_int(p) for p in parts])
    make.__name__ = f"{kind}fromparts"
    return make


def _isdate(v: Any) -> int:
    if v is None:
        return 0
    return int(dt.is_date_text(_text(v)))


def _isnumeric(v: Any) -> int:
    if v is None:
        return 0
    if isinstance(v, (int, float)):
        return 1
    return isnumeric(_text(v))


# ------------------------------------------------------------------------------------ xml
# A context node of ``CROSS APPLY t.x.nodes(…) AS n(c)`` as the query carries it: this
# mark (a character xml text cannot hold) and the JSON of [document text, [[nodes() query,
# namespaces, 0-based position], …]], the steps from the document to the node (a nested
# nodes() over a context node adds one). Each xml method reads it back here.
_CONTEXT_MARK = "\x01"


def _xml(v: Any) -> Any:
    from ....values.xml_value import XmlValue  # start-up laziness: lxml

    if isinstance(v, bytes):
        return XmlValue.from_bytes(v)
    text = _text(v)
    if text.startswith(_CONTEXT_MARK):
        return _context_node(text)
    return XmlValue.parse(text)


@lru_cache(maxsize=64)
def _context_node(token: str) -> Any:
    """The context node a ``tsqlb_xml_nodes`` token names (its document parsed once per
    token: each xml method on the row reads the same token)."""
    doc, steps = json.loads(token[len(_CONTEXT_MARK):])
    node = _xml(doc)
    for query, ns, position in steps:
        node = node.nodes(query, _namespaces(ns))[position]
    return node


def _xml_nodes(x: Any, query: Any, ns: Any = None) -> str:
    """``tsqlb_xml_nodes``: ``x.nodes(query)`` of an outer row's value as a JSON array of
    one-item rows, each a context-node token (see ``_CONTEXT_MARK``), in document order;
    a NULL value has no nodes."""
    if x is None:
        return "[]"
    value = _xml(x)
    text = None if isinstance(x, bytes) else _text(x)
    if text is not None and text.startswith(_CONTEXT_MARK):
        doc, steps = json.loads(text[len(_CONTEXT_MARK):])
    else:  # the document as SQL Server keeps it, which parses back to the same nodes
        doc, steps = value.to_string(), []
    found = value.nodes(_text(query), _namespaces(ns))
    return json.dumps([[_CONTEXT_MARK + json.dumps([doc, [*steps, [_text(query), ns, i]]])]
                       for i in range(len(found))])


def _namespaces(spec: Any) -> dict[str, str]:
    """``'p=urn:a;=urn:default'`` → {'p': 'urn:a', '': 'urn:default'}."""
    return {} if spec is None else dict(namespace_pairs(_text(spec)))


def _xml_value(x: Any, query: Any, spec: Any, ns: Any = None) -> Any:
    return _xml(x).value(_text(query), _text(spec), _namespaces(ns))


def _xml_exist(x: Any, query: Any, ns: Any = None) -> Any:
    if x is None:
        return None
    return _xml(x).exist(_text(query), _namespaces(ns))


def _xml_query(x: Any, query: Any, ns: Any = None) -> Any:
    return _xml(x).query(_text(query), _namespaces(ns)).to_string()


def _json_value(text: Any, path: Any) -> Any:
    return json_value(_text(text), _text(path))


def _json_query(text: Any, path: Any = "$") -> Any:
    return json_query(_text(text), _text(path))


def _openjson(text: Any, path: Any, schema: Any) -> str:
    """``tsqlb_openjson``: OPENJSON of an outer row's value (CROSS APPLY OPENJSON(t.c)) as
    a JSON array of its rows, which the query reads back through ``json_each``; ``schema``
    is the JSON text of the WITH columns' ``[name, path, AS JSON]`` or NULL."""
    columns = None if schema is None else [(n, p, bool(j)) for n, p, j in json.loads(schema)]
    rows = openjson_rows(None if text is None else _text(text),
                         None if path is None else _text(path), columns)
    return json.dumps([list(r) for r in rows], ensure_ascii=False)


def _isjson(text: Any) -> Any:
    return None if text is None else int(is_json(_text(text)))


def _hashbytes(algorithm: Any, data: Any) -> Any:
    raw = data if isinstance(data, bytes) else _text(data).encode("utf-16-le", "surrogatepass")
    return hashbytes(_text(algorithm), raw)  # text is stored nvarchar: hashed as UTF-16LE


def _getdate() -> str:
    return _stored(dt.round_datetime(datetime.now()))


def _getutcdate() -> str:
    return _stored(dt.round_datetime(_utc_now()))


def _sysdatetime() -> str:
    return _stored(datetime.now())


def _sysutcdatetime() -> str:
    return _stored(_utc_now())


def _utc_now() -> datetime:
    return datetime.now(UTC).replace(tzinfo=None)


def _newid() -> str:
    return str(uuid.uuid4()).upper()


def _newsequentialid() -> str:
    return str(newsequentialid()).upper()


def _guarded(name: str, fn: Callable[..., Any]) -> Callable[..., Any]:
    """Turn Python failures on odd storage values into T-SQL errors, never tracebacks."""
    def call(*args: Any) -> Any:
        try:
            return fn(*args)
        except TSqlError:
            raise
        except (ValueError, TypeError, OverflowError, ArithmeticError, IndexError,
                UnicodeError) as e:
            raise tsql_error(8116, type(args[0]).__name__ if args else "NULL", 1,
                             name) from e
    call.__name__ = f"tsql_{name}"
    return call


# ------------------------------------------------------------------------------- convert
def _convert(value: Any, target: Any, style: Any = None, source: Any = None,
             try_: bool = False) -> Any:
    """CAST / CONVERT inside a query with the interpreter's conversion rules.

    The storage layer calls ``convert(value, target spec, style, source spec or NULL)``: the
    stored value is read back as a value of its source type (typeless values by their
    storage class), converted exactly as the interpreter converts, and written back in the
    storage representation — so ``CAST(message_body AS xml)`` reads UTF-16 with or without
    a byte-order mark as SQL Server's XML parser does."""
    if value is None:
        return None
    source_spec = _text(source) if source is not None else None
    if source_spec is None:
        source_spec = "nvarchar(max)" if isinstance(value, str) else column_spec_for(value)
    src = parse_type_spec(source_spec or "nvarchar(max)")
    dst = parse_type_spec(_text(target))
    py = from_storage(value, source_spec)
    if src.is_xml and isinstance(py, str):
        py = _xml(py)
    out = converter(src, dst, style=None if style is None else int(style), try_=try_)(py)
    if dst.is_xml and out is not None:
        return out.to_string()
    return to_storage(out, dst.spec(), native_decimal=False)  # SqliteBackend.native_decimal


def _parse(value: Any, target: Any, try_: Any, *culture: Any) -> Any:
    """PARSE / TRY_PARSE of a stored value (``culture``: absent for the session's; given as
    NULL, the result is NULL)."""
    if culture and culture[0] is None:
        return None
    dst = parse_type_spec(_text(target))
    text = None if value is None else _text(value)
    out = parse_value(text, dst, _text(culture[0]) if culture else None, try_=bool(try_))
    return to_storage(out, dst.spec(), native_decimal=False)  # SqliteBackend.native_decimal


def _try_convert(value: Any, target: Any, style: Any = None, source: Any = None) -> Any:
    """TRY_CAST / TRY_CONVERT: :func:`_convert` giving NULL where a value fails to convert
    (a conversion SQL Server never allows still raises, e.g. Msg 529)."""
    return _convert(value, target, style, source, try_=True)


TSQL_FUNCTIONS: dict[str, tuple[int, Callable[..., Any]]] = {
    name: (nargs, _guarded(name, fn)) for name, (nargs, fn) in {
        "convert": (-1, _convert), "try_convert": (-1, _try_convert),
        "len": (1, _nulls(_len)), "datalength": (-1, _nulls(_datalength)),
        "charindex": (-1, _nulls(_charindex)), "patindex": (2, _nulls(
            lambda p, s: patindex(_text(p), _text(s)))),
        "substring": (3, _nulls(_substring)), "left": (2, _nulls(_left)),
        "right": (2, _nulls(_right)), "replace": (3, _nulls(_replace)),
        "replicate": (2, _nulls(_replicate)), "stuff": (4, _stuff_fn),
        "reverse": (1, _nulls(lambda v: _text(v)[::-1])),
        "upper": (1, _nulls(lambda v: _text(v).upper())),
        "lower": (1, _nulls(lambda v: _text(v).lower())),
        "quotename": (-1, _nulls(_quotename)), "concat": (-1, _concat),
        "concat_ws": (-1, _concat_ws), "isnull": (2, _isnull),
        "char": (1, _nulls(_char)), "nchar": (1, _nulls(_nchar)),
        "unicode": (1, _nulls(_unicode)), "ascii": (1, _nulls(_ascii)),
        "space": (1, _nulls(_space)), "like": (-1, _like), "format": (-1, _format),
        "str": (-1, _nulls(_str)),
        "dateadd": (-1, _nulls(_dateadd)), "datediff": (3, _nulls(_datediff)),
        "datediff_big": (3, _nulls(_datediff_big)), "datepart": (-1, _nulls(_datepart)),
        "datename": (2, _nulls(_datename)),
        "day": (1, _nulls(lambda d: dt.datepart("day", _when(d)))),
        "month": (1, _nulls(lambda d: dt.datepart("month", _when(d)))),
        "year": (1, _nulls(lambda d: dt.datepart("year", _when(d)))),
        "eomonth": (-1, _nulls(_eomonth)), "isdate": (1, _isdate),
        **{f"{kind}fromparts": (n, _nulls(_parts_of(kind))) for kind, n in (
            ("date", 3), ("datetime", 7), ("datetime2", 8), ("smalldatetime", 5),
            ("time", 5))},
        "isnumeric": (1, _isnumeric),
        "getdate": (0, _getdate), "current_timestamp": (0, _getdate),
        "getutcdate": (0, _getutcdate), "sysdatetime": (0, _sysdatetime),
        "newid": (0, _newid), "newsequentialid": (0, _newsequentialid),
        "xml_value": (-1, _nulls(_xml_value)), "xml_exist": (-1, _xml_exist),
        "xml_query": (-1, _nulls(_xml_query)),
        "json_value": (2, _nulls(_json_value)), "json_query": (-1, _nulls(_json_query)),
        "isjson": (1, _isjson), "hashbytes": (2, _nulls(_hashbytes)),
    }.items()
}


def _engine_functions() -> dict[str, tuple[int, Callable[..., Any]]]:
    f = TSQL_FUNCTIONS
    return {
        # The names the transpiler writes on either backend (PostgreSQL: PL/pgSQL) for a
        # conversion to a column's storage form, the clock, and built-ins it writes itself.
        "tsqlb_cast": f["convert"], "tsqlb_try_cast": f["try_convert"],
        "tsqlb_datalength": f["datalength"], "tsqlb_parse": (-1, _parse),
        "tsqlb_len": f["len"], "tsqlb_left": f["left"], "tsqlb_right": f["right"],
        "tsqlb_dateadd": f["dateadd"], "tsqlb_datediff": f["datediff"],
        "tsqlb_datepart": f["datepart"], "tsqlb_newid": f["newid"],
        "tsqlb_openjson": (3, _guarded("openjson", _openjson)),
        "tsqlb_xml_nodes": (-1, _guarded("nodes", _xml_nodes)),
        "tsqlb_getdate": (0, _guarded("sysdatetime", _sysdatetime)),
        "tsqlb_getutcdate": (0, _guarded("sysutcdatetime", _sysutcdatetime)),
        # A sql_variant column's value as a column of its base type, a property of it.
        "tsqlb_variant_value": (1, variant_backend_value),
        "tsqlb_variant_field": (2, variant_field),
    }


ENGINE_FUNCTIONS = _engine_functions()
