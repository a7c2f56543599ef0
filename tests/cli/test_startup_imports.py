"""Start-up: a one-statement run and ``tsqlbroker parse`` import only what they use; the
DML engine (with sqlglot), cryptography and lxml load on first use, through
:class:`LazyModule`.

The one-statement run is checked on both backends (``backend_url``; on PostgreSQL the driver
``psycopg`` is of course loaded). The lazy loading of the DML engine and ``parse`` do not
depend on the store: they are checked on the private SQLite store only."""

from __future__ import annotations

import subprocess
import sys
import types

from tsqlbroker.lazy import LazyModule

# cryptography (certificates, keys, secured dialogs and links) and lxml (the xml type) load
# with their first use: ~75 ms of a start between them.
_UNNEEDED = ("sqlglot", "prompt_toolkit", "rich", "pygments", "pyspark", "psycopg",
             "tsqlbroker.engine.dml", "cryptography", "lxml")


def _run(code: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=False, timeout=120)


def test_print_loads_no_dml_engine_and_no_ui(backend: str, backend_url: str) -> None:
    unneeded = tuple(m for m in _UNNEEDED if backend == "sqlite" or m != "psycopg")
    code = ("import sys; from tsqlbroker.repl.cli import main; "
            f"rc = main(['--url', {backend_url!r}, '-Q', 'PRINT 1']); "
            f"bad = [m for m in {unneeded!r} if m in sys.modules]; "
            "print('loaded:', bad); sys.exit(rc or (3 if bad else 0))")
    result = _run(code)
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.splitlines()[0] == "1"


def test_first_dml_statement_loads_the_engine() -> None:
    code = ("import sys; from tsqlbroker.repl.cli import main; "
            "rc = main(['--url', 'sqlite://', '-Q', "
            "'CREATE TABLE t (a int); INSERT t VALUES (41); SELECT a + 1 AS b FROM t']); "
            "import tsqlbroker.interpreter.dml_stmts as d, types; "
            "sys.exit(rc or (0 if isinstance(d.engine_dml, types.ModuleType) else 4))")
    result = _run(code)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "42" in result.stdout


def test_parse_mode_loads_no_storage() -> None:
    code = ("import sys, pathlib, tempfile; from tsqlbroker.repl.cli import main; "
            "p = pathlib.Path(tempfile.mkdtemp()) / 'x.sql'; p.write_text('SELECT 1'); "
            "rc = main(['parse', str(p)]); "
            "bad = [m for m in ('sqlalchemy', 'sqlglot', 'prompt_toolkit', 'rich') "
            "if m in sys.modules]; print('loaded:', bad); sys.exit(rc or (3 if bad else 0))")
    result = _run(code)
    assert result.returncode == 0, result.stdout + result.stderr


def test_lazy_module_replaces_itself_on_first_use() -> None:
    namespace: dict[str, object] = {}
    namespace["jsonmod"] = LazyModule("json", namespace, "jsonmod")
    assert "lazy module 'json'" in repr(namespace["jsonmod"])
    stand_in = namespace["jsonmod"]
    assert stand_in.dumps([1]) == "[1]"  # type: ignore[attr-defined]
    assert isinstance(namespace["jsonmod"], types.ModuleType)
    assert namespace["jsonmod"].__name__ == "json"  # type: ignore[attr-defined]
