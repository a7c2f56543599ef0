"""Catalog system procedures: ``sp_helptext`` (a module's text), ``sp_help`` (a table's
description), ``sp_helpdb`` (databases) and ``sp_configure`` (server options, read-only),
each a result set shaped as SQL Server's own procedure returns it."""

from __future__ import annotations

from typing import Any

from sqlalchemy.engine import make_url

from tsqlbroker.engine.results import ResultSet
from tsqlbroker.engine.sysviews import type_facts
from tsqlbroker.engine.tableinfo import load_table
from tsqlbroker.engine.visibility import object_visible
from tsqlbroker.errors import tsql_error
from tsqlbroker.grammar import ast
from tsqlbroker.lazy import LazyModule

from ..values import types as T
from .compiler import Compiler, StmtFn
from .frames import Frame
from .function_calls import MODULE_TYPES, str_arg
from .server_info import config_options
from .statement_context import exec_context

# The transpiler's name resolution loads sqlglot: on the first object name resolved.
engine_resolve = LazyModule("tsqlbroker.engine.transpiler.resolve", globals(), "engine_resolve")

# sp_helptext returns nvarchar(255) rows: a longer line continues on the next row.
_LINE_WIDTH = 255
# sp_help shows Prec / Scale only for these types (its @precscaletypes list).
_PREC_SCALE = frozenset({"tinyint", "smallint", "decimal", "int", "bigint", "real", "money",
                         "float", "numeric", "smallmoney", "date", "time", "datetime2",
                         "datetimeoffset"})
# UsesAnsiTrim / FixedLenNullInSource apply to the single-byte and binary types only.
_ANSI_TRIM = frozenset({"char", "varchar", "binary", "varbinary"})
_TEXT_TYPES = frozenset({"char", "varchar", "nchar", "nvarchar", "text", "ntext", "sysname"})
_COLLATION = "SQL_Latin1_General_CP1_CI_AS"


def split_module_text(text: str) -> list[str]:
    """The rows sp_helptext returns for ``text``: one per line, each keeping its line end,
    lines longer than 255 characters cut into 255-character pieces."""
    rows: list[str] = []
    for line in text.splitlines(keepends=True):
        while len(line) > _LINE_WIDTH:
            rows.append(line[:_LINE_WIDTH])
            line = line[_LINE_WIDTH:]
        if line:
            rows.append(line)
    return rows


def _objname_arg(c: Compiler, node: ast.ExecProc) -> Any:
    """The compiled ``@objname`` argument (first positional or named) of a catalog procedure."""
    value: ast.Expr | None = None
    found = False
    for i, arg in enumerate(node.args):
        if (arg.name or "").lower() == "@objname" or (not arg.name and i == 0):
            value, found = arg.value, True
    if not found:
        raise c.bind_error(201, node, node.proc.name, "@objname")
    return str_arg(c.expr(value or ast.Literal("null", None, "NULL")))


def _resolve(f: Frame, name: str | None) -> Any:
    """The catalog row of object ``name`` in the current database, or Msg 15009."""
    s = f.session
    oid = engine_resolve.object_id_of(exec_context(f), name) if name else None
    row = s.instance.catalog.object_by_id(s.conn, None, oid) if oid is not None else None
    if row is None or not object_visible(s.conn, s.id, row):
        raise tsql_error(15009, name or "", s.current_database)
    return row


def _returns(c: Compiler, node: ast.ExecProc) -> Any:
    return c.assigner(c.var(node.return_var, node), T.INT) if node.return_var else None


def compile_sp_helptext(c: Compiler, node: ast.ExecProc) -> StmtFn:
    """``sp_helptext @objname``: the module's definition, one row per line (column ``Text``)."""
    namef = _objname_arg(c, node)
    ret = _returns(c, node)

    def run(f: Frame) -> None:
        name = namef(f)
        row = _resolve(f, name)
        if row.type.strip().upper() not in MODULE_TYPES or row.definition is None or \
                not object_visible(f.session.conn, f.session.id, row, definition=True):
            raise tsql_error(15197, name)
        rows = [(line,) for line in split_module_text(row.definition)]
        f.session.sink.resultset(ResultSet(["Text"], ["nvarchar(255)"], rows))
        if ret is not None:
            ret(f, 0)
    return run


