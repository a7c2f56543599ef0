"""Secrets around the store: the SQLite file and its directory are private to the user, the
database master key is kept only encrypted (by the service master key in a user-private
file, and by its passwords), a clear key from an older store is encrypted on first use, and
OPEN / ALTER MASTER KEY behave as SQL Server documents."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import update

from tsqlbroker.engine import servicekey
from tsqlbroker.engine.catalog import Catalog
from tsqlbroker.engine.security import Security
from tsqlbroker.interpreter.instance import Instance
from tsqlbroker.interpreter.sink import CollectingSink
from tsqlbroker.storage.store import default_url

posix = pytest.mark.skipif(not hasattr(os, "getuid"), reason="POSIX file modes")
SETUP = """
    CREATE DATABASE keys_db
    GO
    USE keys_db
    CREATE MASTER KEY ENCRYPTION BY PASSWORD = 'K3y!pass'
    CREATE CERTIFICATE c WITH SUBJECT = 'c'"""


@pytest.fixture(autouse=True)
def service_key_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    path = tmp_path / "config" / "service-master.key"
    monkeypatch.setenv(servicekey.SERVICE_KEY_ENV, str(path))
    return path


def _run(instance: Instance, sql: str) -> tuple[list[int], list[tuple[Any, ...]]]:
    sink = CollectingSink()
    session = instance.session(sink)
    try:
        session.execute(sql)
    finally:
        session.close()
    errors = [e.number for kind, e in sink.events if kind == "error"]
    return errors, [row for kind, rs in sink.events if kind == "resultset" for row in rs.rows]


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def _key_row(instance: Instance, set_secret: str | None = None) -> Any:
    """The keys_db master key row (after replacing its stored secret, if asked)."""
    sec = Security.get(instance.store)
    conn = instance.store.connect()
    try:
        db_id = Catalog.get(instance.store).database_id(conn, "keys_db")
        assert db_id is not None
        conn.write()
        if set_secret is not None:
            mk = sec.t.master_keys
            conn.execute(update(mk).where(mk.c.database_id == db_id).values(secret=set_secret))
            row = None
        else:
            row = dict(sec.master_key(conn, db_id))
        conn.commit()
        return row
    finally:
        conn.close()


@posix
def test_store_file_and_default_directory_are_private(tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("TSQLBROKER_URL", raising=False)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    old = os.umask(0o022)
    try:
        url = default_url()
        store = Path(url.removeprefix("sqlite:///"))
        inst = Instance(url)
        try:
            assert _run(inst, "CREATE TABLE t (a int) INSERT t VALUES (1)")[0] == []
            assert _mode(store.parent) == 0o700
            assert _mode(store) == 0o600
            extras = list(store.parent.glob(store.name + "-*"))  # -wal, -shm, -locks, -wake
            assert extras and all(_mode(p) == (0o700 if p.is_dir() else 0o600)
                                  for p in extras)
        finally:
            inst.close()
        store.chmod(0o644)  # as an older version made it: tightened on the next start
        store.parent.chmod(0o755)
        default_url()
        assert _mode(store) == 0o600 and _mode(store.parent) == 0o700
    finally:
        os.umask(old)


def test_master_key_is_never_stored_in_clear(backend_url: str, service_key_file: Path) -> None:
    inst = Instance(backend_url)
    try:
        assert _run(inst, SETUP)[0] == []
        row = _key_row(inst)
        assert row["secret"].startswith(servicekey.SMK_PREFIX)
        assert all(e.startswith(servicekey.PASSWORD_PREFIX)
                   for e in json.loads(row["password_hashes"]))
        secret = servicekey.from_service_key(row["secret"])
        assert secret is not None and len(secret) == 64
        if backend_url.startswith("sqlite"):
            inst.store.engine.dispose()
            data = b"".join(p.read_bytes() for p in Path(
                inst.store.url.removeprefix("sqlite:///")).parent.glob("*.db*"))
            assert secret.encode() not in data and secret.upper().encode() not in data
        if hasattr(os, "getuid"):
            assert _mode(service_key_file) == 0o600 and _mode(service_key_file.parent) == 0o700
    finally:
        inst.close()


def test_clear_key_of_an_older_store_is_encrypted_on_first_use(backend_url: str,
                                                                tmp_path: Path) -> None:
    inst = Instance(backend_url)
    try:
        assert _run(inst, SETUP)[0] == []
        secret = servicekey.from_service_key(_key_row(inst)["secret"])
        assert secret is not None
        _key_row(inst, set_secret=secret)  # what an older tsqlbroker stored
        pvk = tmp_path / "c.pvk"
        errors, _ = _run(inst, f"""USE keys_db
            BACKUP CERTIFICATE c TO FILE = '{tmp_path / "c.cer"}'
              WITH PRIVATE KEY (FILE = '{pvk}', ENCRYPTION BY PASSWORD = 'F1le!pw')""")
        assert errors == [] and pvk.exists()  # the private key still decrypts
        row = _key_row(inst)
        assert row["secret"].startswith(servicekey.SMK_PREFIX)
        assert servicekey.from_service_key(row["secret"]) == secret
    finally:
        inst.close()


def test_open_and_alter_master_key(backend_url: str) -> None:
    """Without the service master key's encryption the key must be opened with one of its
    passwords (Msg 15581 otherwise, 15313 for a wrong password); ADD / DROP ENCRYPTION BY
    PASSWORD change which passwords open it."""
    inst = Instance(backend_url)
    try:
        assert _run(inst, SETUP + """
            ALTER MASTER KEY DROP ENCRYPTION BY SERVICE MASTER KEY""")[0] == []
        row = _key_row(inst)
        assert row["secret"] == "" and not row["by_service_key"]
        use = "USE keys_db\n"
        assert _run(inst, use + "CREATE CERTIFICATE d WITH SUBJECT = 'd'")[0] == [15581]
        assert _run(inst, use + "OPEN MASTER KEY DECRYPTION BY PASSWORD = 'wrong'")[0] \
            == [15313]
        assert _run(inst, use + """OPEN MASTER KEY DECRYPTION BY PASSWORD = 'K3y!pass'
            CREATE CERTIFICATE d WITH SUBJECT = 'd'
            ALTER MASTER KEY ADD ENCRYPTION BY PASSWORD = 'S3cond!pw'
            CLOSE MASTER KEY""")[0] == []
        assert _run(inst, use + """OPEN MASTER KEY DECRYPTION BY PASSWORD = 'S3cond!pw'
            ALTER MASTER KEY DROP ENCRYPTION BY PASSWORD = 'K3y!pass'
            ALTER MASTER KEY ADD ENCRYPTION BY SERVICE MASTER KEY""")[0] == []
        assert _run(inst, use + "OPEN MASTER KEY DECRYPTION BY PASSWORD = 'K3y!pass'")[0] \
            == [15313]
        # encrypted by the service master key again: opens itself
        assert _run(inst, use + "CREATE CERTIFICATE e WITH SUBJECT = 'e'")[0] == []
    finally:
        inst.close()


@posix
def test_service_key_readable_by_others_is_refused(backend_url: str, service_key_file: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    inst = Instance(backend_url)
    try:
        assert _run(inst, SETUP)[0] == []
        service_key_file.chmod(0o644)
        monkeypatch.setattr(servicekey, "_keys", {})
        assert _run(inst, "USE keys_db CREATE CERTIFICATE d WITH SUBJECT = 'd'")[0] == [15581]
    finally:
        inst.close()
