"""Shared pytest fixtures, and the PostgreSQL server the backend-parametrised tests run on.

Every test that takes ``backend_url`` (or ``persistent_url``) runs twice: on SQLite and on
PostgreSQL. The PostgreSQL server is

* ``$TSQLBROKER_PG_URL`` when set (any server the user points at), else
* a throw-away server this test run starts at the first test that needs it
  (``scripts/ci/postgres.sh``: initdb in a temporary directory, loopback only, a free port)
  and stops at the end.

The PostgreSQL cases are skipped only when the user asks (``TSQLBROKER_SKIP_POSTGRES=1``,
reported as a skip with that reason). Without a URL, without the opt-out and without
PostgreSQL binaries the run stops with an error instead of silently testing less.

Each PostgreSQL test gets a fresh schema of its own (the URL carries
``options=-csearch_path=<schema>``, so every connection of the test — also of a ``tsqlbroker
serve`` subprocess given that URL — lives in it); it is dropped afterwards.
"""

from __future__ import annotations

import glob
import os
import shutil
import subprocess
import tempfile
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from tsqlbroker.interpreter.instance import Instance

ROOT = Path(__file__).resolve().parent.parent
SEEDS = ROOT.parent / "shared" / "seeds"
PG_URL_ENV = "TSQLBROKER_PG_URL"
SKIP_PG_ENV = "TSQLBROKER_SKIP_POSTGRES"
_PG_SCRIPT = ROOT / "scripts" / "ci" / "postgres.sh"
_started: dict[str, str] = {}


def _pg_binaries_present() -> bool:
    return bool(os.environ.get("PG_BINDIR") or glob.glob("/usr/lib/postgresql/*/bin/initdb")
                or shutil.which("initdb"))


def postgres_skipped() -> bool:
    """Whether the user asked to leave PostgreSQL out of this run."""
    return os.environ.get(SKIP_PG_ENV, "") not in ("", "0")


def _start_server() -> None:
    """Start a private PostgreSQL server (once per run) unless one is given."""
    if os.environ.get(PG_URL_ENV) or "dir" in _started:
        return
    if not _pg_binaries_present():
        pytest.exit(
            "PostgreSQL tests need a server: set TSQLBROKER_PG_URL, install PostgreSQL "
            "(initdb on PATH or under /usr/lib/postgresql), or skip them explicitly with "
            "TSQLBROKER_SKIP_POSTGRES=1", returncode=4)
    workdir = tempfile.mkdtemp(prefix="tsqlbroker-pg-")
    os.chmod(workdir, 0o755)
    # The script's watchdog stops the server should this run die without cleaning up.
    done = subprocess.run([str(_PG_SCRIPT), "start", workdir, str(os.getpid())],
                          capture_output=True, text=True, check=False)
    if done.returncode != 0:
        shutil.rmtree(workdir, ignore_errors=True)
        pytest.exit(f"could not start PostgreSQL: {done.stderr.strip()}", returncode=4)
    os.environ[PG_URL_ENV] = done.stdout.strip().splitlines()[-1]
    _started["dir"] = workdir


def pytest_unconfigure(config: pytest.Config) -> None:
    """Stop the server :func:`_start_server` started, if it did."""
    workdir = _started.pop("dir", None)
    if workdir is not None:
        subprocess.run([str(_PG_SCRIPT), "stop", workdir], capture_output=True, check=False)
        os.environ.pop(PG_URL_ENV, None)


def _admin_engine():  # type: ignore[no-untyped-def]
    from sqlalchemy import create_engine
    from sqlalchemy.pool import NullPool

    return create_engine(os.environ[PG_URL_ENV], isolation_level="AUTOCOMMIT",
                         poolclass=NullPool)


def pg_schema_url(schema: str) -> str:
    """The server URL with every connection's ``search_path`` set to ``schema``."""
    from sqlalchemy.engine import make_url

    # application_name lets cleanup find the test's leftover connections.
    url = make_url(os.environ[PG_URL_ENV]).update_query_dict(
        {"options": f"-csearch_path={schema}", "application_name": f"tsqlb_{schema}"})
    return url.render_as_string(hide_password=False)


