"""Service Broker dialog security between brokers (docs/transport.md, *Dialog security*).

SQL Server's model ("Service Broker Dialog Security", "Determining the Dialog Security
Type", "Certificates for Dialog Security"): a dialog whose target service has a REMOTE
SERVICE BINDING in the initiator's database is secured, whatever BEGIN DIALOG's ENCRYPTION
says; one without a binding is secured only when begun ``WITH ENCRYPTION = ON`` — and then it
cannot be (it waits, Msg 9727). For a secured dialog the initiator

* takes the certificate with the latest expiry date owned by the binding's user (valid now,
  ``ACTIVE FOR BEGIN_DIALOG``) — the target's certificate, its public key imported — and,
  unless the binding says ``ANONYMOUS = ON``, the same kind of certificate *with a private
  key* owned by the initiating service's owner;
* makes a random 256-bit session key, keeps it wrapped by the database master key (which
  the service master key opens: Msg 28050 without one), and sends it with the dialog's first
  message encrypted with the target certificate's public key (RSA-OAEP) and signed with its
  own private key (RSA-PSS);
* encrypts every message body of the dialog with the session key (AES-256-GCM, the
  conversation id, direction, sequence number and message type as associated data), end
  to end: a broker in between holds no key that opens it.

The target decrypts the session key with the private key of its certificate the initiator
named, verifies the signature with a certificate of its database that has the initiator's
public key, and acts for that certificate's owner (for ANONYMOUS: public): the owner needs
SEND on the target service. Its first message back carries its own signature over the
session key, which the initiator verifies with the target certificate: both sides are
authenticated once a message went each way. What cannot be done is answered with a
``nack`` whose text the sender shows in ``sys.transmission_queue`` (the message is retried,
as SQL Server leaves an undeliverable message with its sender).
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
import threading
from dataclasses import dataclass
from datetime import UTC, datetime
from functools import cache
from typing import TYPE_CHECKING, Any, Literal

from sqlalchemy import (
    Column,
    Integer,
    LargeBinary,
    MetaData,
    String,
    Table,
    Text,
    delete,
    insert,
    select,
)

from ...errors import message_text
from ...lazy import LazyModule
from ...storage.store import StoreConnection
from .. import access, servicekey
from ..security import Security
from .model import Endpoint

if TYPE_CHECKING:
    from cryptography import exceptions as crypto_errors
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import padding
    from cryptography.hazmat.primitives.ciphers import aead
    from cryptography.hazmat.primitives.kdf import hkdf

    from ...storage.txn import Txn
    from .state import BrokerState
else:
    # Start-up laziness: cryptography (~50 ms to import) loads with the first secured
    # dialog.
    crypto_errors = LazyModule("cryptography.exceptions", globals(), "crypto_errors")
    x509 = LazyModule("cryptography.x509", globals(), "x509")
    hashes = LazyModule("cryptography.hazmat.primitives.hashes", globals(), "hashes")
    serialization = LazyModule("cryptography.hazmat.primitives.serialization", globals(),
                               "serialization")
    padding = LazyModule("cryptography.hazmat.primitives.asymmetric.padding", globals(),
                         "padding")
    aead = LazyModule("cryptography.hazmat.primitives.ciphers.aead", globals(), "aead")
    hkdf = LazyModule("cryptography.hazmat.primitives.kdf.hkdf", globals(), "hkdf")

TABLE = "tsqlb_sb_dialog_keys"
_SERVICE_CLASS = 17
_DBO = 1
_KEY_BYTES = 32
_NONCE = 12
_CACHE = 1024        # session keys kept in memory per process

NO_CERTIFICATE = ("Dialog security is unavailable for this conversation because there is no "
                  "security certificate bound to the database principal (Id: {}). Either "
                  "create a certificate for the principal, or specify ENCRYPTION = OFF when "
                  "beginning the conversation.")
UNDELIVERABLE = "This message could not be delivered because the security context could " \
                "not be retrieved. {}"
NO_SEND = ("This message could not be delivered because the user with ID {} in database ID "
           "{} does not have permission to send to the service. Service name: '{}'.")
TAMPERED = ("This message could not be delivered because it could not be decrypted: its "
            "body was altered on the way or not encrypted with this conversation's "
            "session key.")
CLEAR_ON_SECURED = ("This message could not be delivered because it is not encrypted, and "
                    "its conversation uses dialog security.")

# Members of a message frame added by dialog security (docs/transport.md, *Frames*).
EXCHANGE = ("sk", "sk_to", "sk_from", "sk_sig", "sk_proof")

_table_lock = threading.Lock()


class Undeliverable(Exception):
    """A message dialog security refuses now; the text goes back as the nack's status."""


