"""Builds the one Lark parser of the T-SQL grammar from its ``.lark`` fragments.

The fragments (one per statement family, in ``rules/``) are concatenated rather than joined
with Lark's ``%import``, which would rename shared rules (``expr`` → ``expr__expr``) and break
the transformer's method names.
"""

from __future__ import annotations

import hashlib
import io
import sys
import threading
from pathlib import Path
from types import ModuleType
from typing import Any

import lark
from lark import Lark

from tsqlbroker.codecache import cache_dir, prune, read_verified, write_atomically, write_signed
from tsqlbroker.grammar import parse_tables as cache
from tsqlbroker.grammar.driver import Driver

FRAGMENTS = ("terminals", "expr", "query", "dml", "ddl", "procedural", "broker",
             "security")
_DIR = Path(__file__).resolve().parent / "rules"

# Words SQL Server reserves: where the contextual lexer would otherwise read one as a plain
# name (because no rule wants that keyword here), it is turned back into its keyword so that
# ``SELECT FROM t`` fails as SQL Server fails instead of selecting a column named FROM.
# Reserved words that are also function names (LEFT, RIGHT, COALESCE, NULLIF, CURRENT_USER …)
# are left out on purpose.
RESERVED = frozenset(
    """ADD ALL ALTER AND ANY AS ASC AUTHORIZATION BEGIN BETWEEN BREAK BY CASCADE CASE CHECK
    CLOSE CLUSTERED COLLATE COLUMN COMMIT CONSTRAINT CONTINUE CONVERT CREATE CROSS CURSOR
    DATABASE DEALLOCATE DECLARE DEFAULT DELETE DESC DISTINCT DISTRIBUTED DROP ELSE END ESCAPE
    EXCEPT EXEC EXECUTE EXISTS FETCH FOR FOREIGN FROM FULL FUNCTION GOTO GROUP HAVING IF IN
    INDEX INNER INSERT INTERSECT INTO IS JOIN KEY LIKE MERGE NONCLUSTERED NOT NULL OF ON OPEN
    OPTION OR ORDER OUTER OVER PERCENT PRIMARY PRINT PROC PROCEDURE RAISERROR REFERENCES
    RETURN ROLLBACK SAVE SELECT SET SOME TABLE THEN TO TOP TRAN TRANSACTION TRUNCATE
    TRY_CONVERT UNION UNIQUE UPDATE USE VALUES VIEW WAITFOR WHEN WHERE WHILE WITH""".split()  # noqa: SIM905
)

# SQL Server's reserved keywords (Msg 156 names these "the keyword"; other words get 102).
SQL_SERVER_RESERVED = RESERVED | frozenset(
    """BACKUP BROWSE BULK CHECKPOINT CLUSTERED COALESCE COMPUTE CONTAINS CONTAINSTABLE
    CURRENT CURRENT_DATE CURRENT_TIME CURRENT_TIMESTAMP CURRENT_USER DBCC DENY DISK DOUBLE
    DUMP ERRLVL EXIT EXTERNAL FILE FILLFACTOR FREETEXT FREETEXTTABLE GRANT HOLDLOCK IDENTITY
    IDENTITY_INSERT IDENTITYCOL KILL LEFT LINENO LOAD NATIONAL NOCHECK NULLIF OFF OFFSETS
    OPENDATASOURCE OPENQUERY OPENROWSET OPENXML PIVOT PLAN PRECISION PUBLIC READ READTEXT
    RECONFIGURE REPLICATION RESTORE RESTRICT REVERT REVOKE RIGHT ROWCOUNT ROWGUIDCOL RULE
    SCHEMA SECURITYAUDIT SESSION_USER SETUSER SHUTDOWN STATISTICS SYSTEM_USER TABLESAMPLE
    TEXTSIZE TRIGGER TSEQUAL UNPIVOT UPDATETEXT USER VARYING WRITETEXT""".split()  # noqa: SIM905
)

_lock = threading.Lock()
_parser: Lark | None = None
_driver: Any = None


def grammar_text() -> str:
    """The whole grammar: every fragment, in dependency-free order."""
    return "\n".join((_DIR / f"{name}.lark").read_text(encoding="utf-8") for name in FRAGMENTS)


