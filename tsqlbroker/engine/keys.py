"""The database master key and certificates of the security catalog (a mixin of
:class:`~tsqlbroker.engine.security.Security`).

Private keys are encrypted with their password or with the master key's secret (see
:mod:`certs`); a private key "encrypted by the master key" needs the key to exist and be open:
it opens itself while it is also encrypted by the service master key, else the session must
OPEN it (Msg 15581 otherwise). The secret itself is stored only encrypted (by the service
master key and by each password, :mod:`servicekey`); a store written before that kept it in
clear, and the first read of such a row encrypts it.
"""

from __future__ import annotations

import json
import secrets
import uuid
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING, Any

from sqlalchemy import delete, insert, select, update

from ..errors import BindError, tsql_error
from . import certs, servicekey
from .catalog import MASTER
from .securables import CLASSES

CERTIFICATE = CLASSES["CERTIFICATE"][0]  # the securable class of certificates

if TYPE_CHECKING:
    from ..storage.store import StoreConnection
    from .security_tables import SecurityTables

MASTER_KEY_NAME = "##MS_DatabaseMasterKey##"
FIRST_CERTIFICATE_ID = 256


def _now() -> datetime:
    return datetime.now()


def parse_cert_date(text: str) -> datetime:
    """START_DATE / EXPIRY_DATE: ISO forms and SQL Server's unseparated ``yyyymmdd``."""
    value = text.strip()
    for fmt in ("%Y%m%d", "%Y%m%d %H:%M:%S", "%m/%d/%Y", "%m/%d/%Y %H:%M:%S"):
        try:
            return datetime.strptime(value, fmt)
        except ValueError:
            pass
    try:
        return datetime.fromisoformat(value.replace("T", " ")).replace(tzinfo=None)
    except ValueError:
        raise tsql_error(241) from None