def key_table(metadata: MetaData) -> Table:
    """The table of dialog session keys (defined on first use; created with the transport's
    other tables when an endpoint starts listening)."""
    with _table_lock:
        table = metadata.tables.get(TABLE)
        if table is None:
            table = Table(
                TABLE, metadata,
                Column("conversation_id", String(36), primary_key=True),
                Column("is_initiator", Integer, primary_key=True, autoincrement=False),
                Column("database_id", Integer, nullable=False),
                # nonce + AES-GCM of the session key, keyed from the database master key
                Column("session_key", LargeBinary, nullable=False),
                # thumbprint of the far side's certificate (initiator: the target's)
                Column("far_cert", String(40)),
                # the header members this side's first message carries (flat JSON)
                Column("exchange", Text, nullable=False),
            )
        return table


@dataclass(frozen=True)
class Session:
    """A secured dialog's key as one side holds it."""

    key: bytes
    exchange: dict[str, str]
    far_cert: str | None


@dataclass(frozen=True)
class Plan:
    """What an initiator needs to secure a dialog."""

    secret: str                    # the database master key's secret
    target: Any                    # certificate row: the binding user's (public key)
    own: Any | None                # certificate row with private key (None: anonymous)


# -- certificates and keys ---------------------------------------------------------------------
def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


def _unb64(text: Any) -> bytes:
    try:
        return base64.b64decode(str(text), validate=True)
    except (ValueError, TypeError):
        raise Undeliverable(UNDELIVERABLE.format("The key exchange is not base64.")) from None


def _wrapping_key(secret: str, conversation_id: str, is_initiator: int
                  ) -> tuple[aead.AESGCM, bytes]:
    key = hkdf.HKDF(algorithm=hashes.SHA256(), length=32, salt=None,
                    info=b"tsqlbroker dialog session key").derive(secret.encode("utf-8"))
    return aead.AESGCM(key), f"{conversation_id.upper()}|{is_initiator}".encode("ascii")


def wrap(secret: str, conversation_id: str, is_initiator: int, session_key: bytes) -> bytes:
    """``session_key`` encrypted with a key derived from the master key's ``secret``."""
    cipher, aad = _wrapping_key(secret, conversation_id, is_initiator)
    nonce = os.urandom(_NONCE)
    return nonce + cipher.encrypt(nonce, session_key, aad)


def unwrap(secret: str, conversation_id: str, is_initiator: int, data: bytes) -> bytes:
    """The session key :func:`wrap` made; InvalidTag with another secret."""
    cipher, aad = _wrapping_key(secret, conversation_id, is_initiator)
    return cipher.decrypt(data[:_NONCE], data[_NONCE:], aad)


def _body_aad(conversation_id: str, sender_is_initiator: int, seq: int, message_type: str
              ) -> bytes:
    return f"{conversation_id.upper()}|{sender_is_initiator}|{seq}|{message_type}".encode()


def seal_body(key: bytes, conversation_id: str, sender_is_initiator: int, seq: int,
              message_type: str, body: bytes | None) -> bytes | None:
    """A message body encrypted with the session key (a NULL body stays NULL)."""
    if body is None:
        return None
    nonce = os.urandom(_NONCE)
    return nonce + aead.AESGCM(key).encrypt(
        nonce, bytes(body), _body_aad(conversation_id, sender_is_initiator, seq, message_type))


def open_body(key: bytes, conversation_id: str, sender_is_initiator: int, seq: int,
              message_type: str, body: bytes | None) -> bytes | None:
    """The clear body of :func:`seal_body`; :class:`Undeliverable` when it was altered."""
    if body is None:
        return None
    try:
        return aead.AESGCM(key).decrypt(body[:_NONCE], body[_NONCE:], _body_aad(
            conversation_id, sender_is_initiator, seq, message_type))
    except (crypto_errors.InvalidTag, ValueError):
        raise Undeliverable(TAMPERED) from None


