"""The ownership chain reads owners once per permission check: the owner rows of a database
(``tsqlb_sec_owners``) are read in one query per check however many times the chain asks
for a module's, an object's or a schema's owner (``owners.OwnerCache``), and never kept from
one statement to the next (an ALTER AUTHORIZATION is seen by the very next check)."""

from __future__ import annotations

from typing import Any

from sqlalchemy import event

from tsqlbroker.interpreter.instance import Instance
from tsqlbroker.interpreter.sink import CollectingSink

SETUP = """
CREATE USER u WITHOUT LOGIN
CREATE TABLE t1 (a int) CREATE TABLE t2 (a int) CREATE TABLE t3 (a int)
GO
CREATE PROCEDURE p AS SELECT * FROM t1 JOIN t2 ON t1.a = t2.a JOIN t3 ON t3.a = t1.a
GO
CREATE VIEW v AS SELECT t1.a FROM t1 JOIN t2 ON t1.a = t2.a JOIN t3 ON t3.a = t1.a
GO
GRANT EXECUTE ON p TO u
GRANT SELECT ON v TO u
"""


def _owner_queries(instance: Instance, session: Any, sink: CollectingSink, sql: str
                   ) -> tuple[int, list[int]]:
    seen: list[str] = []

    def count(_conn: Any, _cursor: Any, statement: str, *_rest: Any) -> None:
        seen.append(statement)
    event.listen(instance.store.engine, "before_cursor_execute", count)
    try:
        sink.events.clear()
        session.execute(sql)
    finally:
        event.remove(instance.store.engine, "before_cursor_execute", count)
    errors = [e.number for kind, e in sink.events if kind == "error"]
    return sum("tsqlb_sec_owners" in q for q in seen), errors


def test_one_owner_query_per_check(instance: Instance) -> None:
    sink = CollectingSink()
    s = instance.session(sink)
    try:
        s.execute(SETUP)
        assert not [e for kind, e in sink.events if kind == "error"]
        # EXECUTE on p, then the procedure's SELECT chained to three tables: one read for
        # each of the statement checks (15 reads before the cache).
        queries, errors = _owner_queries(instance, s, sink,
                                         "EXECUTE AS USER = 'u' EXEC p REVERT")
        assert errors == [] and queries <= 3
        # SELECT on v and the chain through it to its three tables: one check, one read
        # (10 before).
        queries, errors = _owner_queries(instance, s, sink,
                                         "EXECUTE AS USER = 'u' SELECT * FROM v REVERT")
        assert errors == [] and queries == 1
    finally:
        s.close()


def test_owner_changes_are_seen_by_the_next_check(instance: Instance) -> None:
    sink = CollectingSink()
    s = instance.session(sink)
    try:
        s.execute("CREATE USER u WITHOUT LOGIN")
        s.execute("CREATE SCHEMA s")
        s.execute("CREATE TABLE s.t (a int)")
        sink.events.clear()
        s.execute("""
            EXECUTE AS USER = 'u' SELECT * FROM s.t REVERT
            ALTER AUTHORIZATION ON SCHEMA::s TO u
            EXECUTE AS USER = 'u' SELECT * FROM s.t REVERT
            ALTER AUTHORIZATION ON SCHEMA::s TO dbo
            EXECUTE AS USER = 'u' SELECT * FROM s.t REVERT""")
        errors = [(e.number, e.line) for kind, e in sink.events if kind == "error"]
        assert errors == [(229, 2), (229, 6)]
    finally:
        s.close()
