"""Permissions enforced as SQL Server enforces them, on both stores: a matrix of each core
permission × who holds it (the user, a role it is a member of, public, a fixed database
role, the schema or the database) × GRANT / DENY / REVOKE; the Service Broker tutorial
pattern (a low-privilege user with SEND on a service, an activated procedure running as a
user); logins with passwords; the sysadmin / dbo path unchecked."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from tsql_client import Client, wait_for

from tsqlbroker.errors import TSqlError
from tsqlbroker.interpreter.broker_runtime import runtime_for
from tsqlbroker.interpreter.instance import Instance

SETUP = """
CREATE DATABASE perm
GO
USE perm
CREATE TABLE t (a int)
INSERT t VALUES (1)
CREATE QUEUE q
CREATE SERVICE s ON QUEUE q ([DEFAULT])
CREATE QUEUE iq
CREATE SERVICE i ON QUEUE iq
CREATE USER u WITHOUT LOGIN
CREATE ROLE r
ALTER ROLE r ADD MEMBER u
GRANT RECEIVE ON iq TO u
GO
CREATE PROCEDURE p AS SELECT 1 AS one
"""

# permission -> (statement run as u, securable clause of GRANT, refusal, fixed role holding it)
MATRIX: dict[str, tuple[str, str, int, str]] = {
    "SELECT": ("SELECT a FROM t", "ON t", 229, "db_datareader"),
    "INSERT": ("INSERT t VALUES (2)", "ON t", 229, "db_datawriter"),
    # SET a = 2, not a = a: reading a column of the target needs SELECT too.
    "UPDATE": ("UPDATE t SET a = 2", "ON t", 229, "db_datawriter"),
    "DELETE": ("DELETE FROM t", "ON t", 229, "db_datawriter"),
    "EXECUTE": ("EXEC p", "ON p", 229, "db_owner"),
    "CREATE TABLE": ("CREATE TABLE x (a int)", "", 262, "db_ddladmin"),
    "CREATE PROCEDURE": ("EXEC ('CREATE PROCEDURE px AS SELECT 1')", "", 262, "db_ddladmin"),
    "CREATE QUEUE": ("CREATE QUEUE qx", "", 262, "db_ddladmin"),
    "CREATE SERVICE": ("CREATE SERVICE sx ON QUEUE q", "", 262, "db_ddladmin"),
    "SEND": (("DECLARE @h uniqueidentifier\nBEGIN DIALOG @h FROM SERVICE i TO SERVICE 's' "
             "WITH ENCRYPTION = OFF"), "ON SERVICE::s", 300, "db_owner"),
    "RECEIVE": ("RECEIVE * FROM q", "ON q", 229, "db_owner"),
}
OBJECT_LEVEL = {"SELECT", "INSERT", "UPDATE", "DELETE", "EXECUTE"}


@pytest.fixture
def admin(backend_url: str) -> Iterator[Client]:
    inst = Instance(backend_url, background=False)
    try:
        client = Client(inst)
        client.run(SETUP)
        yield client
    finally:
        inst.close()


def _refusal(admin: Client, statement: str) -> int | None:
    """Run ``statement`` as u (rolled back); the first error number, or None."""
    sink = admin.run(f"EXECUTE AS USER = 'u'\nBEGIN TRAN\n{statement}\nIF @@TRANCOUNT > 0 "
                     "ROLLBACK\nREVERT", expect_errors=True)
    errors = [e.number for e in sink.errors()]
    return errors[0] if errors else None


@pytest.mark.parametrize("permission", list(MATRIX))
def test_permission_matrix(admin: Client, permission: str) -> None:
    statement, on, refusal, fixed_role = MATRIX[permission]

    def check(expect_allowed: bool, why: str) -> None:
        got = _refusal(admin, statement)
        assert got == (None if expect_allowed else refusal), f"{permission} {why}: {got}"

    def do(sql: str) -> None:
        admin.run(sql)

    check(False, "with no permission")
    for grantee in ("u", "r", "public"):
        do(f"GRANT {permission} {on} TO {grantee}")
        check(True, f"granted to {grantee}")
        do(f"REVOKE {permission} {on} FROM {grantee}")
        check(False, f"revoked from {grantee}")
    do(f"GRANT {permission} {on} TO u")
    do(f"DENY {permission} {on} TO r")
    check(False, "granted to u, denied to its role r (DENY beats GRANT)")
    do(f"REVOKE {permission} {on} FROM r")
    check(True, "the DENY revoked")
    do(f"DENY {permission} {on} TO u")
    check(False, "denied to u")
    do(f"REVOKE {permission} {on} FROM u")
    check(False, "all revoked")
    if permission in OBJECT_LEVEL:
        do(f"GRANT {permission} ON SCHEMA::dbo TO u")
        check(True, "granted on the schema")
        do(f"DENY {permission} {on} TO u")
        check(False, "granted on the schema, denied on the object")
        do(f"REVOKE {permission} {on} FROM u")
        do(f"REVOKE {permission} ON SCHEMA::dbo FROM u")
    do(f"ALTER ROLE {fixed_role} ADD MEMBER u")
    check(True, f"member of {fixed_role}")
    if fixed_role != "db_owner":
        do(f"DENY {permission} {on} TO r")
        check(False, f"member of {fixed_role}, denied through r")
        do(f"REVOKE {permission} {on} FROM r")
    do(f"ALTER ROLE {fixed_role} DROP MEMBER u")
    check(False, f"no longer in {fixed_role}")


def test_refusal_texts_and_ownership_chain(admin: Client) -> None:
    sink = admin.run("""EXECUTE AS USER = 'u'