def _signed(conversation_id: str, *parts: bytes) -> bytes:
    return b"|".join([b"tsqlbroker-dialog", conversation_id.upper().encode("ascii"), *parts])


@cache
def _pss() -> padding.PSS:
    """The signatures' padding (made on first use: cryptography loads lazily)."""
    return padding.PSS(mgf=padding.MGF1(hashes.SHA256()), salt_length=padding.PSS.MAX_LENGTH)


@cache
def _oaep() -> padding.OAEP:
    """The session key's encryption padding."""
    return padding.OAEP(mgf=padding.MGF1(hashes.SHA256()), algorithm=hashes.SHA256(),
                        label=None)


def _public(cert: Any) -> Any:
    return x509.load_der_x509_certificate(bytes(cert["der"])).public_key()


def _private(cert: Any, secret: str) -> Any:
    return serialization.load_pem_private_key(bytes(cert["private_key"]),
                                              secret.encode("utf-8"))


def _usable(cert: Any, now: datetime) -> bool:
    """A certificate dialog security may pick: key material, valid now, active for
    BEGIN DIALOG."""
    return (cert["der"] is not None and bool(cert["is_active_for_begin_dialog"])
            and (cert["start_date"] is None or cert["start_date"] <= now)
            and (cert["expiry_date"] is None or cert["expiry_date"] > now))


def _latest(certs: list[Any]) -> Any | None:
    return max(certs, key=lambda c: c["expiry_date"] or datetime.max, default=None)


def master_secret(sec: Security, conn: StoreConnection, db_id: int) -> str | None:
    """The database master key's secret when the service master key opens it (SQL Server
    needs that for Service Broker, Msg 28054), else None."""
    return servicekey.master_key_secret(sec.master_key(conn, db_id))


# -- the initiator ------------------------------------------------------------------------------
def _binding(state: BrokerState, conn: StoreConnection, ep: Endpoint) -> Any | None:
    b = state.t.bindings
    return conn.execute(select(b).where(b.c.database_id == ep.database_id,
                                        b.c.remote_service_name == ep.far_service)
                        .limit(1)).mappings().first()


def _service_owner(state: BrokerState, conn: StoreConnection, ep: Endpoint) -> int:
    s = state.t.services
    owner = conn.execute(select(s.c.principal_id).where(
        s.c.database_id == ep.database_id, s.c.service_id == ep.service_id)).scalar()
    return int(owner or _DBO)


def plan(state: BrokerState, conn: StoreConnection, ep: Endpoint) -> Plan | str | None:
    """How initiator endpoint ``ep``'s messages to another broker are secured: None (no
    dialog security), a :class:`Plan`, or the transmission_status under which they wait."""
    if not ep.is_initiator:
        return None
    binding = _binding(state, conn, ep)
    if binding is None:
        return message_text(9727) if ep.encryption else None
    sec = Security.get(state.store)
    secret = master_secret(sec, conn, ep.database_id)
    if secret is None:
        return message_text(28050)
    now = datetime.now(UTC).replace(tzinfo=None)     # certificate dates are UTC
    user = sec.find_user(conn, ep.database_id, str(binding["remote_user"] or ""))
    user_id = user.principal_id if user is not None else int(binding["remote_principal_id"]
                                                              or 0)
    rows = [c for c in sec.certificates(conn, ep.database_id) if _usable(c, now)]
    target = _latest([c for c in rows if c["principal_id"] == user_id])
    if target is None:
        return NO_CERTIFICATE.format(user_id)
    if binding["is_anonymous_on"]:
        return Plan(secret, target, None)
    owner = _service_owner(state, conn, ep)
    own = _latest([c for c in rows if c["principal_id"] == owner
                   and c["private_key"] is not None and c["pvt_key_encryption_type"] == "MK"])
    if own is None:
        return NO_CERTIFICATE.format(owner)
    return Plan(secret, target, own)


def status(state: BrokerState, conn: StoreConnection, ep: Endpoint) -> str:
    """Why initiator ``ep``'s messages cannot leave this instance now ('' if they can)."""
    found = plan(state, conn, ep)
    return found if isinstance(found, str) else ""


