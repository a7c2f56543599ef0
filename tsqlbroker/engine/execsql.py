"""Backend SQL exactly as the driver receives it, and running it.

Nothing rewrites a statement's text on its way to the backend: a literal or a quoted name
may hold anything (``'%s'``, ``'%(x)s'``, ``':x'``, ``'?'``, a column ``[c%s]``). Where a
statement has parameters, its placeholders are written in the driver's own form when the
text is made — by sqlglot's generator from ``exp.Placeholder`` nodes (:func:`generate`), or
by :class:`Marks` for the engine's hand-written statements:

* SQLite takes ``:name`` (its own parser tells placeholders from literals) and the text
  goes to the DBAPI as it is;
* PostgreSQL statements number their placeholders ``$1, $2 …`` and run through psycopg's
  ``RawCursor`` (``pgexec.run_raw``), which sends the text unread — psycopg's default
  cursor, and SQLAlchemy's ``text()``, would read ``%`` and ``:name`` inside literals.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from sqlglot import exp

from ..storage.backends.base import Backend
from ..storage.store import StoreConnection


@dataclass(frozen=True)
class BackendSql:
    """A statement in the driver's form: ``text`` and, where placeholders are numbered
    (PostgreSQL's ``$n``), the parameter name behind each number; None for ``:name``."""

    text: str
    names: tuple[str, ...] | None = None

    def wrap(self, before: str, after: str) -> BackendSql:
        """The statement inside other parameterless text (a derived table …)."""
        return BackendSql(before + self.text + after, self.names)


class Rows(Protocol):
    """What a statement returns (a SQLAlchemy ``CursorResult`` or the PostgreSQL rows)."""

    def keys(self) -> Sequence[str]: ...

    def fetchall(self) -> Sequence[Any]: ...

    def fetchone(self) -> Any: ...

    def first(self) -> Any: ...

    def scalar(self) -> Any: ...

    def __iter__(self) -> Iterator[Any]: ...


class Marks:
    """Placeholders of one hand-written statement, in the form its backend's driver takes:
    ``marks("k0")`` is ``:k0`` on SQLite, ``$1`` on PostgreSQL; :meth:`sql` gives the
    statement to run with a mapping of those names."""

    def __init__(self, numbered: bool) -> None:
        """``numbered``: the backend's ``numbered_placeholders``."""
        self._numbered = numbered
        self._index: dict[str, int] = {}

    def __call__(self, name: str) -> str:
        if not self._numbered:
            return ":" + name
        number = self._index.get(name)
        if number is None:
            number = self._index[name] = len(self._index) + 1
        return f"${number}"

    def sql(self, text: str) -> BackendSql:
        """The statement ``text`` written with these placeholders."""
        return BackendSql(text, tuple(self._index) if self._numbered else None)


def generate(tree: exp.Expression, backend: Backend) -> BackendSql:
    """The backend SQL of a rewritten sqlglot tree, its placeholders in the driver's form."""
    text, names = backend.rewrites.generate(tree)
    return BackendSql(text, names)


def read_rows(conn: StoreConnection, sql: BackendSql,
              params: Mapping[str, Any] | None = None) -> tuple[list[str], list[Any]]:
    """The column names and rows of a statement that only reads (a query), which a cancel
    of the session may stop midway (:meth:`StoreConnection.interruptible`)."""
    with conn.interruptible():
        result = run_sql(conn, sql, params)
        return list(result.keys()), list(result.fetchall())


def run_sql(conn: StoreConnection, sql: BackendSql | str,
            params: Mapping[str, Any] | None = None) -> Rows:
    """Execute ``sql`` (a plain string: a statement without parameters) with ``params`` by
    placeholder name."""
    if isinstance(sql, str):
        sql = BackendSql(sql, ())
    return conn.backend.run_sql(conn, sql, params)
