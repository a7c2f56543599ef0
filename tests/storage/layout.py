"""The stored layout of a store: what a later version must keep reading.

Every table a store holds (system and user tables, in every backend schema of the store)
with its columns' names and reflected types, and on PostgreSQL the ``tsqlb*`` SQL functions
and collations. ``layout.json`` holds the layout the released code (main before issue 15)
gives the store made by ``fixtures/make_store_v0.sql``; ``store_v0.sqlite`` is that store.

Regenerate both with the *released* code only (never with the code under test)::

    PYTHONPATH=<released tree> python tests/storage/layout.py --write [--pg-url URL]
"""

from __future__ import annotations

import argparse
import json
import shutil
import sqlite3
import sys
import tempfile
from pathlib import Path
from typing import Any

from sqlalchemy import create_engine, inspect, text
from sqlalchemy.engine import make_url
from sqlalchemy.pool import NullPool

HERE = Path(__file__).resolve().parent
SCRIPT = HERE / "fixtures" / "make_store_v0.sql"
STORE_V0 = HERE / "fixtures" / "store_v0.sqlite"
LAYOUT = HERE / "layout.json"


def make_store(url: str) -> None:
    """Run ``make_store_v0.sql`` on the store at ``url`` with whichever code is imported."""
    from tsqlbroker.repl.cli import main

    rc = main(["--url", url, "--wait-idle", "0", "run", str(SCRIPT)])
    if rc != 0:
        raise RuntimeError(f"make_store_v0.sql failed on {url}")


def _tables(insp: Any, schema: str | None) -> dict[str, list[list[str]]]:
    return {name: [[c["name"], str(c["type"])] for c in insp.get_columns(name, schema=schema)]
            for name in sorted(insp.get_table_names(schema=schema))}


def stored_layout(url: str) -> dict[str, Any]:
    """The layout of the store at ``url`` (PostgreSQL: its home schema is the first of the
    URL's ``search_path``; the store's per-database schemas ``<home>$<db>`` are included,
    named ``$<db>``)."""
    engine = create_engine(url, poolclass=NullPool)
    try:
        insp = inspect(engine)
        if make_url(url).get_backend_name() == "sqlite":
            return {"tables": {"": _tables(insp, None)}}
        with engine.connect() as c:
            home = c.execute(text("SELECT current_schema()")).scalar_one()
            functions = sorted({r[0] for r in c.execute(text(
                "SELECT proname FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace "
                "WHERE n.nspname = :s AND proname LIKE 'tsqlb%'"), {"s": home})})
            collations = sorted(r[0] for r in c.execute(text(
                "SELECT collname FROM pg_collation c JOIN pg_namespace n "
                "ON n.oid = c.collnamespace WHERE n.nspname = :s"), {"s": home}))
        schemas = [s for s in insp.get_schema_names() if s.startswith(home + "$")]
        tables = {"": _tables(insp, home)}
        for schema in schemas:
            tables[schema[len(home):]] = _tables(insp, schema)
        return {"tables": tables, "functions": functions, "collations": collations}
    finally:
        engine.dispose()


def _write(pg_url: str | None) -> None:
    work = Path(tempfile.mkdtemp(prefix="tsqlb-layout-"))
    try:
        path = work / "store.sqlite"
        url = f"sqlite:///{path}"
        make_store(url)
        layout = {"sqlite": stored_layout(url)}
        with sqlite3.connect(path) as db:      # the file alone holds the whole store
            db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        shutil.copyfile(path, STORE_V0)
        if pg_url:
            make_store(pg_url)
            layout["postgresql"] = stored_layout(pg_url)
        LAYOUT.write_text(json.dumps(layout, indent=1, sort_keys=True) + "\n")
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--write", action="store_true", required=True)
    parser.add_argument("--pg-url", help="an empty PostgreSQL schema's URL")
    _write(parser.parse_args(sys.argv[1:]).pg_url)