SELECT a FROM t
CREATE TABLE x (a int)
DECLARE @h uniqueidentifier
BEGIN DIALOG @h FROM SERVICE i TO SERVICE 's' WITH ENCRYPTION = OFF
DROP TABLE t
REVERT""", expect_errors=True)
    assert [e.render().splitlines()[1] for e in sink.errors()] == [
        "The SELECT permission was denied on the object 't', database 'perm', schema 'dbo'.",
        "CREATE TABLE permission denied in database 'perm'.",
        "SEND permission was denied on object 's', database 'perm'.",
        "Cannot drop the table 't', because it does not exist or you do not have permission.",
    ]
    assert [(e.number, e.severity) for e in sink.errors()][:3] == [(229, 14), (262, 14),
                                                                   (300, 14)]
    # EXECUTE on a procedure is enough to read what it reads (same owner: the chain is
    # unbroken); dynamic SQL inside it breaks the chain.
    admin.run("""CREATE PROCEDURE reads AS SELECT COUNT(*) AS n FROM t
GO
CREATE PROCEDURE reads_dynamic AS EXEC ('SELECT COUNT(*) AS n FROM t')
GO
GRANT EXECUTE ON reads TO u
GRANT EXECUTE ON reads_dynamic TO u""")
    rows = admin.rows("EXECUTE AS USER = 'u' EXEC reads REVERT")
    assert rows == [(1,)]
    assert _refusal(admin, "EXEC reads_dynamic") == 229


def test_with_grant_option_and_execute_as_on_procedures(admin: Client) -> None:
    admin.run("""CREATE USER v WITHOUT LOGIN
GRANT SELECT ON t TO u WITH GRANT OPTION
GO
CREATE PROCEDURE as_u WITH EXECUTE AS 'u' AS
    SELECT USER_NAME() AS who, ORIGINAL_LOGIN() AS original
    SELECT a FROM t
GO
CREATE PROCEDURE as_owner WITH EXECUTE AS OWNER AS SELECT USER_NAME() AS who""")
    sink = admin.run("EXEC as_u EXEC as_owner SELECT USER_NAME() AS who")
    assert [rs.rows for rs in sink.resultsets()] == [[("u", "sa")], [(1,)], [("dbo",)],
                                                     [("dbo",)]]
    # REVOKE a grant made WITH GRANT OPTION needs CASCADE (Msg 4611), as in SQL Server.
    assert [e.number for e in admin.run("REVOKE SELECT ON t FROM u",
                                        expect_errors=True).errors()] == [4611]
    admin.run("REVOKE SELECT ON t FROM u CASCADE")
    assert _refusal(admin, "SELECT a FROM t") == 229


def test_login_with_password(backend_url: str) -> None:
    inst = Instance(backend_url, background=False)
    try:
        admin = Client(inst)
        admin.run("""CREATE LOGIN app WITH PASSWORD = 'Str0ng!pw'
CREATE USER app FOR LOGIN app
CREATE TABLE t (a int)
GRANT SELECT ON t TO app""")
        with pytest.raises(TSqlError) as refused:
            inst.session(admin.sink, login="app", password="wrong")
        assert refused.value.number == 18456
        with pytest.raises(TSqlError):
            inst.session(admin.sink, login="nobody", password="")
        app = inst.session(admin.sink, login="app", password="Str0ng!pw")
        admin.sink.events.clear()
        app.execute("""SELECT SUSER_SNAME(), USER_NAME(), ORIGINAL_LOGIN()
