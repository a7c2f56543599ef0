"""``postgres/libpq``: the broker's hot-path statements through libpq give what a psycopg
cursor gives — the same values both ways, the same exception classes — and a connection
keeps a bounded number of prepared statements."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from datetime import datetime
from decimal import Decimal
from typing import TYPE_CHECKING, Any

import psycopg
import pytest
from sqlalchemy.engine import make_url

from tsqlbroker.storage.backends.postgres import libpq as pgexec

if TYPE_CHECKING:
    from conftest import FreshPostgres


@pytest.fixture
def pg(fresh_postgres: FreshPostgres) -> Iterator[psycopg.Connection[Any]]:
    """An autocommit psycopg connection in a fresh schema holding table ``t``."""
    url = make_url(fresh_postgres.url()).set(drivername="postgresql")
    conn = psycopg.connect(url.render_as_string(hide_password=False), autocommit=True)
    conn.execute("CREATE TABLE t (i integer, b bigint, s varchar(100), x text, y bytea, "
                 "ts timestamp, f boolean, d numeric(10, 3), r double precision)")
    try:
        yield conn
    finally:
        conn.close()


ROW = (7, 2 ** 40, "O'Brien \\ 'quoted' — ünïcode", "?", b"\x00\x01'\\\xff" * 3,
       datetime(2026, 11, 21, 20, 11, 35, 724001), True, Decimal("12.345"), 0.1)
INSERT = "INSERT INTO t (i, b, s, x, y, ts, f, d, r) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)"
SELECT = "SELECT i, b, s, x, y, ts, f, d, r FROM t WHERE i = ?"


def test_values_round_trip_as_through_a_cursor(pg: psycopg.Connection[Any]) -> None:
    pgexec.execute(pg, INSERT, ROW)
    pgexec.execute(pg, INSERT, (8,) + (None,) * 8)
    assert pgexec.execute(pg, SELECT, (7,)).fetchall() == [ROW]
    assert pgexec.execute(pg, SELECT, (8,)).fetchone() == (8,) + (None,) * 8
    with pg.cursor() as cur:
        cur.execute(SELECT.replace("?", "%s"), (7,))
        assert cur.fetchall() == [ROW]


def test_a_large_body_goes_whole(pg: psycopg.Connection[Any]) -> None:
    body = bytes(range(256)) * 8192           # 2 MiB: more than one socket write
    pgexec.execute(pg, "INSERT INTO t (i, y) VALUES (?, ?)", (1, body))
    assert pgexec.execute(pg, "SELECT y FROM t WHERE i = ?", (1,)).fetchone() == (body,)


def test_rows_read_like_a_cursor(pg: psycopg.Connection[Any]) -> None:
    for i in range(3):
        pgexec.execute(pg, "INSERT INTO t (i) VALUES (?)", (i,))
    rows = pgexec.execute(pg, "SELECT i FROM t ORDER BY i", ())
    assert rows.fetchone() == (0,)
    assert list(rows) == [(1,), (2,)]
    assert rows.fetchone() is None
    assert pgexec.execute(pg, "SELECT i FROM t WHERE i < 0", ()).fetchall() == []


def test_errors_are_psycopg_errors_and_the_connection_goes_on(
        pg: psycopg.Connection[Any]) -> None:
    with pytest.raises(psycopg.errors.InvalidTextRepresentation):
        pgexec.execute(pg, "SELECT i FROM t WHERE i = ?", ("not a number",))
    with pytest.raises(psycopg.errors.UndefinedTable):
        pgexec.execute(pg, "SELECT 1 FROM nowhere WHERE 1 = ?", (1,))
    pgexec.execute_text(pg, "BEGIN")
    with pytest.raises(psycopg.errors.DivisionByZero):
        pgexec.execute(pg, "SELECT 1 / ?", (0,))
    with pytest.raises(psycopg.errors.InFailedSqlTransaction):
        pgexec.execute(pg, "SELECT ?", (1,))
    pgexec.execute_text(pg, "ROLLBACK")
    assert pgexec.execute(pg, "SELECT ?::int + 1", (1,)).fetchone() == (2,)


def test_several_statements_of_execute_text_commit_together(
        pg: psycopg.Connection[Any]) -> None:
    pgexec.execute_text(pg, "BEGIN")
    pgexec.execute(pg, "INSERT INTO t (i) VALUES (?)", (1,))
    pgexec.execute_text(pg, "INSERT INTO t (i) VALUES (2); COMMIT")
    assert pg.info.transaction_status == psycopg.pq.TransactionStatus.IDLE
    assert pg.execute("SELECT count(*) FROM t").fetchone() == (2,)
    pgexec.execute_text(pg, "BEGIN")
    with pytest.raises(psycopg.errors.UniqueViolation):
        pgexec.execute_text(pg, "CREATE UNIQUE INDEX u ON t (i); INSERT INTO t (i) VALUES "
                                "(1); COMMIT")
    pgexec.execute_text(pg, "ROLLBACK")
    assert pg.execute("SELECT count(*) FROM t").fetchone() == (2,)


def test_prepared_statements_per_connection_are_bounded(
        pg: psycopg.Connection[Any], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(pgexec, "MAX_PREPARED", 3)

    def prepared() -> list[str]:
        return [r[0] for r in pg.execute("SELECT statement FROM pg_prepared_statements "
                                         "WHERE name LIKE 'tsqlb_%' ORDER BY name")]

    once = "SELECT count(*) FROM t WHERE i = ? AND i > 0"
    assert pgexec.execute(pg, once, (1,)).fetchone() == (0,)
    assert prepared() == []                 # run once: not prepared
    for n in range(1, 8):       # IN lists of every length: a text each, run twice
        marks = ", ".join("?" * n)
        for _ in range(2):
            got = pgexec.execute(pg, f"SELECT count(*) FROM t WHERE i IN ({marks})",
                                 tuple(range(n))).fetchone()
            assert got == (0,)
    assert prepared() == [f"SELECT count(*) FROM t WHERE i IN ({marks})"
                          for marks in ("$1", "$1, $2", "$1, $2, $3")]
    assert pgexec.execute(pg, once, (1,)).fetchone() == (0,)    # unnamed: no room left


def test_unsupported_parameter_types_are_refused(pg: psycopg.Connection[Any]) -> None:
    with pytest.raises(TypeError, match="object"):
        pgexec.execute(pg, "SELECT ?", (object(),))
    assert pgexec.text_param(uuid.UUID(int=1)) == b"00000000-0000-0000-0000-000000000001"
    assert pgexec.numbered("a = ? AND b IN (?, ?)") == b"a = $1 AND b IN ($2, $3)"


@pytest.mark.parametrize("conforming", ["on", "off"])
def test_merged_literals_insert_what_parameters_would(pg: psycopg.Connection[Any],
                                                      conforming: str) -> None:
    pg.execute(f"SET standard_conforming_strings = {conforming}")
    for i in (7, 8):        # the second time by name: EXECUTE tsqlb_…(…)
        text = pgexec.merged(pg, INSERT, (i,) + ROW[1:])
        assert text.startswith("EXECUTE tsqlb_") == (i == 8 and conforming == "on")
        pgexec.execute_text(pg, "BEGIN")
        pgexec.execute_text(pg, text + "; COMMIT")
    assert pgexec.execute(pg, SELECT, (7,)).fetchall() == [ROW]
    assert pgexec.execute(pg, SELECT, (8,)).fetchall() == [(8,) + ROW[1:]]
    text = pgexec.merged(pg, "SELECT ?, ?", ("?", None))
    assert pg.execute(text).fetchone() == ("?", None)
    odd = (float("inf"), float("nan"), Decimal("NaN"), -0.5)
    text = pgexec.merged(pg, "SELECT ?::float8, ?::float8, ?::numeric, ?::float8", odd)
    got = pg.execute(text).fetchone()
    assert got is not None
    assert got[0] == float("inf") and got[1] != got[1] and got[2].is_nan() and got[3] == -0.5


def test_merged_refuses_what_it_cannot_say(pg: psycopg.Connection[Any]) -> None:
    with pytest.raises(psycopg.DataError):
        pgexec.merged(pg, "SELECT ?", ("a\0b",))
    with pytest.raises(TypeError):
        pgexec.merged(pg, "SELECT ?, ?", (1,))