class FreshPostgres:
    """Fresh, empty PostgreSQL schemas (one per call of :meth:`url`), dropped at close."""

    def __init__(self) -> None:
        self.schemas: list[str] = []

    def url(self) -> str:
        """A URL whose connections all live in a new, empty schema (the server is started
        at the first call of the run; skipped only with TSQLBROKER_SKIP_POSTGRES=1)."""
        from sqlalchemy import text

        if postgres_skipped():
            pytest.skip(f"{SKIP_PG_ENV}=1: PostgreSQL not tested")
        _start_server()
        name = f"t_{uuid.uuid4().hex[:16]}"
        engine = _admin_engine()
        with engine.connect() as c:
            c.execute(text(f'CREATE SCHEMA "{name}"'))
        engine.dispose()
        self.schemas.append(name)
        return pg_schema_url(name)

    def close(self) -> None:
        from sqlalchemy import text

        if not self.schemas:
            return
        engine = _admin_engine()
        with engine.connect() as c:
            for name in self.schemas:
                # Sessions of the test may still be connected (a killed subprocess …).
                c.execute(text(
                    "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                    "WHERE pid <> pg_backend_pid() AND application_name = :a"),
                    {"a": f"tsqlb_{name}"})
                c.execute(text(f'DROP SCHEMA IF EXISTS "{name}" CASCADE'))
                # The store's T-SQL databases have backend schemas '<name>$<db>' of their own.
                for (extra,) in c.execute(text(
                        "SELECT nspname FROM pg_namespace WHERE left(nspname, length(:p)) = :p"),
                        {"p": f"{name}$"}).all():
                    c.execute(text(f'DROP SCHEMA IF EXISTS "{extra}" CASCADE'))
        engine.dispose()
        self.schemas.clear()


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    """Parametrise ``backend`` with both backends; the PostgreSQL case is skipped only when
    the user asks (TSQLBROKER_SKIP_POSTGRES=1)."""
    if "backend" not in metafunc.fixturenames:
        return
    skip = pytest.mark.skipif(postgres_skipped(),
                              reason=f"{SKIP_PG_ENV}=1: PostgreSQL not tested")
    metafunc.parametrize("backend", ["sqlite", pytest.param("postgresql", marks=skip)])


@pytest.fixture
def fresh_postgres() -> Iterator[FreshPostgres]:
    """Hands out fresh PostgreSQL schemas for the test (several if it needs several)."""
    fresh = FreshPostgres()
    try:
        yield fresh
    finally:
        fresh.close()


@pytest.fixture
def backend(request: pytest.FixtureRequest) -> str:
    """The backend a parametrised test runs on: ``sqlite`` or ``postgresql``."""
    return str(request.param)


@pytest.fixture
def backend_url(backend: str, fresh_postgres: FreshPostgres) -> str:
    """A fresh private store on each backend: ``sqlite://`` or a new PostgreSQL schema."""
    return "sqlite://" if backend == "sqlite" else fresh_postgres.url()


@pytest.fixture
def instance(backend_url: str) -> Iterator[Instance]:
    """An interpreter instance on a fresh private store (``backend_url``), closed after."""
    from tsqlbroker.interpreter.instance import Instance

    inst = Instance(backend_url)
    try:
        yield inst
    finally:
        inst.close()


@pytest.fixture
def persistent_url(backend: str, fresh_postgres: FreshPostgres, tmp_path: Path) -> str:
    """A fresh store that outlives the process that opened it (several instances or
    processes share it): an SQLite file, or a new PostgreSQL schema."""
    if backend == "sqlite":
        return f"sqlite:///{tmp_path / 'store.db'}"
    return fresh_postgres.url()


@pytest.fixture
def repo_root() -> Path:
    return ROOT
