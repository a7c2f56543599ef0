"""X.509 certificates for ``CREATE CERTIFICATE``: generated, loaded from a file, backed up.

SQL Server generates a self-signed certificate with a 2048-bit RSA key whose issuer and
subject are ``CN=<subject>``, a 16-byte random serial number, and the SHA-1 thumbprint of the
DER encoding. When the ``cryptography`` package is installed, that is what is made here;
without it the certificate's metadata is still recorded (random serial and thumbprint) but
there is no key material, so BACKUP CERTIFICATE and CREATE CERTIFICATE FROM FILE fail with
Msg 15208 as for an unreadable file.

Private keys are kept as PKCS#8 PEM encrypted with the password or the database master key's
secret; BACKUP writes the certificate as DER (as SQL Server's ``.cer``) and the private key
as encrypted PKCS#8 DER (SQL Server writes PVK; tsqlbroker reads back its own files).
"""

from __future__ import annotations

import hashlib
import importlib.util
import secrets
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import tsql_error
from ..lazy import LazyModule

# Optional: real certificates only when the package is already installed. Start-up
# laziness: cryptography (~50 ms to import) loads with the first certificate made or read.
HAVE_CRYPTOGRAPHY = importlib.util.find_spec("cryptography") is not None
if TYPE_CHECKING:
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import rsa
else:
    x509 = LazyModule("cryptography.x509", globals(), "x509")
    hashes = LazyModule("cryptography.hazmat.primitives.hashes", globals(), "hashes")
    serialization = LazyModule("cryptography.hazmat.primitives.serialization", globals(),
                               "serialization")
    rsa = LazyModule("cryptography.hazmat.primitives.asymmetric.rsa", globals(), "rsa")

KEY_BITS = 2048


@dataclass(frozen=True)
class CertMaterial:
    """What sys.certificates shows of a certificate, plus its DER and (encrypted) key."""

    issuer_name: str
    subject: str
    serial: bytes
    thumbprint: bytes
    start_date: datetime
    expiry_date: datetime
    key_length: int
    der: bytes | None
    private_key_pem: bytes | None  # PKCS#8, encrypted with ``key_secret``


def serial_text(serial: bytes) -> str:
    """cert_serial_number as SQL Server shows it: hex byte pairs, one space apart."""
    return " ".join(f"{b:02x}" for b in serial)


def certificate_sid(thumbprint: bytes) -> bytes:
    """The SID of a principal mapped to a certificate: S-1-9-1 and the thumbprint."""
    return bytes.fromhex("010600000000000901000000") + thumbprint[:20].ljust(20, b"\0")


def sid_text(sid: bytes) -> str:
    """A binary SID in its ``S-1-…`` form."""
    if len(sid) < 8:
        return ""
    count = sid[1]
    authority = int.from_bytes(sid[2:8], "big")
    subs = [int.from_bytes(sid[8 + 4 * i:12 + 4 * i], "little") for i in range(count)
            if 12 + 4 * i <= len(sid)]
    return "-".join(["S", str(sid[0]), str(authority), *map(str, subs)])


def _encrypt_key(key: Any, secret: str) -> bytes:
    return key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                             serialization.BestAvailableEncryption(secret.encode("utf-8")))


def generate(subject: str, start: datetime, expiry: datetime, key_secret: str) -> CertMaterial:
    """A new self-signed certificate (or, without ``cryptography``, its metadata only)."""
    # 16 bytes as SQL Server's serials, the first in 1..0x7F: a DER INTEGER drops leading
    # zero bytes and would add one for a set high bit, changing the serial's length.
    serial = bytes([1 + secrets.randbelow(0x7F)]) + secrets.token_bytes(15)
    if not HAVE_CRYPTOGRAPHY:
        return CertMaterial(subject, subject, serial, secrets.token_bytes(20), start, expiry,
                            KEY_BITS, None, None)
    key = rsa.generate_private_key(public_exponent=65537, key_size=KEY_BITS)
    name = x509.Name([x509.NameAttribute(x509.NameOID.COMMON_NAME, subject or " ")])
    cert = (x509.CertificateBuilder().subject_name(name).issuer_name(name)
            .public_key(key.public_key())
            .serial_number(int.from_bytes(serial, "big"))
            .not_valid_before(start).not_valid_after(expiry)
            .sign(key, hashes.SHA256()))
    return _material(cert, _encrypt_key(key, key_secret))


