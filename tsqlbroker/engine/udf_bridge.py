"""The bridge through which storage queries call interpreted T-SQL functions: the
interpreter registers a :class:`UdfBridge` per store (``register_bridge``); SQLite
connections get the ``tsqlb_udf`` connection function from :func:`udf_functions`.

Kept apart from ``udf_calls.py`` (which rewrites calls with sqlglot) so that opening an SQLite
connection does not import sqlglot: a batch without storage queries never loads it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from ..storage.function_registry import register_connection_functions
from ..storage.store import Store
from ..storage.stored_values import from_storage, spec_of_value, to_storage

# (database or None, schema or None, name) as written.
UdfName = tuple["str | None", "str | None", str]
SPEC_SEP = "|"


@dataclass(frozen=True)
class UdfInfo:
    """What binding needs of a scalar UDF: its return type spec and parameter count."""

    return_spec: str | None
    nparams: int


class UdfBridge(Protocol):
    """What the interpreter provides (``register_bridge``) so queries can call T-SQL."""

    def udf_info(self, session_id: int, name: UdfName) -> UdfInfo | None:
        """The scalar function ``name`` as the session resolves it (None: no such one)."""

    def call_udf(self, session_id: int, name: UdfName,
                 args: Sequence[tuple[Any, str | None]]) -> Any:
        """Run the function with ``(Python value, type spec)`` arguments; its value."""

    def call_table_function(self, session_id: int, name: UdfName,
                            args: Sequence[tuple[Any, str | None] | None]) -> Any:
        """Run a multi-statement table-valued function (argument None: DEFAULT); the
        ResultSet of its RETURNS table (``tvf.py``)."""

    def session_names(self) -> frozenset[str]:
        """Lower-case names of the session-aware built-ins :meth:`session_value` runs."""

    def session_value(self, session_id: int, name: str,
                      args: Sequence[tuple[Any, str | None]]) -> tuple[Any, str | None]:
        """A session-aware built-in (``USER_NAME()``, ``@@SPID`` …) evaluated for the session
        with constant arguments: (value, type spec)."""

    def viewer(self, session_id: int, db_id: int) -> frozenset[int] | None:
        """The database principals (the user, public, its roles) the session's security
        context views the catalog of database ``db_id`` as; None when it sees everything
        (sysadmin, dbo, VIEW ANY DEFINITION): :mod:`visibility`."""

    def holds_server(self, session_id: int, permission: str) -> bool:
        """Whether the session's security context holds the server permission
        ``permission`` (VIEW SERVER STATE for the server-scoped DMVs)."""

    def endpoint_viewer(self, session_id: int) -> frozenset[int] | None:
        """The login and server roles the session's security context views the endpoint
        catalog views as; None when it sees every endpoint (sysadmin, CONTROL SERVER, VIEW
        ANY DEFINITION, ALTER ANY ENDPOINT): :mod:`visibility`."""


def register_bridge(store: Store, bridge: UdfBridge) -> None:
    """Install the interpreter's bridge for ``store`` and the ``tsqlb_udf`` function that
    calls it from inside a query (on backends that run Python functions)."""
    store.extensions["tsqlb_udf_bridge"] = bridge
    register_connection_functions(store, udf_functions(store))


def bridge_of(store: Store) -> UdfBridge | None:
    """The registered bridge, if the interpreter registered one."""
    bridge: UdfBridge | None = store.extensions.get("tsqlb_udf_bridge")
    return bridge


def udf_functions(store: Store) -> dict[str, tuple[int, Any]]:
    """``tsqlb_udf``: a scalar UDF called from inside a query, through the bridge."""
    def udf(session_id: Any, db: Any, schema: Any, name: Any, ret: Any, specs: Any,
            *args: Any) -> Any:
        bridge = bridge_of(store)
        assert bridge is not None
        arg_specs = [s or None for s in str(specs).split(SPEC_SEP)] if args else []
        values = []
        for value, spec in zip(args, arg_specs, strict=True):
            py = from_storage(value, spec)
            values.append((py, spec or spec_of_value(py)))
        out = bridge.call_udf(int(session_id), (db or None, schema or None, str(name)),
                              values)
        return to_storage(out, ret or spec_of_value(out), store.backend.native_decimal)

    return {"tsqlb_udf": (-1, udf)}
