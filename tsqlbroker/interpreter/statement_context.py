"""What a running statement hands the engine: the :class:`ExecContext` of its frame (the
session's connection, transaction, database, temp tables, the frame's table variables), and
the trigger hooks that context carries.

Kept apart from ``dml_stmts.py`` so that modules below the DML bridge (function calls, SET
options, system procedures) build a context without importing it: ``dml_stmts.py`` imports
them.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from tsqlbroker.engine.context import ExecContext

if TYPE_CHECKING:
    from .frames import Frame


class TriggerHooks:
    """What ``triggers.py`` plugs in: ``fire(frame, events)`` runs the triggers a
    statement's writes call for; ``instead_active(session)`` names the tables whose
    INSTEAD OF trigger is running."""

    fire: Callable[[Frame, list[Any]], None] | None = None
    instead_active: Callable[[Any], frozenset[int]] | None = None

    def active(self, s: Any) -> frozenset[int]:
        """The tables whose INSTEAD OF trigger session ``s`` is running."""
        return self.instead_active(s) if self.instead_active is not None else frozenset()


TRIGGERS = TriggerHooks()


def exec_context(f: Frame) -> ExecContext:
    """The engine ExecContext for the running statement of frame ``f``."""
    s = f.session
    return ExecContext(s.conn, s.txn_for_statement(), s.db_id, s.id, s.temp_tables,
                       f.table_vars, identity_insert=s.identity_insert,
                       instead_active=TRIGGERS.active(s))