def _prec_scale(name: str, precision: int, scale: int) -> tuple[str | None, str | None]:
    """sp_help's char(5) Prec and Scale (blank for types outside its list; float and real have
    no ODBC scale, so NULL)."""
    if name not in _PREC_SCALE:
        return " " * 5, " " * 5
    odbc_scale = None if name in ("float", "real") else f"{scale:<5}"
    return f"{precision:<5}", odbc_scale


def column_rows(conn: Any, row: Any) -> list[tuple[Any, ...]]:
    """sp_help's column result set rows for table object ``row``."""
    out: list[tuple[Any, ...]] = []
    for col in load_table(conn, row).columns:
        name, _tid, max_length, precision, scale, _chars = type_facts(col.spec)
        prec, sc = _prec_scale(name, precision, scale)
        trim = "no" if name in _ANSI_TRIM else "(n/a)"
        fixed = "(n/a)" if name not in _ANSI_TRIM else "yes" if col.nullable else "no"
        out.append((col.name, name, "no", max_length, prec, sc, "yes" if col.nullable else "no",
                    trim, fixed, _COLLATION if name in _TEXT_TYPES else None))
    return out


def identity_row(conn: Any, row: Any) -> tuple[Any, ...]:
    """sp_help's Identity result set row (its message row when the table has none)."""
    ident = load_table(conn, row).identity_column
    if ident is None or ident.identity is None:
        return ("No identity column defined.", None, None, None)
    return (ident.name, ident.identity[0], ident.identity[1], 0)


_COLUMN_SET = (["Column_name", "Type", "Computed", "Length", "Prec", "Scale", "Nullable",
                "TrimTrailingBlanks", "FixedLenNullInSource", "Collation"],
               ["sysname", "sysname", "varchar(35)", "int", "char(5)", "char(5)", "varchar(35)",
                "varchar(35)", "varchar(35)", "sysname"])
_IDENTITY_SET = (["Identity", "Seed", "Increment", "Not For Replication"],
                 ["sysname", "numeric(38,0)", "numeric(38,0)", "int"])


# sp_help's first result set (Name, Owner, Type, Created_datetime), Type as SQL Server
# words it (master.dbo.spt_values, type 'O9T').
_OBJECT_SET = (["Name", "Owner", "Type", "Created_datetime"],
               ["sysname", "sysname", "nvarchar(31)", "datetime"])
_TYPE_NAMES = {"U": "user table", "V": "view", "P": "stored procedure",
               "FN": "scalar function", "IF": "inline function", "TF": "table function",
               "TR": "trigger", "SQ": "service queue", "S": "system table",
               "IT": "internal table", "TT": "table type", "SO": "sequence object"}


def compile_sp_help(c: Compiler, node: ast.ExecProc) -> StmtFn:
    """``sp_help @objname``: the object's name, owner, type and creation time; for a table
    also its columns and identity result sets."""
    namef = _objname_arg(c, node)
    ret = _returns(c, node)

    def run(f: Frame) -> None:
        s = f.session
        row = _resolve(f, namef(f))
        kind = row.type.strip().upper()
        s.sink.resultset(ResultSet(*_OBJECT_SET, [(
            row.name, row.schema_name, _TYPE_NAMES.get(kind, kind), row.create_date)]))
        if kind == "U":
            s.sink.resultset(ResultSet(*_COLUMN_SET, column_rows(s.conn, row)))
            s.sink.resultset(ResultSet(*_IDENTITY_SET, [identity_row(s.conn, row)]))
        if ret is not None:
            ret(f, 0)
    return run


def _arg(c: Compiler, node: ast.ExecProc, names: tuple[str, ...]) -> list[Any]:
    """The compiled arguments of a system procedure with parameters ``names``, positional
    or by name (None where not given); Msg 8144 / 8145 as for any procedure."""
    values: list[Any] = [None] * len(names)
    for i, arg in enumerate(node.args):
        index = i
        if arg.name:
            key = arg.name.lower()
            if key not in names:
                raise c.bind_error(8145, node, arg.name, node.proc.name)
            index = names.index(key)
        elif i >= len(names):
            raise c.bind_error(8144, node, node.proc.name)
        if arg.value is not None:
            values[index] = c.expr(arg.value).fn
    return values


# -- sp_helpdb -----------------------------------------------------------------------------------
_HELPDB_SET = (["name", "db_size", "owner", "dbid", "created", "status", "compatibility_level"],
               ["nvarchar(128)", "nvarchar(13)", "nvarchar(128)", "smallint", "nvarchar(11)",
                "nvarchar(600)", "tinyint"])
