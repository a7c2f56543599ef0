"""What the benchmarks share: contenders run interleaved round by round, medians with their
spread, figures printed beside their goals, and the PostgreSQL server, schemas and PGMQ that
the PostgreSQL benchmarks measure against.

A figure is a ratio of two contenders measured in the same rounds: round ``k`` runs every
contender once (the order rotates from round to round, so neither always runs on a warmer or
a busier machine), the ratio of round ``k`` compares runs made seconds apart, and the figure
is the median of those ratios with their lowest and highest beside it. Baselines are the plain
drivers (``sqlite3``, psycopg) unless a line says otherwise.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import shutil
import statistics
import subprocess
import tempfile
import uuid
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import psycopg
from psycopg.conninfo import make_conninfo
from sqlalchemy.engine import make_url

ROOT = Path(__file__).resolve().parents[2]
PG_URL_ENV = "TSQLBROKER_PG_URL"
PGMQ_SQL_ENV = "TSQLBROKER_PGMQ_SQL"


class BenchError(SystemExit):
    """A benchmark that could not measure (its work failed): the run stops with the reason."""


# -- statistics -----------------------------------------------------------------------------
@dataclass(frozen=True)
class Spread:
    """Samples of one quantity: their median, lowest and highest."""

    samples: tuple[float, ...]

    @property
    def median(self) -> float:
        return statistics.median(self.samples)

    def text(self, fmt: str = ",.0f") -> str:
        """``median (lowest-highest)``; one sample has no spread to show."""
        med = format(self.median, fmt)
        if len(self.samples) < 2:
            return med
        return f"{med} ({format(min(self.samples), fmt)}-{format(max(self.samples), fmt)})"


def interleaved(contenders: Mapping[str, Callable[[], float]], rounds: int
                ) -> dict[str, list[float]]:
    """Run each contender once per round (a rate, or a time), rotating the order by round."""
    names = list(contenders)
    out: dict[str, list[float]] = {name: [] for name in names}
    for k in range(rounds):
        shift = k % len(names)
        for name in names[shift:] + names[:shift]:
            out[name].append(contenders[name]())
    return out


def paired_ratios(num: Sequence[float], den: Sequence[float]) -> Spread:
    """Round-by-round ratios ``num[k] / den[k]``."""
    return Spread(tuple(a / b for a, b in zip(num, den, strict=True)))


# -- figures and the report -----------------------------------------------------------------
@dataclass(frozen=True)
class Goal:
    """``ratio >= bound`` (``at_least``) or ``ratio <= bound``."""

    bound: float
    at_least: bool = True

    def met(self, value: float) -> bool:
        return value >= self.bound if self.at_least else value <= self.bound

    def __str__(self) -> str:
        return f"{'>=' if self.at_least else '<='} {self.bound:g}"


@dataclass(frozen=True)
class Figure:
    """One printed line: what was measured, the values, and the goal with its verdict
    (no goal: shown for reference; ``skipped``: could not be measured, and why)."""

    name: str
    value: str
    goal: Goal | None = None
    met: bool | None = None
    skipped: str = ""

    def line(self) -> str:
        """The name, then (after two spaces or more) the value and the verdict."""
        if self.skipped:
            return f"{self.name:<62}  SKIPPED: {self.skipped}"
        verdict = "(reference)" if self.goal is None else \
            f"goal {self.goal}  {'MET' if self.met else 'NOT MET'}"
        return f"{self.name:<62}  {self.value}   {verdict}"


def ratio_figure(name: str, num: tuple[str, Sequence[float]], den: tuple[str, Sequence[float]],
                 goal: Goal | None, unit: str = "msg/s", fmt: str = ",.0f") -> Figure:
    """``num`` against ``den`` (label, per-round rates or times): both medians with their
    spread and the median of the round-by-round ratios, judged against ``goal``."""
    ratio = paired_ratios(num[1], den[1])
    value = (f"{num[0]} {Spread(tuple(num[1])).text(fmt)} vs {den[0]} "
             f"{Spread(tuple(den[1])).text(fmt)} {unit} = {ratio.text('.2f')}")
    return Figure(name, value, goal, None if goal is None else goal.met(ratio.median))


class Report:
    """Prints figures as they come and counts the goals."""

    def __init__(self, title: str) -> None:
        self.figures: list[Figure] = []
        print(title, flush=True)

    def add(self, figure: Figure) -> None:
        self.figures.append(figure)
        print(figure.line(), flush=True)

    def close(self, check: bool) -> int:
        """Print the tally; the exit status (1 under ``--check`` when a goal is missed)."""
        judged = [f for f in self.figures if f.goal is not None and not f.skipped]
        met = sum(1 for f in judged if f.met)
        skipped = sum(1 for f in self.figures if f.skipped)
        print(f"{met} of {len(judged)} goals met" + (f", {skipped} skipped" if skipped else ""),
              flush=True)
        return 1 if check and met < len(judged) else 0


def arguments(doc: str | None, rounds: int = 5) -> argparse.ArgumentParser:
    """The options every benchmark takes: ``--quick``, ``--rounds``, ``--check``."""
    ap = argparse.ArgumentParser(description=(doc or "").splitlines()[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true",
                    help="tiny sizes and 2 rounds: checks that every figure runs")
    ap.add_argument("--rounds", type=int, default=rounds,
                    help=f"rounds of interleaved contenders (default {rounds})")
    ap.add_argument("--check", action="store_true", help="exit 1 when a goal is missed")
    return ap


# -- PostgreSQL -----------------------------------------------------------------------------
@contextmanager
def postgres_server(url: str | None = None) -> Iterator[str | None]:
    """``url``, else ``$TSQLBROKER_PG_URL``, else a private server started with
    ``scripts/ci/postgres.sh`` for the run (as the tests do); None when none can be started
    (no PostgreSQL installed)."""
    url = url or os.environ.get(PG_URL_ENV)
    if url:
        yield url
        return
    workdir = tempfile.mkdtemp(prefix="tsqlbroker-bench-pg-")
    os.chmod(workdir, 0o755)
    script = ROOT / "scripts" / "ci" / "postgres.sh"
    # The script's watchdog stops the server should this process die without cleaning up.
    done = subprocess.run([str(script), "start", workdir, str(os.getpid())],
                          capture_output=True, text=True, check=False)
    if done.returncode != 0:
        shutil.rmtree(workdir, ignore_errors=True)
        print(f"(no PostgreSQL server: {done.stderr.strip().splitlines()[-1:]})", flush=True)
        yield None
        return
    try:
        yield done.stdout.strip().splitlines()[-1]
    finally:
        subprocess.run([str(script), "stop", workdir], capture_output=True, check=False)


def conninfo(url: str, schema: str | None = None) -> str:
    """The libpq connection string of an SQLAlchemy URL (for the plain driver), with every
    connection's ``search_path`` set to ``schema`` when given."""
    u = make_url(url)
    params = {"host": u.host, "port": u.port, "user": u.username, "password": u.password,
              "dbname": u.database}
    if schema:
        params["options"] = f"-csearch_path={schema}"
    return make_conninfo(**{k: v for k, v in params.items() if v is not None})