SELECT a FROM t
INSERT t VALUES (1)
EXECUTE AS LOGIN = 'sa'""")
        assert admin.sink.resultsets()[0].rows[0][:3] == ("app", "app", "app")
        assert [e.number for e in admin.sink.errors()] == [229, 15406]
        app.close()
    finally:
        inst.close()


def test_service_broker_tutorial_pattern(backend_url: str) -> None:
    """A low-privilege user with SEND on the target service begins a dialog and sends; the
    target queue activates its procedure AS a user (sys.service_queues says which), which
    receives, logs under that user's name and replies; a user without the permissions is
    refused (Msg 300 for the service, 229 for the queue and the procedure)."""
    inst = Instance(backend_url)
    try:
        runtime_for(inst, recheck_seconds=0.2)
        c = Client(inst)
        c.run("""CREATE DATABASE tut
GO
USE tut
CREATE MESSAGE TYPE [//req] VALIDATION = NONE
CREATE MESSAGE TYPE [//reply] VALIDATION = NONE
CREATE CONTRACT [//c] ([//req] SENT BY INITIATOR, [//reply] SENT BY TARGET)
CREATE TABLE log (who sysname, body nvarchar(100))
CREATE USER worker WITHOUT LOGIN
CREATE USER sender WITHOUT LOGIN
CREATE USER stranger WITHOUT LOGIN
GO
CREATE PROCEDURE target_proc AS
BEGIN
    DECLARE @h uniqueidentifier, @b varbinary(max)
    RECEIVE TOP (1) @h = conversation_handle, @b = message_body FROM tq
    IF @h IS NOT NULL
    BEGIN
        INSERT log VALUES (USER_NAME(), CAST(@b AS nvarchar(100)))
        SEND ON CONVERSATION @h MESSAGE TYPE [//reply] (CAST(N'ok' AS varbinary(max)))
        END CONVERSATION @h
    END
END
GO
CREATE QUEUE tq WITH ACTIVATION (STATUS = ON, PROCEDURE_NAME = target_proc,
    MAX_QUEUE_READERS = 1, EXECUTE AS 'worker')
CREATE SERVICE [//target] ON QUEUE tq ([//c])
CREATE QUEUE iq
CREATE SERVICE [//init] ON QUEUE iq
GRANT SEND ON SERVICE::[//target] TO sender
GRANT RECEIVE ON iq TO sender, stranger
GRANT REFERENCES ON CONTRACT::[//c] TO sender, stranger""")
        assert c.rows("SELECT q.execute_as_principal_id - p.principal_id FROM "
                      "sys.service_queues q, sys.database_principals p "
                      "WHERE q.name = 'tq' AND p.name = 'worker'") == [(0,)]
        dialog = """DECLARE @h uniqueidentifier
BEGIN DIALOG @h FROM SERVICE [//init] TO SERVICE '//target' ON CONTRACT [//c]
    WITH ENCRYPTION = OFF
SEND ON CONVERSATION @h MESSAGE TYPE [//req] (CAST(N'hello' AS varbinary(max)))"""
        c.run(f"EXECUTE AS USER = 'sender'\n{dialog}\nREVERT")
        wait_for("the activated reply", lambda: c.rows(
            "SELECT COUNT(*) FROM log")[0][0] == 1)
        assert c.rows("SELECT who, body FROM log") == [("worker", "hello")]
        refused = c.run(f"""EXECUTE AS USER = 'stranger'
{dialog}
RECEIVE * FROM tq
EXEC target_proc
REVERT""", expect_errors=True)
        assert [e.number for e in refused.errors()] == [300, 8418, 229, 229]
    finally:
        inst.close()


def test_sysadmin_path_is_unchecked(admin: Client) -> None:
    """sa (no EXECUTE AS) and EXECUTE AS USER = 'dbo' or LOGIN = 'sa' hold every
    permission whatever was denied to public; u may not impersonate sa (Msg 15406)."""
    admin.run("DENY SELECT ON t TO public")
    assert admin.rows("SELECT a FROM t") == [(1,)]
    assert admin.rows("EXECUTE AS USER = 'dbo' SELECT a FROM t REVERT") == [(1,)]
    assert admin.rows("EXECUTE AS LOGIN = 'sa' SELECT a FROM t REVERT") == [(1,)]
    assert _refusal(admin, "EXECUTE AS LOGIN = 'sa'") == 15406