_HELPDB_FILES = (["name", "fileid", "filename", "filegroup", "size", "maxsize", "growth",
                  "usage"],
                 ["nchar(128)", "smallint", "nchar(260)", "nvarchar(128)", "nvarchar(18)",
                  "nvarchar(18)", "nvarchar(18)", "varchar(9)"])
_SYSTEM_DATABASES = frozenset({"master", "tempdb", "model", "msdb"})
# Version=904 is SQL Server 2019's database version.
_DB_STATUS = ("Status=ONLINE, Updateability=READ_WRITE, UserAccess=MULTI_USER, Recovery={rec}, "
              "Version=904, Collation=" + _COLLATION + ", SQLSortOrder=52, "
              "IsAutoCreateStatistics, IsAutoUpdateStatistics{trust}")


def _created(when: Any) -> str | None:
    """``created`` as sp_helpdb shows it: ``Jan  5 2024``."""
    return None if when is None else f"{when:%b} {when.day:>2} {when.year}"


def _helpdb_row(db: Any) -> tuple[Any, ...]:
    system = db.name.lower() in _SYSTEM_DATABASES
    status = _DB_STATUS.format(rec="SIMPLE" if system else "FULL",
                               trust=", IsTrustworthy" if db.is_trustworthy_on else "")
    # Sizes are not measured: every database shares the one store (docs/decisions.md).
    return (db.name, None, "sa", db.database_id, _created(db.create_date), status, 150)


def _store_location(s: Any, db: Any) -> str:
    """Where the database's data lives: its backend schema, else the store (its URL without
    a password)."""
    schema = s.instance.catalog.database_schema(s.conn, db.database_id)
    if schema:
        return f"schema {schema}"
    return str(make_url(s.instance.store.url).render_as_string(hide_password=True))


def compile_sp_helpdb(c: Compiler, node: ast.ExecProc) -> StmtFn:
    """``sp_helpdb [@dbname]``: every database, or one with its (single) data file."""
    (namef,) = _arg(c, node, ("@dbname",))
    ret = _returns(c, node)

    def run(f: Frame) -> None:
        s = f.session
        name = namef(f) if namef is not None else None
        catalog = s.instance.catalog
        if name is None:
            rows = [_helpdb_row(db) for db in catalog.databases(s.conn)]
            s.sink.resultset(ResultSet(*_HELPDB_SET, rows))
        else:
            db = catalog.database(s.conn, str(name))
            if db is None:
                raise tsql_error(15010, name)
            s.sink.resultset(ResultSet(*_HELPDB_SET, [_helpdb_row(db)]))
            s.sink.resultset(ResultSet(*_HELPDB_FILES, [(
                db.name, 1, _store_location(s, db), "PRIMARY", None, "Unlimited", None,
                "data only")]))
        if ret is not None:
            ret(f, 0)
    return run


# -- sp_configure --------------------------------------------------------------------------------
_CONFIGURE_SET = (["name", "minimum", "maximum", "config_value", "run_value"],
                  ["nvarchar(35)", "int", "int", "int", "int"])


def compile_sp_configure(c: Compiler, node: ast.ExecProc) -> StmtFn:
    """``sp_configure [@configname [, @configvalue]]``: the options and their values
    (read-only: a new value is refused)."""
    namef, valuef = _arg(c, node, ("@configname", "@configvalue"))
    ret = _returns(c, node)

    def run(f: Frame) -> None:
        name = namef(f) if namef is not None else None
        options = config_options(None if name is None else str(name))
        if name is not None and not options:
            raise tsql_error(15123, name)
        if valuef is not None and valuef(f) is not None:
            raise tsql_error(40000, f"Changing configuration option '{options[0][0]}' "
                                    "(sp_configure with a value)")
        rows = [(n, lo, hi, v, v) for n, lo, hi, v, _adv in options]
        f.session.sink.resultset(ResultSet(*_CONFIGURE_SET, rows))
        if ret is not None:
            ret(f, 0)
    return run


CATALOG_PROCEDURES: dict[str, Any] = {
    "sp_help": compile_sp_help, "sp_helptext": compile_sp_helptext,
    "sp_helpdb": compile_sp_helpdb, "sp_configure": compile_sp_configure,
}