def _material(cert: Any, key_pem: bytes | None) -> CertMaterial:
    der = cert.public_bytes(serialization.Encoding.DER)
    attrs = cert.subject.get_attributes_for_oid(x509.NameOID.COMMON_NAME)
    issuer = cert.issuer.get_attributes_for_oid(x509.NameOID.COMMON_NAME)
    subject = str(attrs[0].value) if attrs else cert.subject.rfc4514_string()
    serial_int = cert.serial_number
    serial = serial_int.to_bytes(max(1, (serial_int.bit_length() + 7) // 8), "big")
    return CertMaterial(
        str(issuer[0].value) if issuer else cert.issuer.rfc4514_string(), subject, serial,
        hashlib.sha1(der).digest(),  # the thumbprint is SHA-1 by definition
        cert.not_valid_before_utc.replace(tzinfo=None),
        cert.not_valid_after_utc.replace(tzinfo=None),
        cert.public_key().key_size, der, key_pem)


def pem_of(der: bytes) -> bytes:
    """A certificate's DER as PEM (what the ``ssl`` module loads)."""
    return x509.load_der_x509_certificate(der).public_bytes(serialization.Encoding.PEM)


def clear_key_pem(key_pem: bytes, secret: str) -> bytes:
    """A stored private key (PKCS#8 PEM encrypted with ``secret``) as unencrypted PKCS#8
    PEM, for a TLS context; ValueError / TypeError when ``secret`` does not open it."""
    key = serialization.load_pem_private_key(key_pem, secret.encode("utf-8"))
    return key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                             serialization.NoEncryption())


def _bad_file() -> Exception:
    return tsql_error(15208)


def load(path: str, key_path: str | None, key_password: str | None,
         key_secret: str | None) -> CertMaterial:
    """``CREATE CERTIFICATE … FROM FILE``: DER or PEM; the private key (PKCS#8 DER or PEM,
    decrypted with ``key_password``) re-encrypted with ``key_secret``."""
    if not HAVE_CRYPTOGRAPHY:
        raise _bad_file()
    try:
        data = Path(path).read_bytes()
        cert = (x509.load_pem_x509_certificate(data) if data.lstrip().startswith(b"-----")
                else x509.load_der_x509_certificate(data))
    except (OSError, ValueError) as exc:
        raise _bad_file() from exc
    pem = None
    if key_path is not None:
        try:
            raw = Path(key_path).read_bytes()
            pw = key_password.encode("utf-8") if key_password else None
            key = (serialization.load_pem_private_key(raw, pw)
                   if raw.lstrip().startswith(b"-----")
                   else serialization.load_der_private_key(raw, pw))
        except (OSError, ValueError, TypeError) as exc:
            raise _bad_file() from exc
        pem = _encrypt_key(key, key_secret or "")
    return _material(cert, pem)


def load_key_only(key_path: str, key_password: str | None, key_secret: str,
                  der: bytes | None) -> bytes:
    """ALTER CERTIFICATE … WITH PRIVATE KEY (FILE = …): the key, re-encrypted with
    ``key_secret``; it must belong to the certificate (Msg 15208 otherwise)."""
    if not HAVE_CRYPTOGRAPHY or der is None:
        raise _bad_file()
    try:
        raw = Path(key_path).read_bytes()
        pw = key_password.encode("utf-8") if key_password else None
        key = (serialization.load_pem_private_key(raw, pw) if raw.lstrip().startswith(b"-----")
               else serialization.load_der_private_key(raw, pw))
        cert = x509.load_der_x509_certificate(der)
    except (OSError, ValueError, TypeError) as exc:
        raise _bad_file() from exc
    if key.public_key().public_numbers() != cert.public_key().public_numbers():
        raise _bad_file()
    return _encrypt_key(key, key_secret)


def _write_new(path: str, data: bytes) -> None:
    """Write a backup file; SQL Server refuses to overwrite one (Msg 15240)."""
    try:
        with open(path, "xb") as fh:
            fh.write(data)
    except OSError as exc:
        raise tsql_error(15240, path) from exc


def backup(der: bytes | None, path: str, key_pem: bytes | None, key_secret: str | None,
           key_path: str | None, key_password: str | None) -> None:
    """``BACKUP CERTIFICATE … TO FILE`` [WITH PRIVATE KEY (FILE, ENCRYPTION BY PASSWORD)]."""
    if der is None or not HAVE_CRYPTOGRAPHY:
        raise _bad_file()
    key_bytes = None
    if key_path is not None:
        if key_pem is None:  # no private key to back up (NO_PRIVATE_KEY)
            raise _bad_file()
        try:
            key = serialization.load_pem_private_key(key_pem, (key_secret or "").encode())
        except (ValueError, TypeError) as exc:
            raise tsql_error(15466) from exc
        key_bytes = key.private_bytes(
            serialization.Encoding.DER, serialization.PrivateFormat.PKCS8,
            serialization.BestAvailableEncryption((key_password or "").encode("utf-8")))
    _write_new(path, der)
    if key_path is not None and key_bytes is not None:
        _write_new(key_path, key_bytes)


def reencrypt(key_pem: bytes, old_secret: str, new_secret: str) -> bytes:
    """The private key encrypted with another secret (the master key was regenerated)."""
    key = serialization.load_pem_private_key(key_pem, old_secret.encode("utf-8"))
    return _encrypt_key(key, new_secret)


def password_hash(password: str, salt: bytes | None = None) -> str:
    """``salt$hash`` (PBKDF2-SHA256) for checking a password later without storing it."""
    salt = salt or secrets.token_bytes(16)
    digest = hashlib.pbkdf2_hmac("sha256", password.encode("utf-8"), salt, 100_000)
    return f"{salt.hex()}${digest.hex()}"


def password_matches(password: str, stored: str) -> bool:
    """Whether ``password`` is the one ``stored`` was made from (:func:`password_hash`'s
    form, or a SQL Server hash CREATE / ALTER LOGIN … HASHED kept as ``0x…``)."""
    if stored.startswith("0x"):
        raw = bytes.fromhex(stored[2:])
        algorithm = _SQL_SERVER_HASHES[raw[:2]][1]
        salt, digest = raw[2:6], raw[6:6 + algorithm().digest_size]
        made = algorithm(password.encode("utf-16-le") + salt).digest()
        return secrets.compare_digest(made, digest)
    salt, _sep, _digest = stored.partition("$")
    return secrets.compare_digest(password_hash(password, bytes.fromhex(salt)), stored)


# SQL Server's password hash forms: version header -> (lengths, hash of the UTF-16LE password
# and the 4-byte salt after the header): 0x0100 SHA-1 (SQL Server 2005 / 2008; 2000's
# adds the hash of the upper-cased password, 46 bytes), 0x0200 SHA-512 (2012 and later).
_SQL_SERVER_HASHES: dict[bytes, tuple[frozenset[int], Any]] = {
    b"\x01\x00": (frozenset({26, 46}), hashlib.sha1),
    b"\x02\x00": (frozenset({70}), hashlib.sha512),
}
# The header of tsqlbroker's own form (PBKDF2-SHA256: 16-byte salt, 32-byte digest) as
# LOGINPROPERTY(…, 'PasswordHash') shows it; "TB", no SQL Server version.
_OWN_HASH = b"TB"
_OWN_HASH_LENGTH = 2 + 16 + 32


def stored_password_hash(given: bytes) -> str | None:
    """What a login keeps for ``PASSWORD = given HASHED``: a SQL Server hash (0x0100 /
    0x0200 form) as ``0x…``, tsqlbroker's own form (:func:`shown_password_hash`) as
    :func:`password_hash` writes it; None for anything else (the caller's Msg 15021)."""
    known = _SQL_SERVER_HASHES.get(given[:2])
    if known is not None and len(given) in known[0]:
        return "0x" + given.hex().upper()
    if given[:2] == _OWN_HASH and len(given) == _OWN_HASH_LENGTH:
        return f"{given[2:18].hex()}${given[18:].hex()}"
    return None


def shown_password_hash(stored: str) -> bytes:
    """LOGINPROPERTY(…, 'PasswordHash') of a login keeping ``stored``: the SQL Server hash
    it was given, or tsqlbroker's PBKDF2 form under its own header (which CREATE LOGIN …
    HASHED takes back)."""
    if stored.startswith("0x"):
        return bytes.fromhex(stored[2:])
    salt, _sep, digest = stored.partition("$")
    return _OWN_HASH + bytes.fromhex(salt) + bytes.fromhex(digest)


def password_hash_algorithm(stored: str) -> int:
    """LOGINPROPERTY(…, 'PasswordHashAlgorithm'): 1 SHA-1, 2 SHA-2 (PBKDF2-SHA256 too)."""
    return 1 if stored.startswith("0x01") else 2
