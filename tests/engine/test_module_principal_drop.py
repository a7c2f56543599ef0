"""A module's EXECUTE AS principal (tsqlb_sec_module_principals) goes when the module is
dropped: DROP PROCEDURE / FUNCTION / TRIGGER, and a table's triggers with DROP TABLE."""

from __future__ import annotations

from sqlalchemy import select

from tsqlbroker.engine.security import Security
from tsqlbroker.interpreter.instance import Instance
from tsqlbroker.interpreter.sink import CollectingSink

SETUP = """
CREATE TABLE dbo.t (id int)
CREATE TABLE dbo.u (id int)
GO
CREATE PROCEDURE dbo.p WITH EXECUTE AS SELF AS PRINT USER_NAME()
GO
CREATE FUNCTION dbo.f() RETURNS sysname WITH EXECUTE AS OWNER AS BEGIN RETURN USER_NAME() END
GO
CREATE TRIGGER dbo.tr ON dbo.t WITH EXECUTE AS SELF AFTER INSERT AS PRINT USER_NAME()
GO
CREATE TRIGGER dbo.tr_u ON dbo.u WITH EXECUTE AS SELF AFTER INSERT AS PRINT USER_NAME()
"""


def test_dropped_modules_lose_their_execute_as_row(backend_url: str) -> None:
    inst = Instance(backend_url, background=False)
    sink = CollectingSink()
    session = inst.session(sink)
    try:
        m = Security.get(inst.store).t.module_principals

        def recorded() -> set[int]:
            return {int(r) for r in session.conn.execute(select(m.c.object_id)).scalars()}

        def ids(*names: str) -> set[int]:
            return {int(session.instance.catalog.find_object(
                session.conn, session.db_id, "dbo", n).object_id) for n in names}

        session.execute(SETUP)
        modules = ids("p", "f", "tr", "tr_u")
        assert modules <= recorded()
        session.execute("DROP PROCEDURE dbo.p\nDROP FUNCTION dbo.f\nDROP TRIGGER dbo.tr")
        assert recorded() & modules == ids("tr_u")
        session.execute("DROP TABLE dbo.u")
        assert recorded() & modules == set()
        # A procedure made again under the same name gets a new id and no inherited row.
        session.execute("CREATE PROCEDURE dbo.p AS PRINT USER_NAME()")
        assert recorded() & ids("p") == set()
    finally:
        session.close()
        inst.close()
