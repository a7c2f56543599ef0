"""Dialog security between two instances (docs/transport.md, *Dialog security*): the shape of
SQL Server's tutorial *Completing a Conversation Between Instances* — a master key in each
database, a certificate per side owned by a user without login, the other side's certificate
imported for a user of its own, a REMOTE SERVICE BINDING, SEND granted to the initiator's
user — with ``ENCRYPTION = ON``, between two instances of this process over loopback."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from cryptography.exceptions import InvalidTag

from tests.broker import test_tcp_transport as tcp
from tests.broker.test_tcp_transport import count, held, wait_for
from tests.tsql_client import Client
from tsqlbroker.engine.broker import dialog_security
from tsqlbroker.engine.broker.dialog_security import (
    NO_CERTIFICATE,
    NO_SEND,
    TAMPERED,
    DialogKeys,
    Session,
    Undeliverable,
    open_body,
    seal_body,
    unwrap,
    wrap,
)
from tsqlbroker.engine.broker.transport_link import Link, Piece
from tsqlbroker.engine.broker.transport_wire import WireError, check_message
from tsqlbroker.interpreter.instance import Instance

BEGIN_ON = """DECLARE @h uniqueidentifier;
BEGIN DIALOG @h FROM SERVICE [//A/Init] TO SERVICE '//B/Targ' ON CONTRACT [//tcp/C]
    WITH ENCRYPTION = ON;
SEND ON CONVERSATION @h MESSAGE TYPE [//tcp/Req] (N'<secret>{text}</secret>');
SELECT @h;"""

# Each side's own certificate (private key under its database master key), owned by the
# user its service belongs to, backed up for the other side. The service is made again
# (with its owner), without the SEND public holds for unsecured dialogs in the pair's setup.
OWN_SIDE = """CREATE MASTER KEY ENCRYPTION BY PASSWORD = '{user}!Key1';
CREATE USER {user} WITHOUT LOGIN;
CREATE CERTIFICATE {user}Cert AUTHORIZATION {user} WITH SUBJECT = '{user} Certificate';
BACKUP CERTIFICATE {user}Cert TO FILE = '{folder}/{user}.cer';
DROP SERVICE [{svc}];
CREATE SERVICE [{svc}] AUTHORIZATION {user} ON QUEUE Q ([//tcp/C]);"""
# The far side's certificate, imported for a user without login.
FAR_SIDE = """CREATE USER {user} WITHOUT LOGIN;
CREATE CERTIFICATE {user}Cert AUTHORIZATION {user} FROM FILE = '{folder}/{user}.cer';"""
BINDING = "CREATE REMOTE SERVICE BINDING TargetBinding TO SERVICE '//B/Targ' " \
          "WITH USER = TargetUser{anonymous};"
GRANT = "GRANT SEND ON SERVICE::[//B/Targ] TO {who};"

# Two instances of this process with endpoints and routes to each other (A: da, //A/Init;
# B: db, //B/Targ), as the transport tests use them.
ports = tcp.ports
pair = tcp.pair


def secure(ca: Client, cb: Client, folder: Path, *, grant: str = "InitiatorUser",
           anonymous: bool = False) -> None:
    """The tutorial's dialog-security objects on both sides of ``pair``."""
    ca.run(OWN_SIDE.format(user="InitiatorUser", svc="//A/Init", folder=folder))
    cb.run(OWN_SIDE.format(user="TargetUser", svc="//B/Targ", folder=folder))
    ca.run(FAR_SIDE.format(user="TargetUser", folder=folder))
    ca.run(BINDING.format(anonymous=", ANONYMOUS = ON" if anonymous else ""))
    cb.run(FAR_SIDE.format(user="InitiatorUser", folder=folder))
    if grant:
        cb.run(GRANT.format(who=grant))


def status(c: Client) -> str:
    """The status of the oldest message waiting in ``c``'s transmission queue."""
    return str(c.scalar("SELECT TOP (1) transmission_status FROM sys.transmission_queue "
                        "ORDER BY message_sequence_number") or "")


@pytest.fixture
def wire(monkeypatch: pytest.MonkeyPatch) -> list[bytes]:
    """Every message fragment frame the transports of this process write (before TLS)."""
    seen: list[bytes] = []
    sealed = Link.seal

    def record(self: Link, piece: Piece) -> bytes:
        data = sealed(self, piece)
        seen.append(data)
        return data
    monkeypatch.setattr(Link, "seal", record)
    return seen


def test_the_tutorial_with_encryption_on_delivers_request_and_reply_encrypted(
        pair: tuple[Client, Client], tmp_path: Path, wire: list[bytes]) -> None:
    ca, cb = pair
    secure(ca, cb, tmp_path)
    ca.scalar(BEGIN_ON.format(text="request"))
    wait_for(lambda: count(cb, "SELECT COUNT(*) FROM Q") == 1, "the request at B",
             describe=lambda: held(ca))
    assert cb.scalar("SELECT CAST(message_body AS nvarchar(100)) FROM Q") \
        == "<secret>request</secret>"
    cb.run("""DECLARE @h uniqueidentifier;
        RECEIVE TOP (1) @h = conversation_handle FROM Q;
        SEND ON CONVERSATION @h MESSAGE TYPE [//tcp/Rep] (N'<secret>reply</secret>');
        END CONVERSATION @h;""")
    wait_for(lambda: count(ca, "SELECT COUNT(*) FROM Q") == 2, "the reply and EndDialog at A",
             describe=lambda: held(cb))
    assert ca.rows("SELECT CAST(message_body AS nvarchar(100)) FROM Q ORDER BY queuing_order"
                   )[0] == ("<secret>reply</secret>",)
    # Encrypted end to end: neither body is in any fragment frame, while the frames are there.
    assert len(wire) >= 3
    for text in ("request", "reply"):
        assert not any(f"<secret>{text}".encode("utf-16-le") in frame for frame in wire)
    # A binding secures a dialog begun WITH ENCRYPTION = OFF as well (SQL Server's table).
    ca.run(BEGIN_ON.format(text="off").replace("ENCRYPTION = ON", "ENCRYPTION = OFF"))
    wait_for(lambda: count(cb, "SELECT COUNT(*) FROM Q") == 1, "the OFF dialog's message")
    assert cb.scalar("SELECT CAST(message_body AS nvarchar(100)) FROM Q") \
        == "<secret>off</secret>"
    assert not any("<secret>off".encode("utf-16-le") in frame for frame in wire)
    assert count(ca, "SELECT COUNT(*) FROM sys.conversation_endpoints") == 2
    ca.run("DECLARE @h uniqueidentifier = (SELECT conversation_handle FROM "
           "sys.conversation_endpoints WHERE state_desc = 'DISCONNECTED_INBOUND'); "
           "END CONVERSATION @h;")
    wait_for(lambda: count(cb, "SELECT COUNT(*) FROM sys.conversation_endpoints "
                           "WHERE state_desc = 'DISCONNECTED_OUTBOUND'") == 0,
             "the first dialog closed on both sides")


def test_a_tampered_body_is_refused_and_the_resend_arrives(
        pair: tuple[Client, Client], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    ca, cb = pair
    secure(ca, cb, tmp_path)
    seal = DialogKeys.seal
    tampering = [True]

    def tamper(frame: dict[str, Any], session: Session) -> dict[str, Any]:
        sealed = seal(frame, session)
        if tampering[0] and sealed["body"]:
            body = bytearray(sealed["body"])
            body[-1] ^= 0x01                   # one bit of the tag, under a valid frame HMAC
            sealed["body"] = bytes(body)
        return sealed
    monkeypatch.setattr(DialogKeys, "seal", staticmethod(tamper))
    ca.scalar(BEGIN_ON.format(text="request"))
    wait_for(lambda: status(ca) == TAMPERED, "the refusal's status at A",
             describe=lambda: held(ca))
    assert count(cb, "SELECT COUNT(*) FROM Q") == 0
    tampering[0] = False
    wait_for(lambda: count(cb, "SELECT COUNT(*) FROM Q") == 1, "the resent request at B",
             describe=lambda: held(ca))
    assert cb.scalar("SELECT CAST(message_body AS nvarchar(100)) FROM Q") \
        == "<secret>request</secret>"


def test_a_wrong_certificate_leaves_the_message_waiting_with_the_reason(
        pair: tuple[Client, Client], tmp_path: Path) -> None:
    ca, cb = pair
    ca.run(OWN_SIDE.format(user="InitiatorUser", svc="//A/Init", folder=tmp_path))
    cb.run(OWN_SIDE.format(user="TargetUser", svc="//B/Targ", folder=tmp_path))
    # A holds a certificate for TargetUser that is not the one B has the private key of.
    cb.run("CREATE CERTIFICATE Other WITH SUBJECT = 'not the target'; "
           f"BACKUP CERTIFICATE Other TO FILE = '{tmp_path}/other.cer';")
    ca.run("CREATE USER TargetUser WITHOUT LOGIN; CREATE CERTIFICATE TargetUserCert "
           f"AUTHORIZATION TargetUser FROM FILE = '{tmp_path}/other.cer';")
    ca.run(BINDING.format(anonymous=""))
    cb.run(FAR_SIDE.format(user="InitiatorUser", folder=tmp_path))
    cb.run(GRANT.format(who="InitiatorUser"))
    cb.run("DROP CERTIFICATE Other")
    ca.scalar(BEGIN_ON.format(text="request"))
    wait_for(lambda: "is not in the target database with a private key" in status(ca),
             "the wrong certificate's status at A", describe=lambda: held(ca))
    assert status(ca).startswith("This message could not be delivered because the security "
                                 "context could not be retrieved.")
    assert count(cb, "SELECT COUNT(*) FROM Q") == 0


def test_the_target_checks_send_for_the_certificate_owner_or_public_when_anonymous(
        pair: tuple[Client, Client], tmp_path: Path) -> None:
    ca, cb = pair
    secure(ca, cb, tmp_path, grant="")
    ca.scalar(BEGIN_ON.format(text="one"))
    uid = cb.scalar("SELECT principal_id FROM sys.database_principals "
                    "WHERE name = 'InitiatorUser'")
    dbid = cb.scalar("SELECT DB_ID()")
    wait_for(lambda: status(ca) == NO_SEND.format(uid, dbid, "//B/Targ"),
             "the missing SEND permission's status at A", describe=lambda: held(ca))
    # ANONYMOUS = ON: the initiator is public in the target database; no certificate of the
    # initiating service's owner is needed (dropping the service ends its dialog).
    ca.run("ALTER REMOTE SERVICE BINDING TargetBinding WITH ANONYMOUS = ON; "
           "DROP SERVICE [//A/Init]; CREATE SERVICE [//A/Init] ON QUEUE Q ([//tcp/C]);")
    ca.scalar(BEGIN_ON.format(text="two"))
    wait_for(lambda: status(ca) == NO_SEND.format(0, dbid, "//B/Targ"),
             "public's missing SEND permission at A", describe=lambda: held(ca))
    cb.run(GRANT.format(who="public"))
    wait_for(lambda: count(cb, "SELECT COUNT(*) FROM Q") == 1, "the message at B",
             describe=lambda: held(ca))
    assert cb.scalar("SELECT CAST(message_body AS nvarchar(100)) FROM Q") \
        == "<secret>two</secret>"


def test_an_unsecured_dialog_needs_send_for_public_on_the_target_service(
        pair: tuple[Client, Client]) -> None:
    """No dialog security: the initiator acts as public in the target database, which must
    hold SEND on the target service ("Determining the Dialog Security Type"); refused
    messages wait at the sender and are retried, and a DENY to public wins."""
    ca, cb = pair
    cb.run("REVOKE SEND ON SERVICE::[//B/Targ] FROM PUBLIC;")
    h = ca.scalar(tcp.BEGIN)
    ca.run(tcp.SEND.format(h=h, n=0))
    refused = NO_SEND.format(0, cb.scalar("SELECT DB_ID()"), "//B/Targ")
    wait_for(lambda: held(ca) == [(0, refused)], "public's missing SEND at A",
             describe=lambda: held(ca))
    assert count(cb, "SELECT COUNT(*) FROM Q") == 0
    assert count(cb, "SELECT COUNT(*) FROM sys.conversation_endpoints") == 0
    cb.run("GRANT SEND ON SERVICE::[//B/Targ] TO PUBLIC;")
    wait_for(lambda: count(cb, "SELECT COUNT(*) FROM Q") == 1 and not held(ca),
             "the message at B after the GRANT", describe=lambda: held(ca))
    # A DENY refuses new dialogs; one already begun was checked at its first message.
    cb.run("DENY SEND ON SERVICE::[//B/Targ] TO PUBLIC;")
    ca.run(tcp.SEND.format(h=ca.scalar(tcp.BEGIN), n=1))
    wait_for(lambda: held(ca) == [(0, refused)], "the DENY's refusal at A",
             describe=lambda: held(ca))
    ca.run(tcp.SEND.format(h=h, n=2))
    wait_for(lambda: count(cb, "SELECT COUNT(*) FROM Q") == 2, "the older dialog's message",
             describe=lambda: held(ca))
    assert held(ca) == [(0, refused)]


def test_without_the_setup_the_documented_statuses_stay(pair: tuple[Client, Client],
                                                         tmp_path: Path) -> None:
    ca, _cb = pair
    h = ca.scalar(BEGIN_ON.format(text="x"))
    assert status(ca) == dialog_security.message_text(9727)
    ca.run("CREATE USER TargetUser WITHOUT LOGIN;" + BINDING.format(anonymous=""))
    ca.run(f"DECLARE @h uniqueidentifier = '{h}'; SEND ON CONVERSATION @h MESSAGE TYPE "
           "[//tcp/Req] (N'<m/>');")
    wait_for(lambda: status(ca) == dialog_security.message_text(28050), "Msg 28050's text",
             describe=lambda: held(ca))
    ca.run("CREATE MASTER KEY ENCRYPTION BY PASSWORD = 'Init!Key1';")
    uid = ca.scalar("SELECT principal_id FROM sys.database_principals WHERE name = 'TargetUser'")
    wait_for(lambda: status(ca) == NO_CERTIFICATE.format(uid), "the missing certificate")


def test_bodies_are_bound_to_their_place_and_key() -> None:
    key = bytes(range(32))
    cid = "0A1B2C3D-0000-4000-8000-000000000001"
    sealed = seal_body(key, cid, 1, 3, "//t", b"body")
    assert sealed is not None and b"body" not in sealed
    assert open_body(key, cid, 1, 3, "//t", sealed) == b"body"
    assert seal_body(key, cid, 1, 0, "//t", None) is None
    for moved in ((cid, 0, 3, "//t"), (cid, 1, 4, "//t"), (cid, 1, 3, "//u"),
                  (cid.replace("1", "2"), 1, 3, "//t")):
        with pytest.raises(Undeliverable, match="could not be decrypted"):
            open_body(key, *moved, sealed)
    with pytest.raises(Undeliverable):
        open_body(bytes(32), cid, 1, 3, "//t", sealed)
    wrapped = wrap("secret", cid, 1, key)
    assert unwrap("secret", cid, 1, wrapped) == key
    with pytest.raises(InvalidTag):
        unwrap("other secret", cid, 1, wrapped)


def test_key_exchange_members_are_checked_on_the_wire() -> None:
    frame = {"op": "msg", "id": 1, "cid": "0A1B2C3D-0000-4000-8000-000000000001", "init": 1,
             "seq": 0, "type": "//t", "from_service": "//a", "to_service": "//b",
             "contract": "//c", "lifetime": "2094-01-01T00:00:00", "body": b"x", "enc": 1,
             "sk": "QUJD", "sk_to": "A" * 40, "sk_from": "0" * 40, "sk_sig": "QUJD"}
    check_message(frame)
    for key, bad in (("enc", 2), ("enc", True), ("sk_to", "a" * 40), ("sk_from", "A" * 41),
                     ("sk", "x" * 5000), ("sk_proof", 7)):
        with pytest.raises(WireError):
            check_message({**frame, key: bad})


def test_a_service_owner_must_be_a_user_of_the_database() -> None:
    inst = Instance("sqlite://")
    try:
        c = Client(inst)
        c.run("CREATE DATABASE so; ")
        c.run("USE so; CREATE QUEUE q; CREATE USER Owner1 WITHOUT LOGIN; "
              "CREATE SERVICE s1 AUTHORIZATION Owner1 ON QUEUE q; "
              "CREATE SERVICE s2 AUTHORIZATION dbo ON QUEUE q;")
        assert c.rows("USE so; SELECT s.name, p.name FROM sys.services s JOIN "
                      "sys.database_principals p ON p.principal_id = s.principal_id "
                      "WHERE s.name LIKE 's_' ORDER BY s.name") == [("s1", "Owner1"),
                                                                   ("s2", "dbo")]
        errors = c.run("USE so; CREATE SERVICE s3 AUTHORIZATION Nobody ON QUEUE q;",
                       expect_errors=True).errors()
        assert [e.number for e in errors] == [15151]
    finally:
        inst.close()


def test_two_serve_processes_run_the_tutorial_with_encryption_on(
        tmp_path: Path, ports: tuple[int, int]) -> None:
    ua, ub = f"sqlite:///{tmp_path}/a.db", f"sqlite:///{tmp_path}/b.db"
    tcp.setup_pair(ua, ub, ports)
    a, b = Instance(ua), Instance(ub)
    try:
        secure(Client(a, "da"), Client(b, "db"), tmp_path)
    finally:
        a.close()
        b.close()
    serve_a = tcp.Serve(ua, tmp_path / "a.log", ports[0])
    serve_b = tcp.Serve(ub, tmp_path / "b.log", ports[1])
    # Readers only (no broker statement: no runtime competing for the ports).
    ra, rb = Instance(ua), Instance(ub)
    try:
        serve_a.start()
        serve_b.start()
        ca, cb = Client(ra, "da"), Client(rb, "db")
        tcp.run_sql(ua, "da", BEGIN_ON.format(text="request"))
        wait_for(lambda: count(cb, "SELECT COUNT(*) FROM Q") == 1, "the request at B",
                 describe=lambda: held(ca))
        assert cb.scalar("SELECT CAST(message_body AS nvarchar(100)) FROM Q") \
            == "<secret>request</secret>"
        tcp.run_sql(ub, "db", "DECLARE @h uniqueidentifier; RECEIVE TOP (1) "
                    "@h = conversation_handle FROM Q; SEND ON CONVERSATION @h MESSAGE TYPE "
                    "[//tcp/Rep] (N'<secret>reply</secret>'); END CONVERSATION @h;")
        wait_for(lambda: count(ca, "SELECT COUNT(*) FROM Q") == 2,
                 "the reply and EndDialog at A", describe=lambda: held(cb))
        assert ca.scalar("SELECT TOP (1) CAST(message_body AS nvarchar(100)) FROM Q "
                         "ORDER BY queuing_order") == "<secret>reply</secret>"
    finally:
        serve_a.stop()
        serve_b.stop()
        ra.close()
        rb.close()
