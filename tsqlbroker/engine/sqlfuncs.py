"""Backend functions and collation the transpiled SQL relies on (SQLite).

SQLite lacks T-SQL's date arithmetic, ``LEN`` semantics, ``NEWID`` and its conversions, so
the transpiler rewrites those calls to ``tsqlb_<name>(…)`` implemented here in Python, and
calls of functions the interpreter registers (:func:`register_functions`) to
``tsql_<name>(…)``. Every connection also gets the ``TSQL_CI`` collation: case-insensitive,
trailing spaces ignored — SQL Server's default ``SQL_Latin1_General_CP1_CI_AS`` behaviour.

A Python function cannot raise through SQLite with its own message, so a ``TSqlError``
raised inside one is parked in a thread-local and re-raised by the caller
(:func:`take_pending_error`) when SQLite reports the failed call.
"""

from __future__ import annotations

import base64
import datetime as dt
import math
import threading
import unicodedata
import uuid
from collections.abc import Callable
from decimal import ROUND_DOWN, ROUND_HALF_UP, Context, Decimal
from typing import Any

from ..errors import TSqlError, tsql_error
from ..storage.store import Store, StoreConnection
from .seqstate import sqlite_nextval
from .sqltypes import CI_COLLATION, from_storage, parse_spec, to_storage

_pending = threading.local()


def take_pending_error() -> TSqlError | None:
    """The TSqlError a backend function raised during the last statement, if any."""
    err: TSqlError | None = getattr(_pending, "error", None)
    _pending.error = None
    return err


def clear_pending_error() -> None:
    _pending.error = None


def _guard(fn: Callable[..., Any]) -> Callable[..., Any]:
    def call(*args: Any) -> Any:
        try:
            return backend_value(fn(*args))
        except TSqlError as e:
            _pending.error = e
            raise
    return call


def backend_value(value: Any) -> Any:
    """A Python value in a form SQLite accepts as a function result or parameter."""
    if value is None or isinstance(value, (int, float, str, bytes)):
        return int(value) if isinstance(value, bool) else value
    if isinstance(value, Decimal):
        return int(value) if value == value.to_integral_value() and \
            value.as_tuple().exponent >= 0 else float(value)
    if isinstance(value, uuid.UUID):
        return str(value).upper()
    if isinstance(value, dt.datetime):
        if value.tzinfo is not None:
            return value.isoformat(sep=" ", timespec="microseconds")
        return value.strftime("%Y-%m-%d %H:%M:%S.%f")
    if isinstance(value, (dt.date, dt.time)):
        return value.isoformat()
    if isinstance(value, (bytearray, memoryview)):
        return bytes(value)
    return str(value)


def _collate(a: str, b: str) -> int:
    x, y = _collation_key(a), _collation_key(b)
    return (x > y) - (x < y)


def _collation_key(s: str) -> tuple[str, str]:
    """Sort key of SQL Server's default collation (case-insensitive, accent-sensitive,
    trailing spaces ignored): letters first by their base letter (é sorts with e, before
    f), then accents break ties — as PostgreSQL's ICU collation ``tsqlb_ci`` sorts."""
    folded = s.rstrip(" ").casefold()
    if folded.isascii():
        return folded, folded
    base = "".join(c for c in unicodedata.normalize("NFD", folded)
                   if not unicodedata.combining(c))
    return base, folded


# -- engine built-ins -----------------------------------------------------------------------
def _getdate() -> str:
    return dt.datetime.now().strftime("%Y-%m-%d %H:%M:%S.%f")


def _getutcdate() -> str:
    return dt.datetime.now(dt.UTC).replace(tzinfo=None).strftime(
        "%Y-%m-%d %H:%M:%S.%f")


def _newid() -> str:
    return str(uuid.uuid4()).upper()


def _len(value: Any) -> int | None:
    if value is None:
        return None
    text = value if isinstance(value, str) else str(backend_value(value))
    return len(text.rstrip(" "))


def _base64(value: Any) -> str | None:
    """Binary as FOR XML / FOR JSON write it: base64, no line breaks."""
    if value is None:
        return None
    data = value if isinstance(value, bytes) else str(value).encode("utf-8")
    return base64.b64encode(data).decode("ascii")


