"""Deferred imports for start-up time: a module a handler needs only when it runs.

``tsqlbroker -Q "PRINT 1"`` loads every statement handler module (compiling needs them),
but most of what those modules call — the DML engine and sqlglot behind it — is wanted only
when such a statement runs. A :class:`LazyModule` stands in for the module under its global
name and, on first attribute access, imports it and replaces itself in that namespace, so
later calls pay nothing beyond an ordinary global lookup.
"""

from __future__ import annotations

import importlib
from types import ModuleType
from typing import Any


class LazyModule:
    """Stands for module ``name`` as ``namespace[alias]`` until first used."""

    def __init__(self, name: str, namespace: dict[str, Any], alias: str) -> None:
        self.__dict__.update(_name=name, _namespace=namespace, _alias=alias)

    def load(self) -> ModuleType:
        """Import the module and put it in place of this stand-in."""
        module = importlib.import_module(self._name)
        self._namespace[self._alias] = module
        return module

    def __getattr__(self, attr: str) -> Any:
        return getattr(self.load(), attr)

    def __repr__(self) -> str:
        return f"<lazy module {self._name!r}>"
