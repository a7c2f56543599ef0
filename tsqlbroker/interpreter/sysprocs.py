"""Catalog system procedures: ``sp_helptext`` (a module's text) and ``sp_help`` (a table's
description), each a result set shaped as SQL Server's own procedure returns it."""

from __future__ import annotations

from typing import Any

from tsqlbroker.engine.results import ResultSet
from tsqlbroker.errors import tsql_error
from tsqlbroker.grammar import ast

from . import types as T
from .compiler import Compiler, StmtFn
from .frames import Frame
from .sysfuncs import MODULE_TYPES, str_arg

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
    from tsqlbroker.engine.transpile import object_id_of

    from .dml import exec_context

    s = f.session
    oid = object_id_of(exec_context(f), name) if name else None
    row = s.instance.catalog.object_by_id(s.conn, None, oid) if oid is not None else None
    if row is None:
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
        if row.type.strip().upper() not in MODULE_TYPES or row.definition is None:
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
    from tsqlbroker.engine.sysviews import type_facts
    from tsqlbroker.engine.tableinfo import load_table

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
    from tsqlbroker.engine.tableinfo import load_table

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
