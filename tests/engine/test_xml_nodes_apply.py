"""CROSS / OUTER APPLY of ``nodes()`` over an outer row's xml (engine/apply.py).

SQLite runs it (the xml methods are Python there): the script's output is SQL Server's.
PostgreSQL evaluates the xml methods as xpath() in SQL, which has no context node to carry
into a lateral row, so there each such query is refused with Msg 40000 (docs/decisions.md):
its expected output is the same script's with those refusals. The scripts sit outside
tests/golden/*/ because the golden runner expects one output on both stores."""

from __future__ import annotations

from pathlib import Path

from tests.golden.test_golden import run_script

HERE = Path(__file__).resolve().parent / "xml_nodes"


def test_apply_nodes(backend: str, backend_url: str) -> None:
    script = HERE / "apply_nodes.sql"
    expected = script.with_suffix(".out") if backend == "sqlite" \
        else script.with_suffix(".postgresql.out")
    assert run_script(script, backend_url) == expected.read_text(encoding="utf-8")