def _datalength(value: Any, spec: str = "") -> int | None:
    if value is None:
        return None
    if isinstance(value, bytes):
        return len(value)
    if isinstance(value, str):
        if spec and not spec.startswith(("n", "sysname", "xml")):
            # char / varchar: one byte per character (single-byte code page).
            return len(value.encode("latin-1", errors="replace"))
        # nvarchar storage: two bytes per UTF-16 code unit.
        return len(value.encode("utf-16-le"))
    if isinstance(value, float):
        return 8
    return 4 if -2**31 <= int(value) < 2**31 else 8


def _left(value: Any, n: Any) -> Any:
    if value is None or n is None:
        return None
    return value[: max(int(n), 0)] if isinstance(value, (str, bytes)) else str(value)[: int(n)]


def _right(value: Any, n: Any) -> Any:
    if value is None or n is None:
        return None
    text = value if isinstance(value, (str, bytes)) else str(value)
    k = max(int(n), 0)
    return text[len(text) - k:] if k else text[:0]


_UNITS = {
    "year": "year", "yy": "year", "yyyy": "year", "quarter": "quarter", "qq": "quarter",
    "q": "quarter", "month": "month", "mm": "month", "m": "month", "dayofyear": "dayofyear",
    "dy": "dayofyear", "y": "dayofyear", "day": "day", "dd": "day", "d": "day",
    "week": "week", "wk": "week", "ww": "week", "weekday": "weekday", "dw": "weekday",
    "hour": "hour", "hh": "hour", "minute": "minute", "mi": "minute", "n": "minute",
    "second": "second", "ss": "second", "s": "second", "millisecond": "millisecond",
    "ms": "millisecond", "microsecond": "microsecond", "mcs": "microsecond",
    "nanosecond": "nanosecond", "ns": "nanosecond",
}


def _unit(name: Any) -> str:
    unit = _UNITS.get(str(name).lower())
    if unit is None:
        raise tsql_error(155, str(name), "datepart")
    return unit


def _as_datetime(value: Any) -> dt.datetime:
    if isinstance(value, dt.datetime):
        return value
    parsed = from_storage(to_storage(value, "datetime2"), "datetime2")
    assert isinstance(parsed, dt.datetime)
    return parsed


def _dateadd(unit: Any, n: Any, value: Any) -> Any:
    if value is None or n is None:
        return None
    u, k, d = _unit(unit), int(n), _as_datetime(value)
    if u in ("year", "quarter", "month"):
        months = k * {"year": 12, "quarter": 3, "month": 1}[u]
        total = d.month - 1 + months
        year, month = d.year + total // 12, total % 12 + 1
        import calendar
        day = min(d.day, calendar.monthrange(year, month)[1])
        d = d.replace(year=year, month=month, day=day)
    else:
        seconds = {"dayofyear": 86400, "day": 86400, "weekday": 86400, "week": 604800,
                   "hour": 3600, "minute": 60, "second": 1, "millisecond": 0.001,
                   "microsecond": 1e-6, "nanosecond": 1e-9}[u]
        d = d + dt.timedelta(seconds=k * seconds)
    return d.strftime("%Y-%m-%d %H:%M:%S.%f")


