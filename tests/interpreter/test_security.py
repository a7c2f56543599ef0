"""Security statements through a session: certificates backed up to files and created from
them (the between-instances tutorial flow), transactions, and odd input (errors, never
tracebacks)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tsqlbroker.interpreter.instance import Instance
from tsqlbroker.interpreter.sink import CollectingSink


def _run(session: Any, sink: CollectingSink, sql: str) -> list[tuple[str, Any]]:
    sink.events.clear()
    session.execute(sql)
    return list(sink.events)


def _errors(events: list[tuple[str, Any]]) -> list[int]:
    return [e.number for kind, e in events if kind == "error"]


def _rows(events: list[tuple[str, Any]]) -> list[tuple[Any, ...]]:
    return [row for kind, rs in events if kind == "resultset" for row in rs.rows]


def test_certificate_round_trip_between_instances(tmp_path: Path, backend_url: str) -> None:
    """Instance A backs up its certificate; instance B loads it (same thumbprint), with and
    without the private key; files are never overwritten (Msg 15240)."""
    cer, pvk = tmp_path / "target.cer", tmp_path / "target.pvk"
    a, sink_a = Instance(backend_url), CollectingSink()
    sa = a.session(sink_a)
    try:
        assert not _errors(_run(sa, sink_a, f"""
            CREATE MASTER KEY ENCRYPTION BY PASSWORD = 'A!passw0rd'
            CREATE CERTIFICATE TargetCert WITH SUBJECT = 'Target'
            BACKUP CERTIFICATE TargetCert TO FILE = '{cer}'
              WITH PRIVATE KEY (FILE = '{pvk}', ENCRYPTION BY PASSWORD = 'F!le pw')"""))
        thumb_a = _rows(_run(sa, sink_a, "SELECT thumbprint, pvt_key_last_backup_date "
                                         "FROM sys.certificates"))[0]
        assert thumb_a[1] is not None
        assert _errors(_run(sa, sink_a, f"BACKUP CERTIFICATE TargetCert TO FILE = '{cer}'")) \
            == [15240]
    finally:
        sa.close()
        a.close()
    b, sink_b = Instance("sqlite://"), CollectingSink()
    sb = b.session(sink_b)
    try:
        assert not _errors(_run(sb, sink_b, f"""
            CREATE CERTIFICATE PublicOnly FROM FILE = '{cer}'
            SELECT 1"""))
        rows = _rows(_run(sb, sink_b, "SELECT thumbprint, pvt_key_encryption_type, subject "
                                      "FROM sys.certificates"))
        assert rows == [(thumb_a[0], "NA", "Target")]
        # The same certificate again, under another name: Msg 15232.
        assert _errors(_run(sb, sink_b, f"CREATE CERTIFICATE Again FROM FILE = '{cer}'")) \
            == [15232]
        assert _errors(_run(sb, sink_b, "DROP CERTIFICATE PublicOnly")) == []
        # With its private key: encrypted by a password (no master key needed) …
        assert not _errors(_run(sb, sink_b, f"""
            CREATE CERTIFICATE WithKey FROM FILE = '{cer}'
              WITH PRIVATE KEY (FILE = '{pvk}', DECRYPTION BY PASSWORD = 'F!le pw',
                                ENCRYPTION BY PASSWORD = 'N3w pw')"""))
        assert _rows(_run(sb, sink_b, "SELECT pvt_key_encryption_type FROM sys.certificates")) \
            == [("PW",)]
        # … a wrong file password, a missing file, a non-certificate file: Msg 15208.
        assert _errors(_run(sb, sink_b, f"""
            CREATE CERTIFICATE Bad1 FROM FILE = '{cer}'
              WITH PRIVATE KEY (FILE = '{pvk}', DECRYPTION BY PASSWORD = 'wrong',
                                ENCRYPTION BY PASSWORD = 'x')
            CREATE CERTIFICATE Bad2 FROM FILE = '{tmp_path / "missing.cer"}'
            CREATE CERTIFICATE Bad3 FROM FILE = '{pvk}'""")) == [15208, 15208, 15208]
    finally:
        sb.close()
        b.close()


def test_security_ddl_rolls_back_with_the_transaction(session: Any,
                                                      sink: CollectingSink) -> None:
    events = _run(session, sink, """
        BEGIN TRAN
        CREATE USER tx_user WITHOUT LOGIN
        GRANT CONNECT TO tx_user
        CREATE MASTER KEY ENCRYPTION BY PASSWORD = 'Tx!passw0rd'
        ROLLBACK
        SELECT COUNT(*) FROM sys.database_principals WHERE name = 'tx_user'
        SELECT COUNT(*) FROM sys.symmetric_keys""")
    assert not _errors(events)
    assert _rows(events) == [(0,), (0,)]


def test_principals_are_per_database(session: Any, sink: CollectingSink) -> None:
    events = _run(session, sink, """
        CREATE DATABASE sec_a
        CREATE DATABASE sec_b
        EXEC ('USE sec_a; CREATE USER shared WITHOUT LOGIN')
        EXEC ('USE sec_b; CREATE USER shared WITHOUT LOGIN')
        SELECT COUNT(*) FROM sec_a.sys.database_principals WHERE name = 'shared'
        DROP DATABASE sec_a
        SELECT COUNT(*) FROM sec_b.sys.database_principals WHERE name = 'shared'
        DROP DATABASE sec_b""")
    assert not _errors(events)
    assert _rows(events) == [(1,), (1,)]


def test_dropped_objects_take_their_permissions(session: Any, sink: CollectingSink) -> None:
    events = _run(session, sink, """
        CREATE TABLE dbo.t (a int)
        CREATE USER reader WITHOUT LOGIN
        GRANT SELECT ON dbo.t TO reader
        SELECT COUNT(*) FROM sys.database_permissions WHERE class = 1
        DROP TABLE dbo.t
        SELECT COUNT(*) FROM sys.database_permissions WHERE class = 1""")
    assert not _errors(events)
    assert _rows(events) == [(1,), (0,)]


def test_grants_on_endpoints_and_logins_are_server_permissions(session: Any,
                                                                sink: CollectingSink) -> None:
    events = _run(session, sink, """
        CREATE ENDPOINT BrokerEndpoint STATE = STARTED AS TCP (LISTENER_PORT = 4022)
            FOR SERVICE_BROKER (AUTHENTICATION = CERTIFICATE BrokerCert)
        CREATE LOGIN remote_login WITH PASSWORD = 'R!passw0rd'
        GRANT CONNECT ON ENDPOINT::BrokerEndpoint TO remote_login
        GRANT CONNECT ON ENDPOINT::BrokerEndpoint TO nobody
        GRANT IMPERSONATE ON LOGIN::remote_login TO public
        SELECT class_desc, permission_name FROM sys.server_permissions ORDER BY class""")
    assert _errors(events) == [15151]
    assert _rows(events) == [("SERVER_PRINCIPAL", "IMPERSONATE"), ("ENDPOINT", "CONNECT")]


@pytest.mark.parametrize("sql", [
    "CREATE USER u WITH NAME = x",
    "CREATE LOGIN l WITH CHECK_POLICY = OFF",
    "ALTER USER dbo WITH NAME = x",
    "CREATE CERTIFICATE c WITH SUBJECT = 's', EXPIRY_DATE = 'not a date'",
    ("CREATE MASTER KEY ENCRYPTION BY PASSWORD = 'p' CREATE CERTIFICATE c WITH SUBJECT = 's' "
    "BACKUP CERTIFICATE c TO FILE = ''"),
    "ALTER MASTER KEY REGENERATE WITH ENCRYPTION BY PASSWORD = 'x'",
    "ALTER CERTIFICATE nope WITH ACTIVE FOR BEGIN_DIALOG = ON",
    "GRANT FROBNICATE TO public",
    "GRANT SELECT ON TYPE::dbo.x TO public",
    "GRANT SELECT ON dbo.t (nope) TO public",
    "REVERT WITH COOKIE = @undeclared",
])
def test_odd_security_input_is_an_error_not_a_traceback(session: Any, sink: CollectingSink,
                                                         sql: str) -> None:
    events = _run(session, sink, sql)
    assert _errors(events), events
