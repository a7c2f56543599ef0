"""The AST: frozen dataclasses, one class per construct, each with a source ``span``.

Spans are excluded from equality so that two parses of the same text in different places
compare equal. Sequences are tuples. Names are kept as written with quoting removed
(``[a]]b]`` → ``a]b``); comparisons that SQL Server makes case-insensitively are the
interpreter's business, not the parser's.

Both Service Broker dialects build the same nodes: ``GET SERVICE INSTANCE`` is a
:class:`GetConversationGroup`, ``RELATED_SERVICE_INSTANCE`` fills ``related_group``,
``ENCODING XML [WITH 'ns']`` fills :class:`CreateMessageType` with ``validation`` and
``schema_namespace``, ``CREATE XMLSCHEMA`` is a :class:`CreateXmlSchemaCollection` with no name,
and the RECEIVE ``WHERE service_instance_id = …`` column is normalised to
``conversation_group_id``.

DML and DDL statements that are handed to the storage layer carry ``sql``: their exact source
text (no trailing semicolon), which the interpreter transpiles with sqlglot.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from tsqlbroker.errors import Span


@dataclass(frozen=True)
class Node:
    """Base of every AST node."""

    span: Span | None = field(default=None, compare=False, repr=False, kw_only=True)


class Expr(Node):
    """Base of expressions."""


class Stmt(Node):
    """Base of statements."""


# --------------------------------------------------------------------------------------------
# Names and types
# --------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class ObjectName(Node):
    """``[server.][database.][schema.]name``; ``db..obj`` leaves ``schema`` None."""

    name: str
    schema: str | None = None
    database: str | None = None
    server: str | None = None

    def parts(self) -> tuple[str | None, ...]:
        return (self.server, self.database, self.schema, self.name)


@dataclass(frozen=True)
class DataType(Node):
    """A type as written: ``name`` lower-cased (``nvarchar``), ``args`` its length or
    precision/scale (``('max',)``, ``(10, 2)``), ``xml_collection`` for ``xml(coll)``."""

    name: str
    args: tuple[int | str, ...] = ()
    xml_collection: ObjectName | None = None


# --------------------------------------------------------------------------------------------
# Expressions
# --------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Literal(Expr):
    """A constant. ``kind``: int | decimal | float | money | string | nstring | binary | null.

    ``value`` is the Python value (int, Decimal, float, str, bytes, None); ``text`` the literal
    as written (decimal precision and scale come from it)."""

    kind: str
    value: Any
    text: str = ""


@dataclass(frozen=True)
class Variable(Expr):
    """``@name`` (``name`` includes the ``@``)."""

    name: str


@dataclass(frozen=True)
class GlobalVariable(Expr):
    """``@@name`` (``name`` includes the ``@@``, lower-cased)."""

    name: str


@dataclass(frozen=True)
class Column(Expr):
    """A column reference: ``parts`` as written, e.g. ``('t', 'col')`` or ``('col',)``."""

    parts: tuple[str, ...]


@dataclass(frozen=True)
class Star(Expr):
    """``*`` or ``t.*``."""

    qualifier: tuple[str, ...] = ()


@dataclass(frozen=True)
class Unary(Expr):
    """``op``: ``-``, ``+``, ``~`` or ``not``."""

    op: str
    operand: Expr


@dataclass(frozen=True)
class Binary(Expr):
    """``op``: ``+ - * / % & | ^ = <> != < > <= >= !< !> and or``."""

    op: str
    left: Expr
    right: Expr


@dataclass(frozen=True)
class IsNull(Expr):
    expr: Expr
    negated: bool = False


@dataclass(frozen=True)
class InList(Expr):
    expr: Expr
    items: tuple[Expr, ...]
    negated: bool = False


@dataclass(frozen=True)
class InSubquery(Expr):
    expr: Expr
    query: QueryExpr
    negated: bool = False


@dataclass(frozen=True)
class Between(Expr):
    expr: Expr
    low: Expr
    high: Expr
    negated: bool = False


@dataclass(frozen=True)
class Like(Expr):
    expr: Expr
    pattern: Expr
    escape: Expr | None = None
    negated: bool = False


@dataclass(frozen=True)
class Exists(Expr):
    query: QueryExpr


@dataclass(frozen=True)
class Case(Expr):
    """Simple CASE when ``operand`` is set, searched CASE otherwise."""

    operand: Expr | None
    whens: tuple[tuple[Expr, Expr], ...]
    else_: Expr | None = None


@dataclass(frozen=True)
class Cast(Expr):
    """``CAST(expr AS type)``; ``try_`` for TRY_CAST."""

    expr: Expr
    type: DataType
    try_: bool = False


@dataclass(frozen=True)
class Convert(Expr):
    """``CONVERT(type, expr [, style])``; ``try_`` for TRY_CONVERT."""

    type: DataType
    expr: Expr
    style: Expr | None = None
    try_: bool = False


@dataclass(frozen=True)
class Parse(Expr):
    """``PARSE(expr AS type [USING culture])``; ``try_`` for TRY_PARSE."""

    expr: Expr
    type: DataType
    culture: Expr | None = None
    try_: bool = False


@dataclass(frozen=True)
class WindowSpec(Node):
    partition_by: tuple[Expr, ...] = ()
    order_by: tuple[OrderItem, ...] = ()
    frame: str | None = None


@dataclass(frozen=True)
class FunctionCall(Expr):
    """A built-in or user function. ``name`` as written; ``star`` for ``COUNT(*)``."""

    name: ObjectName
    args: tuple[Expr, ...] = ()
    distinct: bool = False
    star: bool = False
    over: WindowSpec | None = None
    within_group: tuple[OrderItem, ...] = ()


@dataclass(frozen=True)
class MethodCall(Expr):
    """An xml data type method: ``target.value(…)``, ``.query``, ``.exist``, ``.nodes``,
    ``.modify`` (``method`` lower-cased)."""

    target: Expr
    method: str
    args: tuple[Expr, ...] = ()


@dataclass(frozen=True)
class Subquery(Expr):
    """A scalar subquery ``(SELECT …)``."""

    query: QueryExpr


@dataclass(frozen=True)
class Collate(Expr):
    expr: Expr
    collation: str


@dataclass(frozen=True)
class DefaultValue(Expr):
    """``DEFAULT`` in a VALUES row (the column's default)."""


@dataclass(frozen=True)
class QuantifiedComparison(Expr):
    """``expr op ALL|ANY|SOME (subquery)`` (``quantifier`` lower-cased)."""

    op: str
    left: Expr
    quantifier: str
    query: QueryExpr


# --------------------------------------------------------------------------------------------
# Queries
# --------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class SelectItem(Node):
    """One select-list entry. ``assign_to`` is set for ``@v = expr`` (with ``assign_op``
    ``=`` or a compound ``+=`` …); ``alias`` for ``expr AS a`` and ``a = expr``."""

    expr: Expr
    alias: str | None = None
    assign_to: str | None = None
    assign_op: str | None = None


@dataclass(frozen=True)
class OrderItem(Node):
    expr: Expr
    desc: bool = False


@dataclass(frozen=True)
class Top(Node):
    expr: Expr
    percent: bool = False
    with_ties: bool = False


@dataclass(frozen=True)
class TableName(Node):
    """A table, view, queue or catalog view in FROM, with optional alias and hints."""

    name: ObjectName
    alias: str | None = None
    hints: tuple[str, ...] = ()


@dataclass(frozen=True)
class TableVariableRef(Node):
    """``FROM @t [AS a]``."""

    name: str
    alias: str | None = None


@dataclass(frozen=True)
class DerivedTable(Node):
    query: QueryExpr
    alias: str | None = None
    column_aliases: tuple[str, ...] = ()


@dataclass(frozen=True)
class FunctionTable(Node):
    """A table-valued function or ``x.nodes('…') AS T(c)`` in FROM / APPLY."""

    call: Expr
    alias: str | None = None
    column_aliases: tuple[str, ...] = ()


@dataclass(frozen=True)
class ValuesTable(Node):
    """``(VALUES (…), (…)) AS t(a, b)``."""

    rows: tuple[tuple[Expr, ...], ...]
    alias: str | None = None
    column_aliases: tuple[str, ...] = ()


@dataclass(frozen=True)
class Join(Node):
    """``kind``: inner | left | right | full | cross | cross apply | outer apply."""

    left: TableRef
    right: TableRef
    kind: str = "inner"
    on: Expr | None = None


@dataclass(frozen=True)
class PivotTable(Node):
    """``source PIVOT (agg FOR column IN (…)) AS alias``, or UNPIVOT with ``value`` (a name)
    in place of the aggregate (``unpivot``)."""

    source: TableRef
    value: Expr | str
    column: str
    listed: tuple[str, ...]
    alias: str
    unpivot: bool = False


TableRef = (TableName | TableVariableRef | DerivedTable | FunctionTable | ValuesTable | Join
            | PivotTable)


@dataclass(frozen=True)
class Select(Node):
    items: tuple[SelectItem, ...]
    distinct: bool = False
    top: Top | None = None
    into: ObjectName | None = None
    from_: tuple[TableRef, ...] = ()
    where: Expr | None = None
    group_by: tuple[Expr, ...] = ()
    having: Expr | None = None
    order_by: tuple[OrderItem, ...] = ()
    offset: Expr | None = None
    fetch: Expr | None = None
    option: str | None = None
    for_clause: str | None = None  # "XML PATH('x'), TYPE" / "JSON PATH" (after FOR)


@dataclass(frozen=True)
class SetOperation(Node):
    """``op``: union | union all | except | intersect."""

    op: str
    left: QueryExpr
    right: QueryExpr
    order_by: tuple[OrderItem, ...] = ()
    offset: Expr | None = None
    fetch: Expr | None = None
    for_clause: str | None = None  # FOR XML / FOR JSON of the whole query, as for Select


QueryExpr = Select | SetOperation


@dataclass(frozen=True)
class CommonTableExpr(Node):
    name: str
    columns: tuple[str, ...]
    query: QueryExpr


@dataclass(frozen=True)
class XmlNamespace(Node):
    """One ``WITH XMLNAMESPACES`` entry; ``prefix`` None for ``DEFAULT 'uri'``."""

    uri: str
    prefix: str | None = None


@dataclass(frozen=True)
class SelectStmt(Stmt):
    query: QueryExpr
    ctes: tuple[CommonTableExpr, ...] = ()
    xmlnamespaces: tuple[XmlNamespace, ...] = ()
    sql: str = ""


# --------------------------------------------------------------------------------------------
# DML
# --------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class OutputClause(Node):
    items: tuple[SelectItem, ...]
    into: ObjectName | str | None = None  # str: a table variable name
    into_columns: tuple[str, ...] = ()


@dataclass(frozen=True)
class ValuesSource(Node):
    rows: tuple[tuple[Expr, ...], ...]


@dataclass(frozen=True)
class DefaultValuesSource(Node):
    pass


@dataclass(frozen=True)
class Insert(Stmt):
    """``target`` is an ObjectName or a table variable name (str)."""

    target: ObjectName | str
    columns: tuple[str, ...]
    source: ValuesSource | QueryExpr | ExecProc | DefaultValuesSource
    output: OutputClause | None = None
    top: Top | None = None
    ctes: tuple[CommonTableExpr, ...] = ()
    sql: str = ""


@dataclass(frozen=True)
class Assignment(Node):
    """``SET col = expr`` / ``@v = expr`` / ``@v = col = expr`` in UPDATE; ``op`` may be
    compound (``+=``)."""

    target: Column | Variable
    expr: Expr
    op: str = "="
    also_variable: str | None = None


@dataclass(frozen=True)
class Update(Stmt):
    target: ObjectName | str
    assignments: tuple[Assignment, ...]
    from_: tuple[TableRef, ...] = ()
    where: Expr | None = None
    top: Top | None = None
    output: OutputClause | None = None
    ctes: tuple[CommonTableExpr, ...] = ()
    sql: str = ""


@dataclass(frozen=True)
class Delete(Stmt):
    target: ObjectName | str
    from_: tuple[TableRef, ...] = ()
    where: Expr | None = None
    top: Top | None = None
    output: OutputClause | None = None
    ctes: tuple[CommonTableExpr, ...] = ()
    sql: str = ""


@dataclass(frozen=True)
class MergeWhen(Node):
    """``WHEN [NOT] MATCHED [BY SOURCE|TARGET] [AND cond] THEN action``.

    ``action``: update | delete | insert."""

    matched: bool
    by_source: bool
    condition: Expr | None
    action: str
    assignments: tuple[Assignment, ...] = ()
    columns: tuple[str, ...] = ()
    values: tuple[Expr, ...] = ()


@dataclass(frozen=True)
class Merge(Stmt):
    target: ObjectName
    target_alias: str | None
    source: TableRef
    on: Expr
    whens: tuple[MergeWhen, ...]
    output: OutputClause | None = None
    ctes: tuple[CommonTableExpr, ...] = ()
    sql: str = ""


@dataclass(frozen=True)
class Truncate(Stmt):
    table: ObjectName
    sql: str = ""


# --------------------------------------------------------------------------------------------
# DDL
# --------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class ForeignKeyRef(Node):
    table: ObjectName
    columns: tuple[str, ...] = ()
    on_delete: str | None = None
    on_update: str | None = None


@dataclass(frozen=True)
class ColumnDef(Node):
    name: str
    type: DataType | None  # None for a computed column
    nullable: bool | None = None
    identity: tuple[int, int] | None = None
    default: Expr | None = None
    default_name: str | None = None
    primary_key: bool = False
    unique: bool = False
    references: ForeignKeyRef | None = None
    check: Expr | None = None
    computed: Expr | None = None
    collation: str | None = None
    constraint_names: tuple[str, ...] = ()


@dataclass(frozen=True)
class TableConstraint(Node):
    """``kind``: primary key | unique | foreign key | check."""

    kind: str
    name: str | None = None
    columns: tuple[str, ...] = ()
    references: ForeignKeyRef | None = None
    check: Expr | None = None
    clustered: bool | None = None


@dataclass(frozen=True)
class CreateTable(Stmt):
    name: ObjectName
    columns: tuple[ColumnDef, ...]
    constraints: tuple[TableConstraint, ...] = ()
    sql: str = ""


@dataclass(frozen=True)
class AlterTable(Stmt):
    """``ALTER TABLE`` in the forms scripts use: ``action`` add_column | add_constraint |
    drop_column | drop_constraint | alter_column."""

    name: ObjectName
    action: str
    column: ColumnDef | None = None
    constraint: TableConstraint | None = None
    target: str | None = None
    sql: str = ""


@dataclass(frozen=True)
class DropTable(Stmt):
    names: tuple[ObjectName, ...]
    if_exists: bool = False


@dataclass(frozen=True)
class CreateIndex(Stmt):
    name: str
    table: ObjectName
    columns: tuple[OrderItem, ...]
    unique: bool = False
    clustered: bool | None = None
    include: tuple[str, ...] = ()
    where: Expr | None = None
    sql: str = ""


@dataclass(frozen=True)
class DropIndex(Stmt):
    name: str
    table: ObjectName | None = None
    if_exists: bool = False


@dataclass(frozen=True)
class CreateView(Stmt):
    name: ObjectName
    columns: tuple[str, ...]
    query: SelectStmt
    or_alter: bool = False
    alter: bool = False
    sql: str = ""


@dataclass(frozen=True)
class DropView(Stmt):
    names: tuple[ObjectName, ...]
    if_exists: bool = False


# --------------------------------------------------------------------------------------------
# Procedural T-SQL
# --------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class VarDecl(Node):
    name: str
    type: DataType
    default: Expr | None = None


@dataclass(frozen=True)
class Declare(Stmt):
    items: tuple[VarDecl, ...]


@dataclass(frozen=True)
class DeclareTable(Stmt):
    """``DECLARE @t TABLE (…)``."""

    name: str
    columns: tuple[ColumnDef, ...]
    constraints: tuple[TableConstraint, ...] = ()


@dataclass(frozen=True)
class DeclareCursor(Stmt):
    """``DECLARE c CURSOR [options] FOR query``; ``options`` lower-cased keywords."""

    name: str
    query: SelectStmt
    options: tuple[str, ...] = ()
    for_update: tuple[str, ...] | None = None


@dataclass(frozen=True)
class SetVariable(Stmt):
    """``SET @v = expr`` or a compound ``SET @v += expr`` (``op`` ``+=`` …)."""

    name: str
    expr: Expr
    op: str = "="


@dataclass(frozen=True)
class SetCursorVariable(Stmt):
    """``SET @c = CURSOR [options] FOR query``."""

    name: str
    query: SelectStmt
    options: tuple[str, ...] = ()


@dataclass(frozen=True)
class SetOption(Stmt):
    """``SET NOCOUNT ON``, ``SET XACT_ABORT OFF`` … (``option`` lower-cased; ``value`` as
    written, lower-cased for ON/OFF)."""

    option: str
    value: str
    target: ObjectName | None = None  # SET IDENTITY_INSERT table ON


@dataclass(frozen=True)
class Block(Stmt):
    body: tuple[Stmt, ...]


@dataclass(frozen=True)
class If(Stmt):
    cond: Expr
    then: Stmt
    else_: Stmt | None = None


@dataclass(frozen=True)
class While(Stmt):
    cond: Expr
    body: Stmt


@dataclass(frozen=True)
class Break(Stmt):
    pass


@dataclass(frozen=True)
class Continue(Stmt):
    pass


@dataclass(frozen=True)
class Return(Stmt):
    expr: Expr | None = None


@dataclass(frozen=True)
class Goto(Stmt):
    label: str


@dataclass(frozen=True)
class Label(Stmt):
    name: str


@dataclass(frozen=True)
class BeginTran(Stmt):
    """``BEGIN TRAN[SACTION] [name | @var] [WITH MARK …]``; ``distributed`` for BEGIN
    DISTRIBUTED TRANSACTION."""

    name: str | Variable | None = None
    distributed: bool = False


@dataclass(frozen=True)
class CommitTran(Stmt):
    name: str | Variable | None = None


@dataclass(frozen=True)
class RollbackTran(Stmt):
    name: str | Variable | None = None


@dataclass(frozen=True)
class SaveTran(Stmt):
    name: str | Variable


@dataclass(frozen=True)
class TryCatch(Stmt):
    try_body: tuple[Stmt, ...]
    catch_body: tuple[Stmt, ...]


@dataclass(frozen=True)
class Throw(Stmt):
    """``THROW`` (re-throw, all None) or ``THROW number, message, state``."""

    number: Expr | None = None
    message: Expr | None = None
    state: Expr | None = None


@dataclass(frozen=True)
class Raiserror(Stmt):
    """``RAISERROR(msg, severity, state [, args…]) [WITH LOG|NOWAIT|SETERROR]``."""

    message: Expr
    severity: Expr
    state: Expr
    args: tuple[Expr, ...] = ()
    options: tuple[str, ...] = ()


@dataclass(frozen=True)
class Print(Stmt):
    expr: Expr


@dataclass(frozen=True)
class ExecArg(Node):
    """An EXEC argument: ``@name = value`` or positional (``name`` None); ``value`` None for
    ``DEFAULT``; ``output`` for ``OUTPUT``/``OUT``."""

    value: Expr | None
    name: str | None = None
    output: bool = False


@dataclass(frozen=True)
class ExecProc(Stmt):
    """``EXEC [@ret =] proc args`` — ``proc`` is an ObjectName, or a Variable holding the
    procedure's name (``EXEC @name_in_variable``). ``sp_executesql`` is an ExecProc too."""

    proc: ObjectName | Variable
    args: tuple[ExecArg, ...] = ()
    return_var: str | None = None


@dataclass(frozen=True)
class ExecDynamic(Stmt):
    """``EXEC ( @sql [+ '…'] )``: the parts are concatenated."""

    parts: tuple[Expr, ...]


@dataclass(frozen=True)
class ParamDef(Node):
    name: str
    type: DataType
    default: Expr | None = None
    output: bool = False
    readonly: bool = False


@dataclass(frozen=True)
class CreateProcedure(Stmt):
    """CREATE / ALTER / CREATE OR ALTER PROCEDURE. ``source`` is the whole statement text."""

    name: ObjectName
    params: tuple[ParamDef, ...]
    body: tuple[Stmt, ...]
    or_alter: bool = False
    alter: bool = False
    execute_as: str | None = None
    options: tuple[str, ...] = ()
    source: str = ""


@dataclass(frozen=True)
class DropProcedure(Stmt):
    names: tuple[ObjectName, ...]
    if_exists: bool = False


@dataclass(frozen=True)
class CreateFunction(Stmt):
    """A user function: scalar (``RETURNS type AS BEGIN … END``), inline table-valued
    (``RETURNS TABLE AS RETURN select``: ``inline`` holds the query, ``returns`` is ``table``)
    or multi-statement table-valued (``RETURNS @r TABLE (…) AS BEGIN … END``: ``table_var``
    and its ``table_columns`` / ``table_constraints``)."""

    name: ObjectName
    params: tuple[ParamDef, ...]
    returns: DataType
    body: tuple[Stmt, ...]
    or_alter: bool = False
    alter: bool = False
    options: tuple[str, ...] = ()
    source: str = ""
    inline: SelectStmt | None = None
    table_var: str | None = None
    table_columns: tuple[ColumnDef, ...] = ()
    table_constraints: tuple[TableConstraint, ...] = ()
    # WITH EXECUTE AS: SELF, OWNER, CALLER or a user name (None: CALLER).
    execute_as: str | None = None


@dataclass(frozen=True)
class CreateTableType(Stmt):
    """``CREATE TYPE name AS TABLE (…)``: a user-defined table type (table-valued
    parameters, ``DECLARE @t name``)."""

    name: ObjectName
    columns: tuple[ColumnDef, ...]
    constraints: tuple[TableConstraint, ...] = ()


@dataclass(frozen=True)
class DropType(Stmt):
    name: ObjectName
    if_exists: bool = False


@dataclass(frozen=True)
class CreateAliasType(Stmt):
    """``CREATE TYPE name FROM base_type [NULL | NOT NULL]`` (``nullable`` None: not
    written, which allows NULL)."""

    name: ObjectName
    base: DataType
    nullable: bool | None = None


@dataclass(frozen=True)
class CreateTrigger(Stmt):
    """CREATE / ALTER / CREATE OR ALTER TRIGGER name ON table {AFTER | FOR | INSTEAD OF}
    events AS body. ``source`` is the whole statement text."""

    name: ObjectName
    table: ObjectName
    instead_of: bool
    events: tuple[str, ...]
    body: tuple[Stmt, ...]
    or_alter: bool = False
    alter: bool = False
    source: str = ""
    # WITH EXECUTE AS: SELF, OWNER, CALLER or a user name (None: CALLER).
    execute_as: str | None = None


@dataclass(frozen=True)
class DropTrigger(Stmt):
    names: tuple[ObjectName, ...]
    if_exists: bool = False


@dataclass(frozen=True)
class EnableTrigger(Stmt):
    """``ENABLE | DISABLE TRIGGER {name, … | ALL} ON table`` (``names`` empty: ALL)."""

    enable: bool
    names: tuple[ObjectName, ...]
    table: ObjectName


@dataclass(frozen=True)
class UpdateColumn(Expr):
    """``UPDATE(column)`` inside a trigger: whether the statement wrote the column."""

    column: str


@dataclass(frozen=True)
class CreateSynonym(Stmt):
    name: ObjectName
    target: ObjectName


@dataclass(frozen=True)
class DropSynonym(Stmt):
    name: ObjectName
    if_exists: bool = False


@dataclass(frozen=True)
class CreateSequence(Stmt):
    """``CREATE SEQUENCE`` (``alter`` False) or ``ALTER SEQUENCE``: ``options`` as
    ``(word, value)`` pairs in written order (``('start', 5)``, ``('as', DataType)``,
    ``('no_cycle', None)`` …)."""

    name: ObjectName
    options: tuple[tuple[str, Any], ...] = ()
    alter: bool = False


@dataclass(frozen=True)
class DropSequence(Stmt):
    names: tuple[ObjectName, ...]
    if_exists: bool = False


@dataclass(frozen=True)
class NextValueFor(Expr):
    """``NEXT VALUE FOR sequence [OVER (ORDER BY …)]``."""

    name: ObjectName
    over: Any = None


@dataclass(frozen=True)
class CreateSchema(Stmt):
    """``CREATE SCHEMA name [AUTHORIZATION owner] [element …]``: the elements (CREATE TABLE,
    GRANT, REVOKE, DENY) run after the schema exists, unqualified tables in it."""

    name: str
    owner: str | None = None
    elements: tuple[Stmt, ...] = ()


@dataclass(frozen=True)
class AlterSchemaTransfer(Stmt):
    """``ALTER SCHEMA s TRANSFER [class::]name``."""

    schema: str
    name: ObjectName
    object_class: str | None = None


@dataclass(frozen=True)
class DropSchema(Stmt):
    name: str
    if_exists: bool = False


@dataclass(frozen=True)
class DropFunction(Stmt):
    names: tuple[ObjectName, ...]
    if_exists: bool = False


@dataclass(frozen=True)
class WaitforDelay(Stmt):
    """``WAITFOR DELAY 'hh:mm:ss'`` (``kind`` delay) or ``WAITFOR TIME '…'`` (``kind`` time)."""

    kind: str
    expr: Expr


@dataclass(frozen=True)
class Use(Stmt):
    database: str


@dataclass(frozen=True)
class Kill(Stmt):
    """``KILL session_id`` (an int) or ``KILL 'uow'`` (a str); ``WITH STATUSONLY``."""

    target: int | str
    status_only: bool = False


@dataclass(frozen=True)
class CreateDatabase(Stmt):
    name: str


@dataclass(frozen=True)
class DropDatabase(Stmt):
    names: tuple[str, ...]
    if_exists: bool = False


@dataclass(frozen=True)
class AlterDatabaseFiles(Stmt):
    """``ALTER DATABASE {name | CURRENT} ADD FILE … | ADD LOG FILE … | ADD FILEGROUP fg |
    REMOVE FILE f | REMOVE FILEGROUP fg | MODIFY FILE (…) | MODIFY FILEGROUP fg …``.

    ``action`` is the words in lower case (``add filegroup``); ``name`` the filegroup or
    file it names, when it names one. ``database`` None for CURRENT."""

    database: str | None
    action: str
    name: str | None = None


@dataclass(frozen=True)
class AlterDatabase(Stmt):
    """``ALTER DATABASE {name | CURRENT} SET option [ON|OFF] [WITH termination]``.

    ``option`` lower-cased: enable_broker | disable_broker | new_broker |
    error_broker_conversations | honor_broker_priority | trustworthy | other options as written.
    ``database`` None for CURRENT."""

    database: str | None
    option: str
    value: str | None = None
    termination: str | None = None


@dataclass(frozen=True)
class OpenCursor(Stmt):
    name: str


@dataclass(frozen=True)
class FetchCursor(Stmt):
    """``FETCH [NEXT|PRIOR|FIRST|LAST|ABSOLUTE n|RELATIVE n] FROM c [INTO @a, …]``."""

    name: str
    direction: str = "next"
    offset: Expr | None = None
    into: tuple[str, ...] = ()


@dataclass(frozen=True)
class CloseCursor(Stmt):
    name: str


@dataclass(frozen=True)
class DeallocateCursor(Stmt):
    name: str


# --------------------------------------------------------------------------------------------
# Service Broker objects
# --------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class CreateMessageType(Stmt):
    """``validation``: NONE | EMPTY | WELL_FORMED_XML | VALID_XML.

    Released ``VALID_XML WITH SCHEMA COLLECTION c`` sets ``schema_collection``; the
    pre-release ``ENCODING XML WITH 'ns'`` sets ``schema_namespace`` (VALID_XML against the
    schema registered for that namespace); ``ENCODING VARBINARY`` is NONE, ``ENCODING EMPTY``
    is EMPTY, ``ENCODING XML`` alone is WELL_FORMED_XML."""

    name: str
    validation: str = "NONE"
    schema_collection: ObjectName | None = None
    schema_namespace: str | None = None
    owner: str | None = None


@dataclass(frozen=True)
class AlterMessageType(Stmt):
    name: str
    validation: str | None = None
    schema_collection: ObjectName | None = None
    schema_namespace: str | None = None
    owner: str | None = None


@dataclass(frozen=True)
class DropMessageType(Stmt):
    names: tuple[str, ...]


@dataclass(frozen=True)
class CreateXmlSchemaCollection(Stmt):
    """``CREATE XML SCHEMA COLLECTION name AS expr``; pre-release ``CREATE XMLSCHEMA expr``
    has ``name`` None."""

    name: ObjectName | None
    schema: Expr


@dataclass(frozen=True)
class AlterXmlSchemaCollection(Stmt):
    name: ObjectName
    schema: Expr


@dataclass(frozen=True)
class DropXmlSchemaCollection(Stmt):
    name: ObjectName


@dataclass(frozen=True)
class ContractUsage(Node):
    """``sent_by``: INITIATOR | TARGET | ANY."""

    message_type: str
    sent_by: str


@dataclass(frozen=True)
class CreateContract(Stmt):
    name: str
    usages: tuple[ContractUsage, ...]
    owner: str | None = None


@dataclass(frozen=True)
class DropContract(Stmt):
    names: tuple[str, ...]


@dataclass(frozen=True)
class QueueActivation(Node):
    """ACTIVATION (…). ``execute_as``: SELF | OWNER | a user name. ``drop`` for
    ``ACTIVATION (DROP)``. Unspecified options are None."""

    status: bool | None = None
    procedure: ObjectName | None = None
    max_readers: int | None = None
    execute_as: str | None = None
    drop: bool = False


@dataclass(frozen=True)
class CreateQueue(Stmt):
    name: ObjectName
    status: bool | None = None
    retention: bool | None = None
    activation: QueueActivation | None = None
    poison_message_handling: bool | None = None
    filegroup: str | None = None


@dataclass(frozen=True)
class AlterQueue(Stmt):
    """``action`` None for WITH options, else rebuild | reorganize | move."""

    name: ObjectName
    status: bool | None = None
    retention: bool | None = None
    activation: QueueActivation | None = None
    poison_message_handling: bool | None = None
    action: str | None = None


@dataclass(frozen=True)
class DropQueue(Stmt):
    name: ObjectName


@dataclass(frozen=True)
class CreateService(Stmt):
    """``contracts`` may include ``DEFAULT``; ``retention`` is the pre-release clause."""

    name: str
    queue: ObjectName
    contracts: tuple[str, ...] = ()
    owner: str | None = None
    retention: bool | None = None


@dataclass(frozen=True)
class AlterService(Stmt):
    name: str
    queue: ObjectName | None = None
    add_contracts: tuple[str, ...] = ()
    drop_contracts: tuple[str, ...] = ()


@dataclass(frozen=True)
class DropService(Stmt):
    name: str


@dataclass(frozen=True)
class CreateRoute(Stmt):
    """Options keyed lower-case: service_name, broker_instance, lifetime, address,
    mirror_address; values are expressions (string or number literals)."""

    name: str
    options: tuple[tuple[str, Expr], ...]
    owner: str | None = None


@dataclass(frozen=True)
class AlterRoute(Stmt):
    name: str
    options: tuple[tuple[str, Expr], ...]


@dataclass(frozen=True)
class DropRoute(Stmt):
    name: str


@dataclass(frozen=True)
class CreateRemoteServiceBinding(Stmt):
    name: str
    service: str
    user: str
    anonymous: bool | None = None
    owner: str | None = None


@dataclass(frozen=True)
class AlterRemoteServiceBinding(Stmt):
    name: str
    user: str | None = None
    anonymous: bool | None = None


@dataclass(frozen=True)
class DropRemoteServiceBinding(Stmt):
    name: str


@dataclass(frozen=True)
class CreateEndpoint(Stmt):
    """``CREATE/ALTER ENDPOINT … AS TCP (…) FOR SERVICE_BROKER (…)``; options keyed
    lower-case with values as written (``listener_port`` → '4022', ``authentication`` →
    'WINDOWS NEGOTIATE' …)."""

    name: str
    state: str | None = None
    tcp_options: tuple[tuple[str, str], ...] = ()
    broker_options: tuple[tuple[str, str], ...] = ()
    owner: str | None = None
    alter: bool = False


@dataclass(frozen=True)
class DropEndpoint(Stmt):
    name: str


@dataclass(frozen=True)
class CreateBrokerPriority(Stmt):
    """Options keyed lower-case (contract_name, local_service_name, remote_service_name,
    priority_level); value None for ANY / DEFAULT."""

    name: str
    options: tuple[tuple[str, Expr | None], ...] = ()
    alter: bool = False


@dataclass(frozen=True)
class DropBrokerPriority(Stmt):
    name: str


@dataclass(frozen=True)
class AlterAuthorization(Stmt):
    """``ALTER AUTHORIZATION ON [class::]name TO owner``: ``name`` as written (dots and
    all: a broker name may hold dots), ``target`` its parts as an object name."""

    object_class: str | None
    name: str
    owner: str
    target: ObjectName | None = field(default=None, compare=False)


# --------------------------------------------------------------------------------------------
# Service Broker conversations
# --------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class BeginDialog(Stmt):
    """BEGIN DIALOG [CONVERSATION] @handle FROM SERVICE s TO SERVICE 'x' [, broker] …
    ``from_service`` and ``contract`` are names, or variables holding them."""

    handle: str
    from_service: str | Variable
    to_service: Expr
    to_broker: Expr | None = None
    contract: str | Variable | None = None
    related_conversation: Expr | None = None
    related_group: Expr | None = None
    lifetime: Expr | None = None
    encryption: bool | None = None


@dataclass(frozen=True)
class CreateEventNotification(Stmt):
    """``CREATE EVENT NOTIFICATION name ON {SERVER | DATABASE | QUEUE q} [WITH FAN_IN] FOR
    events TO SERVICE 'service', 'broker_instance' | 'current database'``; ``target`` is
    server, database or queue (``queue`` names it)."""

    name: str
    target: str
    queue: ObjectName | None
    events: tuple[str, ...]
    service: str
    broker_instance: str
    fan_in: bool = False


@dataclass(frozen=True)
class DropEventNotification(Stmt):
    """``DROP EVENT NOTIFICATION n [, …] ON {SERVER | DATABASE | QUEUE q}``."""

    names: tuple[str, ...]
    target: str
    queue: ObjectName | None = None


@dataclass(frozen=True)
class Send(Stmt):
    """``SEND ON CONVERSATION (h1, h2 …) [MESSAGE TYPE t] [(body)]``; ``message_type`` is a
    name or a variable holding one."""

    handles: tuple[Expr, ...]
    message_type: str | Variable | None = None
    body: Expr | None = None


@dataclass(frozen=True)
class Receive(Stmt):
    """RECEIVE. ``where_column`` is conversation_handle or conversation_group_id (the
    pre-release service_instance_id is normalised); ``into`` a table variable name or a
    table."""

    items: tuple[SelectItem, ...]
    queue: ObjectName
    top: Expr | None = None
    into: str | ObjectName | None = None
    where_column: str | None = None
    where_value: Expr | None = None


@dataclass(frozen=True)
class GetConversationGroup(Stmt):
    """GET CONVERSATION GROUP @v FROM q (pre-release: GET SERVICE INSTANCE)."""

    variable: str
    queue: ObjectName


@dataclass(frozen=True)
class Waitfor(Stmt):
    """``WAITFOR ( RECEIVE … | GET CONVERSATION GROUP … ) [, TIMEOUT n]``."""

    statement: Receive | GetConversationGroup
    timeout: Expr | None = None


@dataclass(frozen=True)
class EndConversation(Stmt):
    handle: Expr
    error_code: Expr | None = None
    description: Expr | None = None
    cleanup: bool = False


@dataclass(frozen=True)
class BeginConversationTimer(Stmt):
    handle: Expr
    timeout: Expr


@dataclass(frozen=True)
class MoveConversation(Stmt):
    handle: Expr
    group: Expr


# --------------------------------------------------------------------------------------------
# Batches
# --------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Batch(Node):
    """One GO-separated batch. ``start_line`` is the file line of its first line (1-based);
    statement spans are file lines. ``repeat`` is the ``n`` of ``GO n``."""

    statements: tuple[Stmt, ...]
    text: str = ""
    start_line: int = 1
    repeat: int = 1


@dataclass(frozen=True)
class Script(Node):
    batches: tuple[Batch, ...]


def literal_decimal(text: str) -> Decimal:
    """The Decimal value of a numeric literal as written."""
    return Decimal(text)


# --------------------------------------------------------------------------------------------
# Security: permissions, principals, certificates, the database master key, impersonation
# --------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Permission(Node):
    """One permission of GRANT / REVOKE / DENY: its words upper-case, one space apart
    (``VIEW DEFINITION``), and the columns it is limited to."""

    name: str
    columns: tuple[str, ...] = ()


@dataclass(frozen=True)
class Securable(Node):
    """``ON [class::]name``: ``object_class`` upper-case as written (``MESSAGE TYPE``), None
    when omitted (an object or, for a one-part name, possibly a schema-scoped object)."""

    object_class: str | None
    name: ObjectName


@dataclass(frozen=True)
class PermissionStatement(Stmt):
    """``GRANT`` / ``REVOKE`` / ``DENY`` (``action``); ``securable`` None means the database."""

    action: str
    permissions: tuple[Permission, ...]
    securable: Securable | None
    principals: tuple[str, ...]
    with_grant_option: bool = False
    grant_option_for: bool = False
    cascade: bool = False
    as_principal: str | None = None


@dataclass(frozen=True)
class CreateUser(Stmt):
    """``CREATE USER``: ``kind`` is LOGIN, CERTIFICATE, WITHOUT LOGIN or None (a login of
    the same name, ``mapped_to``); ``options`` are the WITH options (lower-case key, value)."""

    name: str
    kind: str | None = None
    mapped_to: str | None = None
    options: tuple[tuple[str, Any], ...] = ()


@dataclass(frozen=True)
class AlterUser(Stmt):
    name: str
    options: tuple[tuple[str, Any], ...] = ()


@dataclass(frozen=True)
class DropUser(Stmt):
    name: str
    if_exists: bool = False


@dataclass(frozen=True)
class CreateLogin(Stmt):
    """``CREATE LOGIN``: ``kind`` is PASSWORD, WINDOWS or CERTIFICATE."""

    name: str
    kind: str
    certificate: str | None = None
    options: tuple[tuple[str, Any], ...] = ()


@dataclass(frozen=True)
class AlterLogin(Stmt):
    """``ALTER LOGIN``: ``enable`` for ENABLE / DISABLE, else WITH ``options``."""

    name: str
    enable: bool | None = None
    options: tuple[tuple[str, Any], ...] = ()


@dataclass(frozen=True)
class DropLogin(Stmt):
    name: str


@dataclass(frozen=True)
class PrivateKeyOptions(Node):
    """``WITH PRIVATE KEY (FILE = …, DECRYPTION BY PASSWORD = …, ENCRYPTION BY PASSWORD = …)``."""

    file: str | None = None
    decryption_password: str | None = None
    encryption_password: str | None = None


@dataclass(frozen=True)
class CreateCertificate(Stmt):
    """``CREATE CERTIFICATE``: generated (``subject``) or loaded (``file``)."""

    name: str
    owner: str | None = None
    subject: str | None = None
    start_date: str | None = None
    expiry_date: str | None = None
    password: str | None = None
    file: str | None = None
    private_key: PrivateKeyOptions | None = None
    active_for_begin_dialog: bool | None = None


@dataclass(frozen=True)
class AlterCertificate(Stmt):
    name: str
    remove_private_key: bool = False
    active_for_begin_dialog: bool | None = None
    private_key: PrivateKeyOptions | None = None


@dataclass(frozen=True)
class DropCertificate(Stmt):
    name: str


@dataclass(frozen=True)
class BackupCertificate(Stmt):
    name: str
    file: str
    private_key: PrivateKeyOptions | None = None


@dataclass(frozen=True)
class CreateMasterKey(Stmt):
    password: str | None = None


@dataclass(frozen=True)
class AlterMasterKey(Stmt):
    """``action``: REGENERATE, ADD or DROP; the encryptor is ``password`` or the service
    master key."""

    action: str
    password: str | None = None
    service_master_key: bool = False
    force: bool = False


@dataclass(frozen=True)
class DropMasterKey(Stmt):
    pass


@dataclass(frozen=True)
class OpenMasterKey(Stmt):
    password: str


@dataclass(frozen=True)
class CloseMasterKey(Stmt):
    pass


@dataclass(frozen=True)
class ExecuteAs(Stmt):
    """``EXECUTE AS USER | LOGIN = 'name' | CALLER [WITH NO REVERT | COOKIE INTO @v]``."""

    kind: str
    name: str | None = None
    no_revert: bool = False
    cookie_variable: str | None = None


@dataclass(frozen=True)
class Revert(Stmt):
    cookie_variable: str | None = None


@dataclass(frozen=True)
class CreateRole(Stmt):
    """``CREATE [SERVER] ROLE name [AUTHORIZATION owner]``."""

    name: str
    owner: str | None = None
    server: bool = False      # CREATE SERVER ROLE: a server principal, owned by a login


@dataclass(frozen=True)
class AlterRole(Stmt):
    """``ALTER [SERVER] ROLE``: ADD MEMBER, DROP MEMBER or WITH NAME = …"""

    name: str
    add_member: str | None = None
    drop_member: str | None = None
    options: tuple[tuple[str, Any], ...] = ()
    server: bool = False      # ALTER SERVER ROLE: logins and server roles as members


@dataclass(frozen=True)
class DropRole(Stmt):
    """``DROP ROLE [IF EXISTS] name`` / ``DROP SERVER ROLE name``."""

    name: str
    if_exists: bool = False
    server: bool = False


@dataclass(frozen=True)
class ApplicationRole(Stmt):
    """``CREATE / ALTER APPLICATION ROLE name WITH …`` and ``DROP APPLICATION ROLE name``."""

    action: str                                   # CREATE, ALTER or DROP
    name: str
    options: tuple[tuple[str, Any], ...] = ()
