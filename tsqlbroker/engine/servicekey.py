"""The service master key and the encryptions of a database master key's secret.

SQL Server never stores a database master key in clear: each database keeps it encrypted by
every password given in CREATE / ALTER MASTER KEY and, unless dropped, by the instance's
service master key, so that it opens itself. tsqlbroker does the same with AES-256-GCM:

* the service master key is 32 random bytes in a file private to the user
  (``$TSQLBROKER_SERVICE_KEY_FILE``, else ``$XDG_CONFIG_HOME/tsqlbroker/service-master.key``;
  directory 0700, file 0600), made on first use and refused when another user owns it or
  others may read it; the first 4 bytes of its SHA-256 name it in each encryption, so a store
  opened with another key says so instead of decrypting garbage;
* a password encryption derives its key with PBKDF2-SHA256 from the password and a salt.

Texts (what the store keeps): ``smk1:<key id>:<base64 nonce+ciphertext>`` and
``pw1:<base64 salt>:<base64 nonce+ciphertext>``.
"""

from __future__ import annotations

import base64
import hashlib
import os
import secrets
import stat
import threading
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import tsql_error
from ..lazy import LazyModule

if TYPE_CHECKING:
    from cryptography import exceptions as crypto_errors
    from cryptography.hazmat.primitives.ciphers import aead
else:
    # Start-up laziness: cryptography (~50 ms to import) loads with the first key sealed
    # or opened.
    crypto_errors = LazyModule("cryptography.exceptions", globals(), "crypto_errors")
    aead = LazyModule("cryptography.hazmat.primitives.ciphers.aead", globals(), "aead")

SERVICE_KEY_ENV = "TSQLBROKER_SERVICE_KEY_FILE"
SMK_PREFIX = "smk1:"
PASSWORD_PREFIX = "pw1:"
_KDF_ROUNDS = 100_000
_lock = threading.Lock()
_keys: dict[Path, bytes] = {}


def key_path() -> Path:
    """Where the service master key lives."""
    env = os.environ.get(SERVICE_KEY_ENV)
    if env:
        return Path(env)
    base = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(base) / "tsqlbroker" / "service-master.key"


def _private(st: os.stat_result) -> bool:
    if not hasattr(os, "getuid"):  # Windows: the profile directory's ACLs protect it
        return True
    return st.st_uid == os.getuid() and not st.st_mode & 0o077


def service_key() -> bytes:
    """The service master key, made on first use (Msg 15581 when it cannot be trusted or
    made: the database master key then only opens with a password)."""
    path = key_path()
    with _lock:
        key = _keys.get(path)
        if key is None:
            key = _read_or_make(path)
            _keys[path] = key
        return key


def _read_or_make(path: Path) -> bytes:
    nofollow = getattr(os, "O_NOFOLLOW", 0)
    try:
        fd = os.open(path, os.O_RDONLY | nofollow)
    except FileNotFoundError:
        try:
            path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
            key = secrets.token_bytes(32)
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | nofollow, 0o600)
            with os.fdopen(fd, "wb") as f:
                f.write(key)
            return key
        except FileExistsError:  # another process made it meanwhile
            return _read_or_make(path)
        except OSError:
            raise tsql_error(15581) from None
    except OSError:
        raise tsql_error(15581) from None
    with os.fdopen(fd, "rb") as f:
        st = os.fstat(f.fileno())
        key = f.read(33)
    if not stat.S_ISREG(st.st_mode) or not _private(st) or len(key) != 32:
        raise tsql_error(15581)
    return key


def _key_id(key: bytes) -> str:
    return hashlib.sha256(key).hexdigest()[:8]  # the text must fit the 100-character column


def _seal(key: bytes, secret: str) -> str:
    nonce = secrets.token_bytes(12)
    sealed = aead.AESGCM(key).encrypt(nonce, bytes.fromhex(secret), None)
    return base64.b64encode(nonce + sealed).decode("ascii")


def _open(key: bytes, text: str) -> str | None:
    raw = base64.b64decode(text)
    try:
        return aead.AESGCM(key).decrypt(raw[:12], raw[12:], None).hex()
    except crypto_errors.InvalidTag:
        return None


def by_service_key(secret: str) -> str:
    """``secret`` (hex) encrypted by the service master key."""
    key = service_key()
    return f"{SMK_PREFIX}{_key_id(key)}:{_seal(key, secret)}"


def from_service_key(text: str) -> str | None:
    """The secret of an SMK encryption; None if this service master key did not make it."""
    key = service_key()
    _, key_id, sealed = text.split(":", 2)
    return _open(key, sealed) if key_id == _key_id(key) else None


def master_key_secret(row: Any) -> str | None:
    """The secret of a database master key (its stored row, or None) opened by the service
    master key, as SQL Server opens a master key by itself; None when there is no key, it
    is not encrypted by the service master key, or another service master key encrypted it."""
    if row is None or not row["by_service_key"] or not row["secret"]:
        return None
    return from_service_key(row["secret"])


def _password_key(password: str, salt: bytes) -> bytes:
    return hashlib.pbkdf2_hmac("sha256", password.encode("utf-8"), salt, _KDF_ROUNDS)


def by_password(secret: str, password: str) -> str:
    """``secret`` (hex) encrypted by ``password``."""
    salt = secrets.token_bytes(16)
    sealed = _seal(_password_key(password, salt), secret)
    return f"{PASSWORD_PREFIX}{base64.b64encode(salt).decode('ascii')}:{sealed}"


def from_password(text: str, password: str) -> str | None:
    """The secret of a password encryption; None if ``password`` is not its password."""
    _, salt, sealed = text.split(":", 2)
    return _open(_password_key(password, base64.b64decode(salt)), sealed)


def is_clear(text: str) -> bool:
    """A secret stored in clear by an older tsqlbroker (64 hex digits)."""
    return len(text) == 64 and all(ch in "0123456789abcdefABCDEF" for ch in text)