@dataclass(frozen=True)
class Schema:
    """A fresh schema on the server: the URL for tsqlbroker (a store whose home is this
    schema) and the connection string for the plain driver, both with it as search_path."""

    name: str
    url: str
    dsn: str


@contextmanager
def fresh_schema(server_url: str) -> Iterator[Schema]:
    """A new, empty schema, dropped afterwards with the schemas of the store's databases
    (``<name>$<database>``)."""
    name = f"bench_{uuid.uuid4().hex[:12]}"
    admin = conninfo(server_url)
    with psycopg.connect(admin, autocommit=True) as c:
        c.execute(f'CREATE SCHEMA "{name}"')
    try:
        url = make_url(server_url).update_query_dict(
            {"options": f"-csearch_path={name}"}).render_as_string(hide_password=False)
        yield Schema(name, url, conninfo(server_url, name))
    finally:
        with psycopg.connect(admin, autocommit=True) as c:
            for (schema,) in c.execute(store_schemas_sql(), (name, name)).fetchall():
                c.execute(f'DROP SCHEMA "{schema}" CASCADE')


def store_schemas_sql() -> str:
    """A query (two parameters: the store's home schema twice) for the schemas a tsqlbroker
    store made: its home and one per T-SQL database."""
    return ("SELECT nspname FROM pg_namespace WHERE nspname = %s "
            "OR starts_with(nspname, %s || '$')")


def analyze_store(dsn: str, home: str) -> None:
    """``ANALYZE`` every table of a tsqlbroker store (its home schema and its databases')."""
    with psycopg.connect(dsn, autocommit=True) as c:
        tables = c.execute(
            "SELECT format('%%I.%%I', schemaname, tablename) FROM pg_tables "
            "WHERE schemaname IN (" + store_schemas_sql() + ")", (home, home)).fetchall()
        for (table,) in tables:
            c.execute(f"ANALYZE {table}")


# -- PGMQ -----------------------------------------------------------------------------------
def pgmq_sql_file(given: str | None = None) -> tuple[Path | None, str]:
    """PGMQ's published SQL install script (``pgmq.sql``: the extension's functions in plain
    SQL / PL/pgSQL, installed without the C extension): ``given``, ``$TSQLBROKER_PGMQ_SQL``,
    or the copy the ``pgmq`` Python package ships (``pip install pgmq``). Returns the file
    (None when it cannot be had) and where it came from, or why it is missing."""
    path = given or os.environ.get(PGMQ_SQL_ENV)
    if path:
        p = Path(path)
        return (p, str(p)) if p.is_file() else (None, f"{p} does not exist")
    spec = importlib.util.find_spec("pgmq")          # found, not imported: only its data file
    for folder in (spec.submodule_search_locations or []) if spec else []:
        p = Path(folder) / "sql" / "pgmq.sql"
        if p.is_file():
            version = p.with_name("VERSION")
            tag = version.read_text().strip() if version.is_file() else "?"
            return p, f"PGMQ {tag} SQL from the pgmq package"
    return None, ("PGMQ's SQL is not on this machine: `pip install pgmq` (its package ships "
                  f"pgmq.sql), or give the file with --pgmq-sql / ${PGMQ_SQL_ENV}")


@contextmanager
def pgmq_installed(server_url: str, sql_file: Path) -> Iterator[str]:
    """PGMQ in schema ``pgmq`` of the server's database (its SQL names that schema): installed
    from ``sql_file`` unless it is there already, and then dropped again. Yields a note."""
    dsn = conninfo(server_url)
    with psycopg.connect(dsn, autocommit=True) as c:
        present = c.execute("SELECT to_regproc('pgmq.format_table_name') IS NOT NULL"
                            ).fetchone()
    if present and present[0]:
        yield "PGMQ already installed in schema pgmq (left as it was)"
        return
    with psycopg.connect(dsn) as c:                  # one transaction, as pgmq's installer
        c.execute(sql_file.read_text(encoding="utf-8"))
    try:
        yield "installed into schema pgmq for this run"
    finally:
        with psycopg.connect(dsn, autocommit=True) as c:
            c.execute("DROP SCHEMA pgmq CASCADE")
