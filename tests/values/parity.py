"""What the parity tests share (test_cast_parity.py, test_date_parity.py): one store per
backend holding one row with a column per case, and the outcome of a statement — its single
value or its error number — so that the same expression can run on the values layer (over a
variable, in the interpreter) and inside each store's query (over the column)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from tests.conftest import FreshPostgres
from tsqlbroker.interpreter.instance import Instance
from tsqlbroker.interpreter.sink import CollectingSink


def outcome(session: Any, sink: CollectingSink, sql: str) -> tuple[str, Any]:
    """('value', the single value) or ('error', its number)."""
    sink.events.clear()
    session.execute(sql)
    errors = sink.errors()
    if errors:
        return "error", errors[0].number
    rows = sink.resultsets()[-1].rows
    assert len(rows) == 1, sql
    value = rows[0][0]
    # An xml result is an XmlValue in the interpreter, its text from a query.
    return "value", value.to_string() if hasattr(value, "to_string") else value


class ParityStore:
    """A session on a private store with table ``table`` of one row: column ``c<i>`` of
    type ``sources[i]`` holding ``literals[i]``."""

    def __init__(self, url: str, table: str, sources: list[str], literals: list[str]) -> None:
        self.instance = Instance(url)
        self.sink = CollectingSink()
        self.session = self.instance.session(self.sink)
        columns = ", ".join(f"c{i} {source}" for i, source in enumerate(sources))
        self.session.execute(f"CREATE TABLE {table} ({columns}); "
                             f"INSERT INTO {table} VALUES ({', '.join(literals)})")
        assert not self.sink.errors(), [e.render() for e in self.sink.errors()]

    def outcome(self, sql: str) -> tuple[str, Any]:
        """The outcome of ``sql`` in this store's session."""
        return outcome(self.session, self.sink, sql)

    def close(self) -> None:
        self.session.close()
        self.instance.close()


def parity_stores(table: str, sources: list[str],
                  literals: list[str]) -> Iterator[dict[str, ParityStore]]:
    """Body of a module-scoped fixture: one store per backend, made when a test first asks
    for it (a PostgreSQL-only or SQLite-only run makes only its own)."""
    made: dict[str, ParityStore] = {}
    fresh = FreshPostgres()

    class Lazy(dict[str, ParityStore]):
        def __missing__(self, backend: str) -> ParityStore:
            made[backend] = self[backend] = ParityStore(
                "sqlite://" if backend == "sqlite" else fresh.url(), table, sources, literals)
            return made[backend]

    try:
        yield Lazy()
    finally:
        for store in made.values():
            store.close()
        fresh.close()
