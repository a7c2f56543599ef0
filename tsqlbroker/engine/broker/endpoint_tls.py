"""Endpoint authentication and transport encryption between brokers (docs/transport.md,
*Endpoint security*): ``AUTHENTICATION = CERTIFICATE cert_name`` and ``ENCRYPTION =
REQUIRED | SUPPORTED | DISABLED`` of the Service Broker endpoint, enforced as mutual TLS.

SQL Server's model: each instance's endpoint names a certificate in master with its private
key (encrypted by master's database master key); the other instance's certificate is created
in master from its public key file and owned by a user whose login has ``CONNECT`` on the
endpoint (or is a login mapped to that certificate). Here both sides of a connection present
their endpoint certificate in a TLS 1.3 handshake and trust exactly the certificates in their
master, so an unknown certificate, or none, fails the handshake; after it each side checks
that the peer's certificate is owned by a login holding CONNECT on its own endpoint. Only then
are the hellos exchanged (inside TLS), and the encryption options negotiated as SQL Server's
table says (:func:`negotiate`): when the result is "no encryption", both sides end TLS
(``unwrap``) and the frames go in clear, still integrity-checked with keys exchanged inside
the authenticated channel (``transport_link``).

A refusal is a :class:`Refused` whose text is the one SQL Server writes to its error log
(``Connection handshake failed. …``); the listener logs and counts it and the sender shows it
in ``transmission_status``.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import ssl
import tempfile
import threading
import time
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import and_, or_, select

from ...errors import message_text, tsql_error
from ...storage.store import Store, StoreConnection
from .. import certs, servicekey
from ..catalog import MASTER
from ..security import Security
from .schema import broker_tables
from .transport_wire import WireError

REQUIRED, SUPPORTED, DISABLED = "REQUIRED", "SUPPORTED", "DISABLED"
MODES = (REQUIRED, SUPPORTED, DISABLED)
_SA, _PUBLIC_SERVER_ROLE, _DBO = 1, 2, 1
_ENDPOINT_CLASS, _SERVER_CLASS = 105, 100
SETTINGS_S = 1.0      # how long the endpoint's settings read from the store are used

# The texts SQL Server writes to its error log when a broker connection is refused.
NO_CERTIFICATE = ("Connection handshake failed. The certificate used by the peer is invalid "
                  "due to the following reason: Certificate not found. State 89.")
NO_PEER_CERTIFICATE = ("Connection handshake failed. The peer did not present a certificate. "
                       "State 89.")
NO_ALGORITHM = "Connection handshake failed. There is no compatible encryption algorithm. " \
               "State 22."
REFUSED_BY_PEER = "Connection handshake failed. The far endpoint refused this instance's " \
                  "certificate: {}."


class Refused(WireError):
    """A connection is refused; the text says why (logged, counted, and shown)."""


def encryption_mode(text: str | None) -> str:
    """REQUIRED / SUPPORTED / DISABLED from the stored ENCRYPTION text (``SUPPORTED
    ALGORITHM AES`` …); SQL Server's default is REQUIRED."""
    words = str(text or REQUIRED).upper().split()
    return words[0] if words and words[0] in MODES else REQUIRED


def negotiate(mine: str, theirs: str) -> bool:
    """Whether a connection between endpoints with these ENCRYPTION settings is encrypted
    (SQL Server's table: DISABLED with REQUIRED is refused, :class:`Refused`; SUPPORTED
    follows the other side; REQUIRED with SUPPORTED or REQUIRED encrypts)."""
    pair = {mine, theirs}
    if pair == {REQUIRED, DISABLED}:
        raise Refused(NO_ALGORITHM)
    return DISABLED not in pair


def certificate_name(authentication: str | None) -> str | None:
    """The certificate an AUTHENTICATION text names (None: Windows authentication only)."""
    words = str(authentication or "").split()
    for i, word in enumerate(words[:-1]):
        if word.upper() == "CERTIFICATE":
            return words[i + 1]
    return None


def check_authentication(authentication: str | None) -> None:
    """CREATE / ALTER ENDPOINT … FOR SERVICE_BROKER: Windows authentication (given, or the
    default when AUTHENTICATION is left out) is not available here (Msg 28099). A mixed
    ``WINDOWS … CERTIFICATE c`` is taken: the certificate is what is used."""
    if certificate_name(authentication) is None:
        raise tsql_error(28099)


