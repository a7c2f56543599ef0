"""Plain data and pure helpers shared by the transpiler's passes and its feature modules:
resolved row sources, table keys, names, and the compiled result. Nothing here binds or
rewrites; it imports no pass and no feature, so every one of them may import it."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

import sqlglot
from sqlglot import exp

from ...errors import BindError, TSqlError, tsql_error
from ...values.types import normalize_spec, parse_type
from ..context import VirtualTable
from ..execsql import BackendSql
from ..tableinfo import TableInfo

__all__ = ["PHYSICAL_MARK", "Applied", "Compiled", "Source", "TableKey", "cast_spec", "datatype_spec",
           "default_alias", "param_name", "projection_name", "require_column_names", "source_alias", "table_key",
           "written_name"]

# (catalog, db, name, kind) of a table reference; kind '#', '@' or ''.
TableKey = tuple[str, str, str, str]

# Prefix of a table name that names a backend table directly (engine-generated queries).
PHYSICAL_MARK = "\x00phys:"


@dataclass
class Source:
    """A resolved row source (table, view, virtual table, temp table, table variable)."""

    kind: str  # 'table', 'view', 'virtual'
    name: str  # the name as written, for messages
    columns: list[tuple[str, str | None]]
    table: TableInfo | None = None
    sql: str | None = None  # backend SELECT text of a virtual table
    virtual: VirtualTable | None = None
    signature: tuple[Any, ...] = ()
    tree: exp.Expression | None = None  # the backend query of a view (or the parsed sql)

    def query(self, dialect: str) -> exp.Expression:
        """A private copy of the backend query of a view or virtual table (sqlglot
        ``dialect``)."""
        if self.tree is None:
            self.tree = sqlglot.parse_one(self.sql or "", read=dialect)
        return self.tree.copy()

    def spec_of(self, column: str) -> str | None:
        """The type spec of ``column`` (any case), None when the source has no such one."""
        low = column.lower()
        return next((s for n, s in self.columns if n.lower() == low), None)

    def has_column(self, column: str) -> bool:
        """Whether the source has a column ``column`` (any case)."""
        low = column.lower()
        return any(n.lower() == low for n, _s in self.columns)


@dataclass
class Applied:
    """An applied table expression on SQLite: its alias and column names (lower-case), and
    for each the type spec its JSON text converts to (OPENJSON WITH: None, none does)."""

    alias: str
    columns: list[str]
    converts: list[str] | None = None
    xml_context: bool = False  # nodes(): the one column is a context node (engine/apply.py)


@dataclass(frozen=True)
class Compiled:
    """Generated backend SQL with output names/specs and the parameters it binds."""

    sql: BackendSql
    names: list[str] | None
    types: list[str | None]
    param_keys: tuple[tuple[str, str], ...] = field(default=())
    # The rewritten tree the SQL was generated from, when asked for (a view's query goes into
    # the trees of the statements reading it); shared by every user of the cache entry:
    # copy, never edit.
    tree: exp.Expression | None = None


def param_name(node: exp.Expression) -> str:
    """'@x' / '@@x' for a (possibly nested) Parameter node."""
    inner = node.this
    if isinstance(inner, exp.Parameter):
        return "@@" + inner.name.lower()
    return "@" + node.name.lower()


def table_key(node: exp.Table) -> TableKey:
    """(catalog, db, name, kind) of a table reference; kind '#', '@' or ''."""
    this = node.this
    if isinstance(this, exp.Parameter):
        return ("", "", "@" + param_name(this)[1:], "@")
    ident = node.args.get("this")
    temporary = isinstance(ident, exp.Identifier) and bool(ident.args.get("temporary"))
    name = node.name
    if temporary:
        return (node.catalog, node.db, "#" + name, "#")
    return (node.catalog, node.db, name, "")


def written_name(key: TableKey) -> str:
    """The table name as the user wrote it, for Msg 208."""
    catalog, db, name, _kind = key
    if catalog:
        return f"{catalog}.{db}.{name}"
    if db:
        return f"{db}.{name}"
    return name


def default_alias(key: TableKey) -> str:
    """The alias a table reference without one goes by (lower-case)."""
    name = key[2].removeprefix(PHYSICAL_MARK)
    return name.lstrip("#@").lower() if key[3] == "#" else name.lower()


def source_alias(node: exp.Expression) -> str:
    """The alias (lower-case) of a FROM / JOIN source node."""
    if isinstance(node, exp.Table):
        if node.alias:
            return node.alias.lower()
        return default_alias(table_key(node))
    return node.alias_or_name.lower()


def require_column_names(body: exp.Expression, alias: exp.Expression | None,
                         name: str) -> None:
    """Msg 8155 at bind time, as SQL Server: every column of a derived table, CTE or
    applied query ``body`` named ``name`` with no column list in ``alias`` needs a name (a
    set operation's are its first query's select list's; a table value constructor's
    columns have no names, so ``(VALUES (1)) AS v`` needs a column list)."""
    if alias is not None and alias.args.get("columns"):
        return
    while isinstance(body, (exp.Union, exp.Except, exp.Intersect, exp.Subquery)):
        body = body.this
    if isinstance(body, exp.Values):
        raise tsql_error(8155, 1, name, cls=BindError)
    if not isinstance(body, exp.Select):
        return
    for number, item in enumerate(body.expressions, start=1):
        if not isinstance(item, exp.Star) and not projection_name(item):
            raise tsql_error(8155, number, name, cls=BindError)


def projection_name(proj: exp.Expression) -> str:
    """The column name SQL Server gives a select-list item ('' when it has none)."""
    if isinstance(proj, exp.Alias):
        return proj.alias
    if isinstance(proj, exp.Column):
        return proj.name
    if isinstance(proj, exp.Dot):
        return proj.name
    return ""


_DTYPE_NAMES = {"integer": "int", "numeric": "decimal", "rowversion": "timestamp"}


def cast_spec(dt_node: exp.DataType) -> str | None:
    """The T-SQL type spec of a CAST / CONVERT target: a character or binary type written
    without a length is 30 long there (the CAST and CONVERT page), not 1 as in a DECLARE."""
    spec = datatype_spec(dt_node)
    if spec is None or dt_node.expressions:
        return spec
    try:
        return parse_type(spec.split("(")[0], "cast").spec()
    except TSqlError:
        return spec


def datatype_spec(dt_node: exp.DataType) -> str | None:
    """The T-SQL type spec of a sqlglot DataType (as the T-SQL generator writes it)."""
    text = dt_node.sql("tsql").lower().replace(" ", "")
    m = re.match(r"([a-z_0-9]+)(.*)", text)
    if not m:
        return None
    base = _DTYPE_NAMES.get(m.group(1), m.group(1))
    try:
        return normalize_spec(base + m.group(2))
    except TSqlError:
        return None