def _reserved_callback(token):  # type: ignore[no-untyped-def]
    upper = token.value.upper()
    if upper in RESERVED:
        token.type = upper
    return token


def build(strict: bool = False, cache: bool = True) -> Lark:
    """A new Lark LALR parser for the grammar (``strict`` turns conflicts into errors).

    With ``cache``, the built parser is kept in the user's private cache directory (not
    Lark's own cache, a pickle in the shared temporary directory) and loaded from there only
    after its HMAC is verified (:func:`tsqlbroker.codecache.read_verified`)."""
    text = grammar_text()
    options: dict[str, Any] = {
        "parser": "lalr", "lexer": "contextual", "propagate_positions": True,
        "maybe_placeholders": True, "strict": strict,
        "lexer_callbacks": {"NAME": _reserved_callback},
    }
    if strict or not cache:
        return Lark(text, **options)
    key = hashlib.sha256(f"{text}\x00{lark.__version__}\x00{sys.version}".encode()).hexdigest()
    path = cache_dir() / f"lark-{key[:32]}.hmac"
    data = read_verified(path)
    if data is not None:
        try:
            return Lark.load(io.BytesIO(data))  # verified above: this user's own pickle
        except Exception:  # noqa: BLE001, S110 — an unloadable cache only costs the build
            pass
    parser = Lark(text, **options)
    buffer = io.BytesIO()
    parser.save(buffer)
    write_signed(path, buffer.getvalue())
    prune(path, "lark-*.hmac")  # parsers of other grammars: only the recent ones kept
    return parser


def get_parser() -> Lark:
    """The process-wide parser, built (or loaded from the private cache) once."""
    global _parser
    if _parser is None:
        with _lock:
            if _parser is None:
                _parser = build()
    return _parser


def get_driver() -> Any:
    """The process-wide :class:`~tsqlbroker.grammar.driver.Driver`.

    Its tables come from the on-disk cache of :mod:`tables` when it matches this grammar
    and code (no Lark object is built then); otherwise from :func:`get_parser`, and the
    cache is written for the next process."""
    global _driver
    if _driver is None:
        with _lock:
            if _driver is None:
                _driver = _load_driver()
    return _driver


def _load_driver() -> Driver:
    transformer = _transformer()
    _key, tables = build_tables()
    return Driver(tables, transformer.AstBuilder, transformer.SPAN_RULES,
                  {"NAME": _reserved_callback})


def _transformer() -> ModuleType:
    """The AST builder's module (it imports this one for the reserved words)."""
    # start-up laziness: the AST builder loads with the first batch parsed
    from tsqlbroker.grammar import transformer

    return transformer


def build_tables() -> tuple[str, Any]:
    """The driver's tables and their cache key: shipped with the package, else from the
    on-disk cache, else derived from a Lark parser (seconds) and written to that cache."""
    # start-up laziness: Lark loads when the grammar is first used, not with this module
    import lark

    key = cache.cache_key(grammar_text(), lark.__version__)
    tables = cache.load_shipped(key) or cache.load(key)
    if tables is None:
        global _parser
        if _parser is None:
            _parser = build()
        tables = cache.from_lark(_parser, _transformer().AstBuilder)
        cache.save(key, tables)
    return key, tables


def ship_tables(directory: Path) -> Path:
    """Write the driver's tables into ``directory`` (an installed package's
    ``tsqlbroker/grammar``) where :func:`~tsqlbroker.grammar.parse_tables.load_shipped` looks:
    what a build does, so that the first run after install is not seconds slower."""
    key, tables = build_tables()
    path = cache.shipped_path(key, directory)
    write_atomically(path, tables.to_bytes())
    for old in directory.glob(cache.shipped_path("*").name):  # another grammar's: never read
        if old != path:
            old.unlink(missing_ok=True)
    return path


def terminal_patterns() -> dict[str, tuple[str, str]]:
    """Every terminal's pattern as (``"str"`` or ``"re"``, value), from the driver's tables
    (for error messages: no Lark object needed)."""
    tables: dict[str, tuple[str, str]] = get_driver().tables.terminals
    return tables
