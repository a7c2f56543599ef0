"""Run-time frames: the variables of one batch, procedure body or dynamic SQL string.

T-SQL variables belong to the batch or procedure that declares them (``BEGIN…END`` opens no
scope), so a frame is a flat list of values indexed by the slot the compiler gave each
variable. Compiled closures read ``frame.v[slot]`` directly — no name lookups at run time.
"""

from __future__ import annotations

from typing import Any


class Frame:
    """The variables and per-scope state of one running batch or procedure."""

    __slots__ = (
        "cursors",
        "level",
        "proc",
        "proc_id",
        "scope_identity",
        "session",
        "table_vars",
        "v",
    )

    # ``session`` is the running :class:`~.session.Session`, typed ``Any``: the session module
    # builds frames, so naming its class here would close an import cycle.
    def __init__(self, session: Any, nslots: int, *, proc: str | None = None,
                 level: int = 0, proc_id: int | None = None) -> None:
        self.v: list[Any] = [None] * nslots
        self.session = session
        # The procedure's name (for error messages and OBJECT_NAME(@@PROCID)), None in a batch.
        self.proc = proc
        self.proc_id = proc_id
        # @@NESTLEVEL of this scope: 0 in a batch, 1 in a procedure called from it …
        self.level = level
        # Table variables declared in this scope: lower-case name -> physical table name.
        self.table_vars: dict[str, str] = {}
        # LOCAL cursors and cursor variables of this scope: lower-case name -> Cursor.
        self.cursors: dict[str, Any] = {}
        # SCOPE_IDENTITY(): the last identity value inserted by a statement of this scope.
        self.scope_identity: Any = None

    def __repr__(self) -> str:
        return f"Frame(proc={self.proc!r}, level={self.level}, v={self.v!r})"
