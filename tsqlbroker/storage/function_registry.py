"""T-SQL scalar functions registered on a store for use inside its queries.

The interpreter (or any embedder) registers ``name → (nargs or -1, fn)``; the transpiler
rewrites ``name(…)`` to ``tsql_name(…)`` where the backend runs Python functions
(``Backend.query_functions``), and the backend installs them on its connections. The version
number tells prepared connections and cached plans that the set changed.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

Functions = dict[str, tuple[int, Callable[..., Any]]]


def _registry(store: Any) -> Functions:
    reg: Functions = store.extension("tsql_functions", lambda _s: {})
    return reg


def register_functions(store: Any, functions: Functions) -> None:
    """Register T-SQL scalar functions (``name → (nargs or -1, fn)``) for use in SQL. ``fn``
    receives backend values (int, float, str, bytes or None) and may return any engine value
    (adapted on return); a TSqlError it raises surfaces unchanged."""
    reg = _registry(store)
    for name, entry in functions.items():
        reg[name.lower()] = entry
    functions_changed(store)


def registered_functions(store: Any) -> Functions:
    """The functions registered on ``store`` (lower-case name → (nargs, fn))."""
    return dict(_registry(store))


def functions_changed(store: Any) -> None:
    """Note that the functions SQL may call on ``store`` changed (connections re-register)."""
    store.extensions["tsql_functions_version"] = store.extensions.get(
        "tsql_functions_version", 0) + 1


def functions_version(store: Any) -> int:
    """A number that changes whenever the functions of ``store`` change."""
    version: int = store.extensions.get("tsql_functions_version", 0)
    return version


def register_connection_functions(store: Any, functions: Functions) -> None:
    """Register functions the engine's own SQL calls under exactly these names (``tsqlb_udf``
    …): installed on the connections of a backend that runs Python functions, not offered
    to the transpiler as T-SQL built-ins."""
    store.extension("tsqlb_connection_functions", lambda _s: {}).update(functions)
    functions_changed(store)


def connection_functions(store: Any) -> Functions:
    """The functions registered by :func:`register_connection_functions`."""
    return dict(store.extensions.get("tsqlb_connection_functions", {}))