@dataclass(frozen=True)
class LocalEndpoint:
    """What this instance's endpoint authenticates and encrypts with."""

    endpoint_id: int
    encryption: str
    cert_id: int
    cert_pem: bytes
    key_pem: bytes = field(repr=False)       # clear PKCS#8: only ever in a 0600 temp file
    trusted: tuple[bytes, ...] = ()          # DER of every certificate in master

    def fingerprint(self) -> tuple[Any, ...]:
        """What a cached TLS context depends on."""
        return (self.cert_id, hashlib.sha256(self.cert_pem).digest(),
                tuple(hashlib.sha1(d).digest() for d in self.trusted))


@dataclass(frozen=True)
class Peer:
    """The far instance as authenticated: its certificate in master and the login that
    holds CONNECT (``sys.dm_broker_connections``)."""

    certificate_id: int
    principal_name: str


class EndpointSecurity:
    """One store's endpoint security: reads the endpoint and master's certificates for new
    connections (at most once a second) and who may connect at each one (GRANT takes effect
    on the next connection), and keeps the TLS contexts made from them."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self._lock = threading.Lock()
        self._contexts: dict[tuple[Any, ...], ssl.SSLContext] = {}
        self._settings: tuple[float, LocalEndpoint] | None = None

    @classmethod
    def get(cls, store: Store) -> EndpointSecurity:
        """The one endpoint security of ``store``."""
        found: EndpointSecurity = store.extension("endpoint_tls", cls)
        return found

    # -- what this side presents --------------------------------------------------------------
    def local(self) -> LocalEndpoint:
        """This instance's endpoint settings; :class:`Refused` when it cannot authenticate
        (no endpoint, Windows authentication, certificate missing, no usable private key).
        Read again at most every :data:`SETTINGS_S` seconds: every accepted connection asks,
        and a stranger's connections should not each cost reads and a key decryption."""
        now = time.monotonic()
        with self._lock:
            cached = self._settings
        if cached is not None and now - cached[0] < SETTINGS_S:
            return cached[1]
        conn = self.store.connect()
        try:
            found = self._local(conn)
        finally:
            conn.close()
        with self._lock:
            self._settings = (now, found)
        return found

    def _local(self, conn: StoreConnection) -> LocalEndpoint:
        ep_table = broker_tables(self.store.metadata).endpoints_net
        ep = conn.execute(select(ep_table)).mappings().first()
        if ep is None:
            raise Refused("Connection handshake failed. This instance has no Service Broker "
                          "endpoint.")
        name = certificate_name(ep["authentication"])
        if name is None:
            raise Refused(f"Connection handshake failed. {message_text(28099)}")
        sec = Security.get(self.store)
        rows = sec.certificates(conn, MASTER)
        cert = next((r for r in rows if r["name_key"] == name.lower()), None)
        if cert is None or cert["der"] is None:
            raise Refused("Connection handshake failed. The certificate used by this endpoint "
                          f"was not found: certificate '{name}' is not in master. State 85.")
        key = self._private_key(conn, sec, cert)
        return LocalEndpoint(int(ep["endpoint_id"]), encryption_mode(ep["encryption"]),
                             int(cert["certificate_id"]), certs.pem_of(cert["der"]), key,
                             tuple(r["der"] for r in rows if r["der"] is not None))

    @staticmethod
    def _private_key(conn: StoreConnection, sec: Security, cert: Any) -> bytes:
        """The endpoint certificate's private key in clear: it must be encrypted by master's
        database master key, itself encrypted by the service master key (as SQL Server)."""
        why = None
        if cert["private_key"] is None:
            why = "it has no private key"
        elif cert["pvt_key_encryption_type"] != "MK":
            why = "its private key is not encrypted by the master key"
        else:
            secret = servicekey.master_key_secret(sec.master_key(conn, MASTER))
            if secret is None:
                why = "the master key of master is not encrypted by the service master key"
            else:
                try:
                    return certs.clear_key_pem(cert["private_key"], secret)
                except (ValueError, TypeError):
                    why = "its private key cannot be decrypted"
        raise Refused("Connection handshake failed. The certificate used by this endpoint "
                      f"cannot be used: {why}. State 86.")

    def context(self, local: LocalEndpoint, server: bool) -> ssl.SSLContext:
        """The TLS 1.3 context presenting ``local``'s certificate and trusting master's."""
        key = (server, *local.fingerprint())
        with self._lock:
            ctx = self._contexts.get(key)
            if ctx is None:
                ctx = _make_context(local, server)
                self._contexts = {k: v for k, v in self._contexts.items()
                                  if k[1:] == key[1:]}        # drop stale settings' contexts
                self._contexts[key] = ctx
            return ctx

    # -- who the other side is ----------------------------------------------------------------
    def admit(self, local: LocalEndpoint, der: bytes | None) -> Peer:
        """The peer that presented certificate ``der`` if it may connect: the certificate is
        in master and a login that owns it (through its user in master, or mapped to it)
        holds CONNECT on this endpoint; :class:`Refused` otherwise."""
        if not der:
            raise Refused(NO_PEER_CERTIFICATE)
        thumb = hashlib.sha1(der).hexdigest().upper()
        conn = self.store.connect()
        try:
            sec = Security.get(self.store)
            cert = next((r for r in sec.certificates(conn, MASTER)
                         if r["thumbprint"] == thumb), None)
            if cert is None:
                raise Refused(NO_CERTIFICATE)
            logins = _owning_logins(conn, sec, cert)
            if not logins:
                raise Refused("Connection handshake failed. The certificate used by the peer "
                              f"('{cert['name']}') is not owned by a login. State 84.")
            refused = ""
            for login in logins:
                if login.is_disabled:
                    refused = refused or f"Connection handshake failed. The login " \
                        f"'{login.name}' is disabled. State 84."
                elif _has_connect(conn, sec, login.principal_id, local.endpoint_id):
                    return Peer(int(cert["certificate_id"]), login.name)
                else:
                    refused = refused or message_text(28034, login.name, 84)
            raise Refused(refused)
        finally:
            conn.close()