class KeysMixin:
    """CREATE / ALTER / DROP / OPEN MASTER KEY and CREATE / ALTER / DROP / BACKUP
    CERTIFICATE."""

    if TYPE_CHECKING:  # provided by Security
        t: SecurityTables

        def ensure(self, conn: StoreConnection) -> None: ...
        def users(self, conn: StoreConnection, db_id: int) -> list[Any]: ...
        def logins(self, conn: StoreConnection) -> list[Any]: ...
        def forget_securable(self, conn: StoreConnection, db_id: int, class_: int,
                             major_id: int) -> None: ...
        def _next_id(self, conn: StoreConnection, column: Any, first: int, *conds: Any
                     ) -> int: ...

    # -- the database master key --------------------------------------------------------------
    def master_key(self, conn: StoreConnection, db_id: int) -> Any:
        """The master key row of ``db_id`` (mapping) or None."""
        self.ensure(conn)
        mk = self.t.master_keys
        row = conn.execute(select(mk).where(mk.c.database_id == db_id)).mappings().first()
        if row is not None and servicekey.is_clear(row["secret"]):
            # A store from before the secret was encrypted: encrypt it on first sight.
            conn.write()
            conn.execute(update(mk).where(mk.c.database_id == db_id).values(
                secret=servicekey.by_service_key(row["secret"])))
            row = conn.execute(select(mk).where(mk.c.database_id == db_id)).mappings().first()
        return row

    def create_master_key(self, conn: StoreConnection, db_id: int, password: str | None
                          ) -> None:
        """CREATE MASTER KEY: one per database (Msg 15578); encrypted by the password and by
        the service master key, so it opens itself when needed."""
        if self.master_key(conn, db_id) is not None:
            raise tsql_error(15578)
        secret = secrets.token_hex(32)
        encryptions = [servicekey.by_password(secret, password)] if password is not None else []
        now = _now()
        conn.write()
        conn.execute(insert(self.t.master_keys).values(
            database_id=db_id, key_guid=str(uuid.uuid4()).upper(),
            secret=servicekey.by_service_key(secret), by_service_key=True,
            password_hashes=json.dumps(encryptions), create_date=now, modify_date=now))

    def _existing_key(self, conn: StoreConnection, db_id: int) -> Any:
        row = self.master_key(conn, db_id)
        if row is None:
            raise tsql_error(15151, "symmetric key", MASTER_KEY_NAME, cls=BindError)
        return row

    @staticmethod
    def _by_password(row: Any, password: str) -> str | None:
        """The secret, decrypted with ``password``; None if it is none of the key's."""
        for entry in json.loads(row["password_hashes"]):
            if entry.startswith(servicekey.PASSWORD_PREFIX):
                secret = servicekey.from_password(entry, password)
                if secret is not None:
                    return secret
            elif certs.password_matches(password, entry) and row["secret"]:
                # a password checked by hash only (older stores): the SMK copy holds the key
                return servicekey.from_service_key(row["secret"])
        return None

    @staticmethod
    def _encrypts_with(entry: str, password: str) -> bool:
        if entry.startswith(servicekey.PASSWORD_PREFIX):
            return servicekey.from_password(entry, password) is not None
        return certs.password_matches(password, entry)

    def open_master_key(self, conn: StoreConnection, db_id: int, password: str) -> str:
        """OPEN MASTER KEY: the secret the session holds open; Msg 15313 unless
        ``password`` is one of the key's encryptors."""
        secret = self._by_password(self._existing_key(conn, db_id), password)
        if secret is None:
            raise tsql_error(15313)
        return secret

    def _master_secret(self, row: Any, opened: str | None) -> str:
        """The secret of an existing key: open in the session, else through the service
        master key while the key is encrypted by it (Msg 15581 otherwise)."""
        if opened is not None:
            return opened
        secret = servicekey.master_key_secret(row)
        if secret is None:
            raise tsql_error(15581)
        return secret

    def alter_master_key(self, conn: StoreConnection, db_id: int, action: str,
                         password: str | None, service_key: bool, opened: str | None = None
                         ) -> None:
        """REGENERATE (new secret, private keys re-encrypted), ADD / DROP ENCRYPTION BY; each
        needs the key open (by the service master key or OPEN MASTER KEY: Msg 15581)."""
        row = self._existing_key(conn, db_id)
        encryptions: list[str] = json.loads(row["password_hashes"])
        values: dict[str, Any] = {"modify_date": _now()}
        if action == "DROP" and not service_key:
            kept = [e for e in encryptions if not self._encrypts_with(e, password or "")]
            if len(kept) == len(encryptions):
                raise tsql_error(15313)
            values["password_hashes"] = json.dumps(kept)
        elif action == "DROP":
            values.update(by_service_key=False, secret="")
        else:
            secret = self._master_secret(row, opened)
            if action == "REGENERATE":
                new = secrets.token_hex(32)
                self._reencrypt_keys(conn, db_id, secret, new)
                values.update(password_hashes=json.dumps(
                    [servicekey.by_password(new, password or "")]))
                if row["by_service_key"]:
                    values["secret"] = servicekey.by_service_key(new)
            elif service_key:
                values.update(by_service_key=True, secret=servicekey.by_service_key(secret))
            else:
                values["password_hashes"] = json.dumps(
                    [*encryptions, servicekey.by_password(secret, password or "")])
        mk = self.t.master_keys
        conn.write()
        conn.execute(update(mk).where(mk.c.database_id == db_id).values(**values))

    def _reencrypt_keys(self, conn: StoreConnection, db_id: int, old: str, new: str) -> None:
        c = self.t.certificates
        rows = conn.execute(select(c.c.certificate_id, c.c.private_key).where(
            c.c.database_id == db_id, c.c.pvt_key_encryption_type == "MK",
            c.c.private_key.is_not(None))).all()
        conn.write()
        for cid, pem in rows:
            conn.execute(update(c).where(c.c.database_id == db_id, c.c.certificate_id == cid)
                         .values(private_key=certs.reencrypt(pem, old, new)))

    def drop_master_key(self, conn: StoreConnection, db_id: int) -> None:
        """DROP MASTER KEY: refused while a private key is encrypted by it (Msg 15580)."""
        self._existing_key(conn, db_id)
        c = self.t.certificates
        name = conn.execute(select(c.c.name).where(
            c.c.database_id == db_id, c.c.pvt_key_encryption_type == "MK")).scalar()
        if name is not None:
            raise tsql_error(15580, "certificate", name)
        conn.write()
        mk = self.t.master_keys
        conn.execute(delete(mk).where(mk.c.database_id == db_id))

    # -- certificates -------------------------------------------------------------------------
    def certificates(self, conn: StoreConnection, db_id: int) -> list[Any]:
        """The certificate rows of ``db_id`` (mappings), by certificate_id."""
        self.ensure(conn)
        c = self.t.certificates
        return list(conn.execute(select(c).where(c.c.database_id == db_id)
                                 .order_by(c.c.certificate_id)).mappings())

    def find_certificate(self, conn: StoreConnection, db_id: int, name: str) -> Any:
        """The certificate called ``name`` in ``db_id`` (mapping), or None."""
        self.ensure(conn)
        c = self.t.certificates
        return conn.execute(select(c).where(c.c.database_id == db_id,
                                            c.c.name_key == name.lower())).mappings().first()

    def _key_secret(self, conn: StoreConnection, db_id: int, password: str | None,
                    master_key_open: str | None) -> tuple[str, str]:
        """(encryption type, secret) for a new private key: the password, else the master
        key, which must exist and be open (Msg 15581); ``master_key_open`` is the secret
        the session opened, if any."""
        if password is not None:
            return "PW", password
        row = self.master_key(conn, db_id)
        if row is None:
            raise tsql_error(15581)
        return "MK", self._master_secret(row, master_key_open)

    def create_certificate(self, conn: StoreConnection, db_id: int, name: str, *,
                           owner_id: int, subject: str | None, start: str | None,
                           expiry: str | None, password: str | None, file: str | None,
                           key_file: str | None, key_password: str | None,
                           active: bool | None, master_key_open: str | None) -> int:
        """CREATE CERTIFICATE … WITH SUBJECT (generated) or FROM FILE (loaded)."""
        if self.find_certificate(conn, db_id, name) is not None:
            raise tsql_error(15232, name)
        if file is not None:
            enc, secret = ("NA", "")
            if key_file is not None:
                enc, secret = self._key_secret(conn, db_id, password, master_key_open)
            material = certs.load(file, key_file, key_password, secret)
        else:
            begin = parse_cert_date(start) if start else datetime.now(UTC).replace(
                microsecond=0, tzinfo=None)
            end = parse_cert_date(expiry) if expiry else begin + timedelta(days=365)
            enc, secret = self._key_secret(conn, db_id, password, master_key_open)
            material = certs.generate(subject or "", begin, end, secret)
        if any(r["thumbprint"] == material.thumbprint.hex().upper()
               for r in self.certificates(conn, db_id)):
            raise tsql_error(15232, name)
        c = self.t.certificates
        conn.write()
        cid = self._next_id(conn, c.c.certificate_id, FIRST_CERTIFICATE_ID,
                            c.c.database_id == db_id)
        conn.execute(insert(c).values(
            database_id=db_id, certificate_id=cid, name=name, name_key=name.lower(),
            principal_id=owner_id, pvt_key_encryption_type=enc,
            password_hash=certs.password_hash(password) if enc == "PW" and password else None,
            is_active_for_begin_dialog=True if active is None else active,
            issuer_name=material.issuer_name, cert_serial_number=certs.serial_text(
                material.serial), subject=material.subject, start_date=material.start_date,
            expiry_date=material.expiry_date, thumbprint=material.thumbprint.hex().upper(),
            key_length=material.key_length, der=material.der,
            private_key=material.private_key_pem))
        return cid

    def _existing_cert(self, conn: StoreConnection, db_id: int, name: str) -> Any:
        row = self.find_certificate(conn, db_id, name)
        if row is None:
            raise tsql_error(15151, "certificate", name, cls=BindError)
        return row

    def alter_certificate(self, conn: StoreConnection, db_id: int, name: str, *,
                          remove_private_key: bool = False, active: bool | None = None,
                          key_file: str | None = None, key_password: str | None = None,
                          new_password: str | None = None, master_key_open: str | None = None
                          ) -> None:
        """ALTER CERTIFICATE: REMOVE PRIVATE KEY, WITH ACTIVE FOR BEGIN_DIALOG, WITH
        PRIVATE KEY (FILE …)."""
        row = self._existing_cert(conn, db_id, name)
        values: dict[str, Any] = {}
        if remove_private_key:
            values.update(private_key=None, pvt_key_encryption_type="NA", password_hash=None)
        if active is not None:
            values["is_active_for_begin_dialog"] = active
        if key_file is not None:
            enc, secret = self._key_secret(conn, db_id, new_password, master_key_open)
            pem = certs.load_key_only(key_file, key_password, secret, row["der"])
            values.update(private_key=pem, pvt_key_encryption_type=enc,
                          password_hash=certs.password_hash(secret) if enc == "PW" else None)
        if values:
            c = self.t.certificates
            conn.write()
            conn.execute(update(c).where(c.c.database_id == db_id,
                                         c.c.certificate_id == row["certificate_id"])
                         .values(**values))

    def drop_certificate(self, conn: StoreConnection, db_id: int, name: str) -> None:
        """DROP CERTIFICATE: refused while a user or login is mapped to it (Msg 3716)."""
        row = self._existing_cert(conn, db_id, name)
        sid = certs.certificate_sid(bytes.fromhex(row["thumbprint"]))
        if any(u.type == "C" and u.sid == sid for u in self.users(conn, db_id)):
            raise tsql_error(3716, "certificate", row["name"], "database principal")
        if db_id == MASTER and any(lg.type == "C" and lg.sid == sid
                                   for lg in self.logins(conn)):
            raise tsql_error(3716, "certificate", row["name"], "server principal")
        c = self.t.certificates
        conn.write()
        self.forget_securable(conn, db_id, CERTIFICATE, row["certificate_id"])
        conn.execute(delete(c).where(c.c.database_id == db_id,
                                     c.c.certificate_id == row["certificate_id"]))

    def backup_certificate(self, conn: StoreConnection, db_id: int, name: str, file: str,
                           key_file: str | None, key_password: str | None,
                           decryption_password: str | None, master_key_open: str | None) -> None:
        """BACKUP CERTIFICATE … TO FILE [WITH PRIVATE KEY (FILE, ENCRYPTION BY PASSWORD)]."""
        row = self._existing_cert(conn, db_id, name)
        secret = None
        if key_file is not None:
            if row["pvt_key_encryption_type"] == "PW":
                if decryption_password is None or not certs.password_matches(
                        decryption_password, row["password_hash"] or ""):
                    raise tsql_error(15466)
                secret = decryption_password
            elif row["pvt_key_encryption_type"] == "MK":
                secret = self._key_secret(conn, db_id, None, master_key_open)[1]
        certs.backup(row["der"], file, row["private_key"], secret, key_file, key_password)
        if key_file is not None:
            c = self.t.certificates
            conn.write()
            conn.execute(update(c).where(c.c.database_id == db_id,
                                         c.c.certificate_id == row["certificate_id"])
                         .values(pvt_key_last_backup_date=_now()))
