"""Type names that are no system type: the alias types (``CREATE TYPE name FROM base``) of a
session's current database, bound for each of its requests (``Session.request``) as the
resolver of ``types.ALIAS_TYPES`` — so variables, parameters and CAST targets of such a type
get its base type when a batch or module compiles."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Protocol

from tsqlbroker.engine.usertypes import alias_type
from tsqlbroker.errors import TSqlError
from tsqlbroker.storage.store import StoreConnection

from ..values import types as T


class InDatabase(Protocol):
    """What the resolver reads of a session: its connection and current database."""

    conn: StoreConnection
    db_id: int


@contextmanager
def bind_alias_types(session: InDatabase) -> Iterator[None]:
    """While the block runs, type names that are no system type resolve to the alias
    types of ``session``'s current database."""
    def resolve(name: str) -> T.SqlType | None:
        try:
            found = alias_type(session.conn, session.db_id, name)
        except TSqlError:
            return None
        return None if found is None else T.parse_type_spec(found[0])
    token = T.ALIAS_TYPES.set(resolve)
    try:
        yield
    finally:
        T.ALIAS_TYPES.reset(token)
