"""DML triggers as the storage layer sees them: which triggers a table has, and the row
images a statement's writes leave for them.

A trigger is a catalog object of type ``TR`` whose parent is its table; its detail holds the
events (INSERT, UPDATE, DELETE), whether it is INSTEAD OF and whether it is disabled. The row
writer records a :class:`TriggerEvent` in the statement's :class:`ExecContext` for every
insert, update or delete on a table with enabled triggers (also when no row changed: an AFTER
trigger fires once per statement); for an INSTEAD OF trigger it records the rows without
writing them. The interpreter runs the triggers afterwards (``interpreter/triggers.py``).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from .catalog import ObjectRow


@dataclass(frozen=True)
class TriggerInfo:
    """One DML trigger of a table."""

    object_id: int
    name: str
    events: frozenset[str]
    instead_of: bool
    disabled: bool


@dataclass
class TriggerEvent:
    """What one write of a statement did to ``table`` (a TableInfo): the ``action``
    (INSERT, UPDATE, DELETE), the rows after (``inserted``) and before (``deleted``) as
    storage values in column order, and the columns it wrote (``UPDATE(col)``)."""

    table: Any
    action: str
    inserted: list[tuple[Any, ...]] = field(default_factory=list)
    deleted: list[tuple[Any, ...]] = field(default_factory=list)
    columns: frozenset[str] = frozenset()
    instead_of: bool = False


def trigger_detail(events: list[str], instead_of: bool, disabled: bool = False) -> str:
    """The catalog detail of a trigger."""
    return json.dumps({"events": events, "instead_of": instead_of, "disabled": disabled})


def trigger_from_row(row: ObjectRow) -> TriggerInfo:
    """Decode a trigger object's detail."""
    detail: dict[str, Any] = json.loads(row.detail or "{}")
    return TriggerInfo(row.object_id, row.name, frozenset(detail.get("events", ())),
                       bool(detail.get("instead_of")), bool(detail.get("disabled")))


def wants(table: Any, action: str, *, instead_of: bool) -> bool:
    """Whether ``table`` has an enabled trigger of the kind for ``action``."""
    return any(t.instead_of == instead_of and not t.disabled and action in t.events
               for t in table.triggers)