def _owning_logins(conn: StoreConnection, sec: Security, cert: Any) -> list[Any]:
    """The logins a certificate in master speaks for: the login of the user that owns it
    (dbo: sa), and any login mapped to the certificate (CREATE LOGIN … FROM CERTIFICATE)."""
    logins = sec.logins(conn)
    found = []
    owner = sec.user_by_id(conn, MASTER, int(cert["principal_id"]))
    if owner is not None:
        if owner.principal_id == _DBO:
            found += [lg for lg in logins if lg.principal_id == _SA]
        elif owner.sid:
            found += [lg for lg in logins if lg.sid == owner.sid and lg.type != "R"]
    mapped = certs.certificate_sid(bytes.fromhex(cert["thumbprint"]))
    found += [lg for lg in logins if lg.type == "C" and lg.sid == mapped and lg not in found]
    return found


def _has_connect(conn: StoreConnection, sec: Security, login_id: int, endpoint_id: int
                 ) -> bool:
    """Whether the login holds CONNECT on the endpoint: sa (sysadmin, and the endpoint's
    owner) always; else a GRANT of CONNECT or CONTROL on the endpoint, or CONTROL SERVER, to
    the login or to public, and no DENY of them."""
    if login_id == _SA:
        return True
    p = sec.t.permissions
    states = set(conn.execute(select(p.c.state).where(
        p.c.database_id == 0, p.c.minor_id == 0,
        p.c.grantee_principal_id.in_((login_id, _PUBLIC_SERVER_ROLE)),
        or_(and_(p.c["class"] == _ENDPOINT_CLASS, p.c.major_id == endpoint_id,
                 p.c.type.in_(("CO", "CL"))),
            and_(p.c["class"] == _SERVER_CLASS, p.c.type == "CL")))).scalars())
    return "D" not in states and bool(states & {"G", "W"})


def _make_context(local: LocalEndpoint, server: bool) -> ssl.SSLContext:
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER if server else ssl.PROTOCOL_TLS_CLIENT)
    ctx.minimum_version = ssl.TLSVersion.TLSv1_3
    # Peers are known by their certificate in master, not by a host name.
    ctx.check_hostname = False
    ctx.verify_mode = ssl.CERT_REQUIRED
    if server:
        # No session tickets: nothing arrives after the handshake that a reader did not ask
        # for (the sender waits for answers with select on the socket).
        ctx.num_tickets = 0
    # A peer's certificate is trusted when it *is* one of master's (exact match, as its
    # thumbprint is looked up afterwards), not when a same-named one could have issued it:
    # self-signed certificates of two instances often share a subject.
    ctx.verify_flags |= ssl.VERIFY_X509_PARTIAL_CHAIN
    ctx.load_verify_locations(cadata=b"".join(local.trusted))
    # ssl loads a key only from a file: a private (0600) temporary one, removed at once.
    fd, path = tempfile.mkstemp(prefix="tsqlb-ep-", suffix=".pem")
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(local.cert_pem + local.key_pem)
        ctx.load_cert_chain(path)
    finally:
        with contextlib.suppress(OSError):
            os.unlink(path)
    return ctx