def _begin(ep: Endpoint, found: Plan) -> tuple[bytes, dict[str, str]]:
    """A new session key and the key-exchange members of the dialog's first message."""
    key = os.urandom(_KEY_BYTES)
    sealed = _public(found.target).encrypt(key, _oaep())
    exchange = {"sk": _b64(sealed), "sk_to": str(found.target["thumbprint"])}
    if found.own is not None:
        signer = _private(found.own, found.secret)
        exchange["sk_from"] = str(found.own["thumbprint"])
        exchange["sk_sig"] = _b64(signer.sign(
            _signed(ep.conversation_id, exchange["sk_to"].encode("ascii"), sealed),
            _pss(), hashes.SHA256()))
    return key, exchange


class DialogKeys:
    """One broker's session keys: made for its initiators, taken from its targets' first
    messages, kept wrapped in :data:`TABLE` and (clear) in memory while used."""

    def __init__(self, state: BrokerState) -> None:
        self.state = state
        self.table = key_table(state.store.metadata)
        self._lock = threading.Lock()
        self._cache: dict[tuple[str, int], Session] = {}
        # Endpoints known to have no session key (their dialogs' messages go as they are):
        # SQL Server decides a dialog's security when it begins, so this holds until a key
        # is stored here. Spares unsecured dialogs a read per message.
        self._clear: set[tuple[str, int]] = set()

    def _remember(self, cid: str, init: int, session: Session) -> Session:
        with self._lock:
            if len(self._cache) >= _CACHE:
                self._cache.clear()
            self._cache[(cid.upper(), init)] = session
            self._clear.discard((cid.upper(), init))
        return session

    def _unsecured(self, cid: str, init: int) -> None:
        with self._lock:
            if len(self._clear) >= 4 * _CACHE:
                self._clear.clear()
            self._clear.add((cid.upper(), init))

    def load(self, conn: StoreConnection, cid: str, init: int) -> Session | None:
        """The session key of conversation ``cid``'s endpoint ``init`` here, if secured."""
        with self._lock:
            found = self._cache.get((cid.upper(), init))
            if found is None and (cid.upper(), init) in self._clear:
                return None
        if found is not None:
            return found
        k = self.table
        row = conn.execute(select(k).where(k.c.conversation_id == cid.upper(),
                                           k.c.is_initiator == init)).mappings().first()
        if row is None:
            self._unsecured(cid, init)
            return None
        secret = master_secret(Security.get(self.state.store), conn, int(row["database_id"]))
        if secret is None:
            raise Undeliverable(message_text(28050))
        try:
            key = unwrap(secret, cid, init, bytes(row["session_key"]))
        except (crypto_errors.InvalidTag, ValueError):
            raise Undeliverable(message_text(28050)) from None
        return self._remember(cid, init, Session(key, json.loads(row["exchange"]),
                                                 row["far_cert"]))

    def _store(self, conn: StoreConnection, ep_db: int, cid: str, init: int, secret: str,
               session: Session) -> None:
        conn.execute(insert(self.table).values(
            conversation_id=cid.upper(), is_initiator=init, database_id=ep_db,
            session_key=wrap(secret, cid, init, session.key),
            far_cert=session.far_cert, exchange=json.dumps(session.exchange)))
        self._remember(cid, init, session)

    def forget(self, conn: StoreConnection, cid: str, init: int) -> None:
        """Drop the key of a conversation endpoint both sides are done with."""
        with self._lock:
            self._cache.pop((cid.upper(), init), None)
            self._clear.discard((cid.upper(), init))
        k = self.table
        conn.execute(delete(k).where(k.c.conversation_id == cid.upper(),
                                     k.c.is_initiator == init))

    # -- sending ----------------------------------------------------------------------------
    def known(self, ep: Endpoint) -> Session | None | Literal[False]:
        """What :meth:`outgoing` would say from memory alone: a session, None (unsecured),
        or False when it must look in the store."""
        cid, init = ep.conversation_id.upper(), 1 if ep.is_initiator else 0
        with self._lock:
            found = self._cache.get((cid, init))
            if found is not None:
                return found
            if (cid, init) in self._clear and (not init or (cid, -1) in self._clear):
                return None
        return False

    def outgoing(self, conn: StoreConnection, ep: Endpoint) -> Session | Plan | str | None:
        """What ``ep``'s next message is sealed with: its session; a :class:`Plan` when an
        initiator's first secured message needs one made (:meth:`begin`); a status to hold
        it with; or None (not secured). Reads only."""
        init = 1 if ep.is_initiator else 0
        try:
            found = self.load(conn, ep.conversation_id, init)
        except Undeliverable as exc:
            return str(exc)
        if found is not None or not ep.is_initiator:
            return found
        with self._lock:
            if (ep.conversation_id.upper(), -1) in self._clear:
                return None          # decided unsecured at its first message
        how = plan(self.state, conn, ep)
        if how is None:
            self._unsecured(ep.conversation_id, -1)
        return how

    def begin(self, txn: Txn, ep: Endpoint, how: Plan) -> Session:
        """A new session key for initiator ``ep``, stored in ``txn``."""
        key, exchange = _begin(ep, how)
        session = Session(key, exchange, str(how.target["thumbprint"]))
        txn.write()
        self._store(txn.conn, ep.database_id, ep.conversation_id, 1, how.secret, session)
        return session

    @staticmethod
    def seal(frame: dict[str, Any], session: Session) -> dict[str, Any]:
        """Message ``frame`` with its body encrypted (and, the first message of its side,
        the key exchange)."""
        init = 1 if frame["init"] else 0
        sealed = {**frame, "enc": 1, "body": seal_body(
            session.key, frame["cid"], init, frame["seq"], frame["type"], frame["body"])}
        if frame["seq"] == 0:
            sealed.update(session.exchange)
        return sealed

    # -- receiving --------------------------------------------------------------------------
    def incoming(self, txn: Txn, frame: dict[str, Any]) -> tuple[bytes | None, Any]:
        """The clear body of message ``frame`` and, for the first message of a secured
        dialog, what :meth:`established` must store once the target endpoint exists;
        :class:`Undeliverable` when the message cannot be taken now."""
        conn = txn.conn
        cid = str(frame["cid"]).upper()
        sender = 1 if frame["init"] else 0
        here = 1 - sender
        session = self.load(conn, cid, here)
        pending = None
        if session is None:
            if not frame.get("enc"):
                return frame.get("body"), None
            if not (sender and "sk" in frame):
                raise Undeliverable(UNDELIVERABLE.format(
                    "There is no session key for this conversation."))
            session, pending = self._accept_key(conn, frame)
        elif not frame.get("enc"):
            raise Undeliverable(CLEAR_ON_SECURED)
        body = open_body(session.key, cid, sender, int(frame["seq"]), str(frame["type"]),
                         frame.get("body"))
        if not sender and int(frame["seq"]) == 0:
            self._check_proof(conn, cid, session, frame)
        return body, pending

    def established(self, txn: Txn, pending: Any) -> None:
        """Store the target's session key taken by :meth:`incoming` (its endpoint exists)."""
        db_id, cid, secret, session = pending
        self._store(txn.conn, db_id, cid, 0, secret, session)

    def _target_db(self, conn: StoreConnection, frame: dict[str, Any]) -> Any:
        want = str(frame.get("to_broker") or "").upper()
        for meta in self.state.meta.all_loaded(conn):
            if want and meta.broker_guid.upper() != want:
                continue
            if frame["to_service"] in meta.services_by_name:
                return meta
        raise Undeliverable(message_text(8490, frame["to_service"]))

    def _accept_key(self, conn: StoreConnection, frame: dict[str, Any]
                    ) -> tuple[Session, Any]:
        """The target's side of the key exchange (see the module docstring)."""
        meta = self._target_db(conn, frame)
        db_id = meta.database_id
        sec = Security.get(self.state.store)
        secret = master_secret(sec, conn, db_id)
        if secret is None:
            raise Undeliverable(message_text(28050))
        certs = {c["thumbprint"]: c for c in sec.certificates(conn, db_id)}
        mine = certs.get(str(frame.get("sk_to") or "").upper())
        if mine is None or mine["private_key"] is None \
                or mine["pvt_key_encryption_type"] != "MK":
            raise Undeliverable(UNDELIVERABLE.format(
                "The certificate the session key is encrypted for (thumbprint "
                f"{frame.get('sk_to')}) is not in the target database with a private key "
                "encrypted by its master key."))
        sealed = _unb64(frame["sk"])
        try:
            key = _private(mine, secret).decrypt(sealed, _oaep())
        except ValueError:
            raise Undeliverable(UNDELIVERABLE.format(
                "The session key cannot be decrypted with the target's certificate.")) from None
        if len(key) != _KEY_BYTES:
            raise Undeliverable(UNDELIVERABLE.format("The session key has the wrong size."))
        user_id = access.PUBLIC
        if frame.get("sk_from"):
            theirs = certs.get(str(frame["sk_from"]).upper())
            if theirs is None or theirs["der"] is None:
                raise Undeliverable(UNDELIVERABLE.format(
                    f"The initiator's certificate (thumbprint {frame['sk_from']}) is not in "
                    "the target database."))
            try:
                _public(theirs).verify(
                    _unb64(frame.get("sk_sig")),
                    _signed(str(frame["cid"]), str(frame["sk_to"]).encode("ascii"), sealed),
                    _pss(), hashes.SHA256())
            except crypto_errors.InvalidSignature:
                raise Undeliverable(UNDELIVERABLE.format(
                    "The initiator's signature does not verify with its certificate "
                    f"'{theirs['name']}'.")) from None
            user_id = int(theirs["principal_id"])
        self._check_send(conn, sec, db_id, user_id, str(frame["to_service"]), meta)
        proof = _private(mine, secret).sign(
            _signed(str(frame["cid"]), b"target", hashlib.sha256(key).digest()),
            _pss(), hashes.SHA256())
        session = Session(key, {"sk_proof": _b64(proof)}, frame.get("sk_from"))
        return session, (db_id, str(frame["cid"]).upper(), secret, session)

    def public_refusal(self, conn: StoreConnection, meta: Any, service: str) -> str | None:
        """The status refusing the first message of an *unsecured* dialog from another
        broker when ``public`` lacks SEND on target ``service`` of database ``meta`` (or is
        denied it), else None: without dialog security the initiator acts as public in the
        target database ("Determining the Dialog Security Type", *No dialog security*) —
        the check :meth:`_accept_key` makes for the certificate's owner."""
        try:
            self._check_send(conn, Security.get(self.state.store), meta.database_id,
                             access.PUBLIC, service, meta)
        except Undeliverable as exc:
            return str(exc)
        return None

    @staticmethod
    def _check_send(conn: StoreConnection, sec: Security, db_id: int, user_id: int,
                    service: str, meta: Any) -> None:
        """The user the initiator is mapped to needs SEND on the target service (dbo, the
        owner of every service but those created WITH AUTHORIZATION, always has it)."""
        svc = meta.services_by_name[service]
        if user_id == _DBO:
            return
        path = [(_SERVICE_CLASS, svc.service_id), (0, 0)]
        principals = access.principal_set(sec, conn, db_id, user_id)
        if access.denied(sec, conn, db_id, principals, "SEND", path) \
                or not access.holds(sec, conn, db_id, principals, "SEND", path):
            raise Undeliverable(NO_SEND.format(user_id, db_id, service))

    def _check_proof(self, conn: StoreConnection, cid: str, session: Session,
                     frame: dict[str, Any]) -> None:
        """The initiator's check of the target's first message: signed over the session key
        with the private key of the certificate the key was encrypted for."""
        sec = Security.get(self.state.store)
        k = self.table
        db_id = conn.execute(select(k.c.database_id).where(
            k.c.conversation_id == cid, k.c.is_initiator == 1)).scalar()
        cert = next((c for c in sec.certificates(conn, int(db_id or 0))
                     if c["thumbprint"] == session.far_cert), None)
        if cert is None or "sk_proof" not in frame:
            raise Undeliverable(UNDELIVERABLE.format(
                "The target did not prove that it holds its certificate's private key."))
        try:
            _public(cert).verify(_unb64(frame["sk_proof"]), _signed(
                cid, b"target", hashlib.sha256(session.key).digest()), _pss(), hashes.SHA256())
        except crypto_errors.InvalidSignature:
            raise Undeliverable(UNDELIVERABLE.format(
                "The target's signature does not verify with the certificate "
                f"'{cert['name']}'.")) from None
