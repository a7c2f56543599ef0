"""What SQLite connections get so that transpiled SQL runs on them: the ``TSQL_CI``
collation (SQL Server's default ``SQL_Latin1_General_CP1_CI_AS`` behaviour), FLOOR / ROUND
as SQL Server computes them, the ordered ``tsqlb_string_agg`` aggregate, the checked divisor,
the recursion level, sequences' ``tsqlb_nextval``, and the T-SQL built-ins of
``tsql_functions.py`` (adapters over the values layer) — registered on each connection by
:func:`prepare_connection` and the store's connect hook.

A Python function cannot raise through SQLite with its own message, so a ``TSqlError``
raised inside one is parked in a thread-local and re-raised by the caller
(:func:`take_pending_error`) when SQLite reports the failed call.
"""

from __future__ import annotations

import base64
import math
import threading
from collections.abc import Callable, Mapping
from decimal import ROUND_DOWN, ROUND_HALF_UP, Context, Decimal
from types import MappingProxyType
from typing import Any

from ....errors import BindError, TSqlError, tsql_error
from ....values.operators import binary, collation_key
from ....values.types import parse_type
from ...function_registry import (
    connection_functions,
    functions_version,
    registered_functions,
)
from ...sequence_state import advance
from ...stored_values import backend_value
from ..base import BackendConnection, BackendStore
from .tsql_functions import ENGINE_FUNCTIONS, TSQL_FUNCTIONS

CI_COLLATION = "TSQL_CI"

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


def ci_collate(a: str, b: str) -> int:
    """The ``TSQL_CI`` collation: SQL Server's default (case-insensitive, accent-sensitive,
    trailing spaces ignored) by the values layer's :func:`collation_key`."""
    x, y = collation_key(a), collation_key(b)
    return (x > y) - (x < y)


def _base64(value: Any) -> str | None:
    """Binary as FOR XML / FOR JSON write it: base64, no line breaks."""
    if value is None:
        return None
    data = value if isinstance(value, bytes) else str(value).encode("utf-8")
    return base64.b64encode(data).decode("ascii")


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
    "tsqlb_base64": (1, _base64),
}


def query_functions(store: BackendStore) -> Mapping[str, tuple[int, Callable[..., Any]]]:
    """The T-SQL functions SQL may call on ``store``'s connections (``tsql_<name>``): the
    values layer's built-ins and what the store registered (one mapping per version of the
    registrations: the transpiler asks for every statement)."""
    version = functions_version(store)
    cached = store.extensions.get("tsqlb_query_functions")
    if cached is None or cached[0] != version:
        cached = (version, MappingProxyType({**TSQL_FUNCTIONS, **registered_functions(store)}))
        store.extensions["tsqlb_query_functions"] = cached
    functions: Mapping[str, tuple[int, Callable[..., Any]]] = cached[1]
    return functions


def install_connect_hook(store: BackendStore) -> None:
    """Give every new SQLite connection of ``store`` the collation and functions, so that
    any module reading user tables (their text columns are declared ``COLLATE TSQL_CI``)
    works on any pooled connection."""
    def hook(dbapi: Any) -> None:
        _register(store, dbapi)

    store.extension("tsqlb_connect_hook", lambda s: s.add_connect_hook(hook) or True)


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


def _checked_integer_steps() -> dict[str, Callable[[Any, Any], Any]]:
    """The values layer's integer operators by step ('+int', '/bigint' …): Msg 8115 past
    the result type's range, Msg 8134 for a zero divisor."""
    types = {name: parse_type(name) for name in ("tinyint", "smallint", "int", "bigint")}
    return {op + name: binary(op, t, t)[1] for op in "+-*/" for name, t in types.items()}


_CHECKED_STEPS = _checked_integer_steps()


def _checked_integer(first: Any, *steps: Any) -> Any:
    """``tsqlb_int_arith(a, '+int', b, '*bigint', c …)``: integer arithmetic left to right
    as SQL Server computes it (storage/backends/sqlite/rewrites.py writes the calls)."""
    result = first
    for i in range(0, len(steps), 2):
        result = _CHECKED_STEPS[steps[i]](result, steps[i + 1])
    return result


def _register(store: BackendStore, dbapi: Any) -> None:
    dbapi.create_collation(CI_COLLATION, ci_collate)
    dbapi.create_function("floor", 1, _floor, deterministic=True)
    dbapi.create_function("round", 2, _round, deterministic=True)
    dbapi.create_function("round", 3, _round, deterministic=True)
    dbapi.create_aggregate("tsqlb_string_agg", -1, _StringAggOrdered)
    dbapi.create_function("tsqlb_nextval", 1, _guard(_nextval(dbapi)))
    dbapi.create_function("tsqlb_int_arith", -1, _guard(_checked_integer), deterministic=True)
    for name, (nargs, fn) in (BUILTINS | ENGINE_FUNCTIONS).items():
        dbapi.create_function(name, nargs, _guard(fn))
    for name, (nargs, fn) in query_functions(store).items():
        dbapi.create_function(f"tsql_{name}", nargs, _guard(fn))
    for name, (nargs, fn) in connection_functions(store).items():
        dbapi.create_function(name, nargs, _guard(fn))


def prepare_connection(conn: BackendConnection) -> None:
    """Make sure this connection's SQLite session has the collation and functions (cheap
    when nothing changed since the last call)."""
    dbapi = conn.conn.connection.dbapi_connection
    info = conn.conn.connection.info
    version = functions_version(conn.store)
    if info.get("tsqlb_prepared") == version:
        return
    _register(conn.store, dbapi)
    info["tsqlb_prepared"] = version


_SEQUENCE_ROW = "SELECT * FROM tsqlb_sequences WHERE object_id = ?"
_SEQUENCE_UPDATE = ("UPDATE tsqlb_sequences SET current_value = ?, last_used_value = ?, "
                    "next_value = ? WHERE object_id = ?")


def _nextval(dbapi: Any) -> Callable[[int], int]:
    """``tsqlb_nextval(object_id)`` on connection ``dbapi``: it moves the sequence's state
    row through the same connection, inside the calling statement's transaction."""
    def nextval(object_id: int) -> int:
        cursor = dbapi.cursor()
        try:
            cursor.execute(_SEQUENCE_ROW, (object_id,))
            found = cursor.fetchone()
            if found is None:
                raise tsql_error(208, str(object_id), cls=BindError)
            row = {d[0]: v for d, v in zip(cursor.description, found, strict=True)}
            first, last, _cycles, following = advance(row, 1)
            cursor.execute(_SEQUENCE_UPDATE, (last, last, following, object_id))
        finally:
            cursor.close()
        return first
    return nextval