def _datediff(unit: Any, start: Any, end: Any) -> int | None:
    if start is None or end is None:
        return None
    u, a, b = _unit(unit), _as_datetime(start), _as_datetime(end)
    if u == "year":
        return b.year - a.year
    if u == "quarter":
        return (b.year - a.year) * 4 + (b.month - 1) // 3 - (a.month - 1) // 3
    if u == "month":
        return (b.year - a.year) * 12 + b.month - a.month
    if u in ("day", "dayofyear", "weekday"):
        return (b.date() - a.date()).days
    if u == "week":
        # Boundaries crossed (weeks start on Sunday, SQL Server's default DATEFIRST 7).
        sa = a.date() - dt.timedelta(days=(a.weekday() + 1) % 7)
        sb = b.date() - dt.timedelta(days=(b.weekday() + 1) % 7)
        return (sb - sa).days // 7
    trunc = {"hour": "%Y%m%d%H", "minute": "%Y%m%d%H%M", "second": "%Y%m%d%H%M%S"}
    if u in trunc:
        size = {"hour": 3600, "minute": 60, "second": 1}[u]
        fa = dt.datetime.strptime(a.strftime(trunc[u]), trunc[u])
        fb = dt.datetime.strptime(b.strftime(trunc[u]), trunc[u])
        return int((fb - fa).total_seconds() // size)
    micro = (b - a) // dt.timedelta(microseconds=1)
    return {"millisecond": micro // 1000, "microsecond": micro,
            "nanosecond": micro * 1000}[u]


def _datepart(unit: Any, value: Any) -> int | None:
    if value is None:
        return None
    u, d = _unit(unit), _as_datetime(value)
    if u == "quarter":
        return (d.month - 1) // 3 + 1
    if u == "dayofyear":
        return d.timetuple().tm_yday
    if u == "weekday":
        return (d.weekday() + 1) % 7 + 1
    if u == "week":
        jan1 = dt.date(d.year, 1, 1)
        return ((d.date() - jan1).days + (jan1.weekday() + 1) % 7) // 7 + 1
    if u == "millisecond":
        return d.microsecond // 1000
    if u == "microsecond":
        return d.microsecond
    if u == "nanosecond":
        return d.microsecond * 1000
    return int(getattr(d, u))


def _cast(value: Any, spec: str, style: Any = None) -> Any:
    if value is None:
        return None
    t = parse_spec(spec)
    if t.is_string:
        if isinstance(value, bytes):
            text = value.decode("utf-16-le" if t.name.startswith("n") else "latin-1",
                                errors="replace")
        elif isinstance(value, float):
            text = _float_text(value)
        else:
            text = str(value)
        limit = t.max_length
        return text[:limit] if limit is not None else text
    if t.name in ("binary", "varbinary") and isinstance(value, str):
        return value.encode("latin-1", errors="replace")
    return to_storage(value, spec)


def _float_text(value: float) -> str:
    text = repr(value)
    return text.removesuffix(".0")


def _try_cast(value: Any, spec: str) -> Any:
    try:
        return _cast(value, spec)
    except TSqlError:
        return None


class _StringAggOrdered:
    """``STRING_AGG(value, sep) WITHIN GROUP (ORDER BY k1 [DESC], …)`` as an aggregate
    called ``tsqlb_string_agg(value, sep, k1, desc1, k2, desc2, …)`` (SQLite before 3.44
    has no ORDER BY inside aggregates)."""

    def __init__(self) -> None:
        self.items: list[tuple[list[Any], str]] = []
        self.sep = ""

    def step(self, value: Any, sep: Any, *keys: Any) -> None:
        if sep is not None:
            self.sep = str(sep)
        if value is not None:
            self.items.append((list(keys), str(value)))

    def finalize(self) -> Any:
        if not self.items:
            return None
        n = len(self.items[0][0]) // 2
        items = list(self.items)
        # Stable sorts from the last key to the first; NULLs sort first ascending.
        for k in reversed(range(n)):
            desc = bool(items[0][0][2 * k + 1])
            items.sort(key=lambda it, k=k: (it[0][2 * k] is not None, _sort_key(it[0][2 * k])),
                       reverse=desc)
        return self.sep.join(v for _keys, v in items)


def _sort_key(value: Any) -> Any:
    if value is None:
        return 0
    if isinstance(value, str):
        return value.rstrip(" ").casefold()
    return value


def _divisor(value: Any) -> Any:
    """The divisor of ``/`` and ``%`` on SQLite, which would give NULL for a zero one;
    SQL Server raises Msg 8134."""
    if value is not None and not isinstance(value, (str, bytes)) and value == 0:
        raise tsql_error(8134)
    return value


def _recursion_level(level: int, limit: int) -> int:
    """The recursion level of a row a recursive CTE makes; Msg 530 beyond the statement's
    MAXRECURSION (recursion.py)."""
    if level > limit:
        raise tsql_error(530, limit)
    return level


BUILTINS: dict[str, tuple[int, Callable[..., Any]]] = {
    "tsqlb_divisor": (1, _divisor), "tsqlb_recursion_level": (2, _recursion_level),
    "tsqlb_getdate": (0, _getdate), "tsqlb_getutcdate": (0, _getutcdate),
    "tsqlb_newid": (0, _newid), "tsqlb_len": (1, _len), "tsqlb_datalength": (-1, _datalength),
    "tsqlb_left": (2, _left), "tsqlb_right": (2, _right), "tsqlb_dateadd": (3, _dateadd),
    "tsqlb_datediff": (3, _datediff), "tsqlb_datepart": (2, _datepart),
    "tsqlb_cast": (-1, _cast), "tsqlb_try_cast": (2, _try_cast),
    "tsqlb_base64": (1, _base64),
}


def _registry(store: Store) -> dict[str, tuple[int, Callable[..., Any]]]:
    reg: dict[str, tuple[int, Callable[..., Any]]] = store.extension(
        "tsql_functions", lambda _s: {})
    return reg


def register_functions(store: Store, functions: dict[str, tuple[int, Callable[..., Any]]]
                       ) -> None:
    """Register T-SQL scalar functions (``name → (nargs or -1, fn)``) for use in SQL: the
    transpiler rewrites ``name(…)`` to ``tsql_name(…)``. ``fn`` receives backend values
    (int, float, str, bytes or None) and may return any engine value (adapted on return);
    a TSqlError it raises surfaces unchanged."""
    reg = _registry(store)
    for name, entry in functions.items():
        reg[name.lower()] = entry
    store.extensions["tsql_functions_version"] = store.extensions.get(
        "tsql_functions_version", 0) + 1


def registered_functions(store: Store) -> dict[str, tuple[int, Callable[..., Any]]]:
    """The interpreter's registered functions (lower-case name → (nargs, fn))."""
    return dict(_registry(store))


def functions_version(store: Store) -> int:
    version: int = store.extensions.get("tsql_functions_version", 0)
    return version


def install_connect_hook(store: Store) -> None:
    """Give every new SQLite connection of ``store`` the collation and functions, so that
    any module reading user tables (their text columns are declared ``COLLATE TSQL_CI``)
    works on any pooled connection."""
    def hook(dbapi: Any) -> None:
        _register(store, dbapi)

    store.extension("tsqlb_connect_hook", lambda s: s.add_sqlite_connect_hook(hook) or True)


def _floor(value: Any) -> Any:
    """FLOOR that lets NULL through (SQLAlchemy registers ``math.floor``, which raises on
    it) and keeps a float a float, as SQL Server's FLOOR keeps its argument's type."""
    if value is None or isinstance(value, int):
        return value
    if isinstance(value, float):
        return float(math.floor(value)) if math.isfinite(value) else value
    return math.floor(float(value))


# Rounding values of up to 38 digits, or floats of up to 309 (the default context has 28).
_EXACT = Context(prec=1000)


def _round(value: Any, places: Any = 0, function: Any = 0) -> Any:
    """ROUND as SQL Server rounds (half away from zero on the written digits), with
    negative places too (``ROUND(1234, -2)`` is 1200; SQLite's own leaves it whole); a
    ``function`` other than 0 truncates instead."""
    if value is None or places is None:
        return None
    if isinstance(value, str):
        try:
            value = float(value)
        except ValueError:
            return None
    n = int(places)
    d = Decimal(repr(value)) if isinstance(value, float) else Decimal(value)
    if not d.is_finite():
        return value
    d = d.quantize(Decimal(1).scaleb(-max(min(n, 400), -400)),
                   rounding=ROUND_DOWN if function else ROUND_HALF_UP, context=_EXACT)
    return int(d) if isinstance(value, int) else float(d)


def _register(store: Store, dbapi: Any) -> None:
    dbapi.create_collation(CI_COLLATION, _collate)
    dbapi.create_function("floor", 1, _floor, deterministic=True)
    dbapi.create_function("round", 2, _round, deterministic=True)
    dbapi.create_function("round", 3, _round, deterministic=True)
    dbapi.create_aggregate("tsqlb_string_agg", -1, _StringAggOrdered)
    for name, (nargs, fn) in BUILTINS.items():
        dbapi.create_function(name, nargs, _guard(fn))
    for name, (nargs, fn) in _registry(store).items():
        dbapi.create_function(f"tsql_{name}", nargs, _guard(fn))
    dbapi.create_function("tsqlb_nextval", 1, _guard(sqlite_nextval(dbapi)))
    from .udfbridge import sqlite_functions  # udfbridge imports this module

    for name, (nargs, fn) in sqlite_functions(store).items():
        dbapi.create_function(name, nargs, _guard(fn))


def prepare_connection(conn: StoreConnection) -> None:
    """Make sure this connection's backend session has the collation and functions (cheap
    when nothing changed since the last call)."""
    if conn.dialect != "sqlite":
        return
    dbapi = conn.conn.connection.dbapi_connection
    info = conn.conn.connection.info
    version = functions_version(conn.store)
    if info.get("tsqlb_prepared") == version:
        return
    _register(conn.store, dbapi)
    info["tsqlb_prepared"] = version
