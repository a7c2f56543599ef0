"""Session and metadata functions inside storage queries (``USER_NAME()``, ``@@SPID``,
``OBJECT_NAME(object_id)`` …).

Two kinds:

* Values that depend only on the session and constant arguments (``USER_NAME()``,
  ``SUSER_SNAME()``, ``CURRENT_USER``, ``APP_NAME()``, ``OBJECT_ID('t', 'U')``, ``@@SPID``,
  ``ERROR_NUMBER()`` in a CATCH block …) are evaluated by the interpreter (the registered
  :class:`~tsqlbroker.engine.udf_bridge.UdfBridge`) while the statement is bound and become
  statement parameters — the same values the interpreter gives outside queries.
* Catalog look-ups per row (``OBJECT_NAME(object_id)`` over ``sys.objects``) become scalar
  subqueries on the catalog tables, the same SQL on SQLite and PostgreSQL.

sqlglot reads ``SYSTEM_USER``, ``SUSER_SNAME()`` and ``CURRENT_USER`` all as
``CurrentUser``; the statement text tells them apart (paren forms carry a position).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import sqlglot
from sqlglot import exp

from ..errors import BindError, tsql_error
from . import objprops, visibility
from .datecalls import uses_datefirst
from .literal_rows import literal_rows
from .parsing import not_supported
from .security import Security
from .transpiler.interface import BindContext
from .transpiler.scope import param_name
from .udf_calls import bind_key, bridge_of, constant_args
from .variantcols import property_call, property_spec
from .viewcols import describer

# Handled by the transpiler itself (SQL of their own, or frame state the bridge lacks).
_ENGINE_OWN = frozenset({"scope_identity", "ident_current", "choose", "datepart",
                         "current_timestamp", "iif", "coalesce", "isnull"})
_USER_WORDS = re.compile(r"'(?:[^']++|'')*+'|\b(CURRENT_USER|SYSTEM_USER|SUSER_S?NAME)\b(\s*\()?",
                         re.IGNORECASE)


def _names_of_users(text: str) -> list[str]:
    """The bare ``CURRENT_USER`` / ``SYSTEM_USER`` words of ``text``, in order."""
    out = []
    for m in _USER_WORDS.finditer(text):
        if m.group(1) and not m.group(2):
            out.append(m.group(1).lower())
    return out


def _call_name(node: exp.Expression, bare_users: list[str], text: str) -> str | None:
    """The T-SQL function ``node`` calls, if it is a session / metadata function node."""
    if isinstance(node, exp.Anonymous):
        return node.name.lower()
    if isinstance(node, exp.ObjectId):
        return "object_id"
    if isinstance(node, exp.SessionUser):
        return "session_user"
    if isinstance(node, exp.CurrentSchema):  # sqlglot's reading of SCHEMA_NAME([id])
        return "schema_name"
    if isinstance(node, exp.CurrentUser):
        start = node.meta.get("start")
        if start is not None:  # written with parentheses: SUSER_SNAME() or SUSER_NAME()
            return "suser_name" if text[start:start + 11].upper().startswith("SUSER_NAME") \
                else "suser_sname"
        return bare_users.pop(0) if bare_users else "current_user"
    return None


def _is_user_keyword(binder: BindContext, node: exp.Column) -> bool:
    """``USER`` (sqlglot reads it as a column) where no table of the query has such a
    column."""
    ident = node.this
    return not node.table and isinstance(ident, exp.Identifier) and not ident.quoted \
        and ident.name.lower() == "user" \
        and not any(src.has_column("user") for src in binder.sources.values())


def _arguments(node: exp.Expression) -> list[exp.Expression]:
    if isinstance(node, exp.ObjectId):
        return [a for a in (node.this, node.expression) if a is not None]
    if isinstance(node, exp.Anonymous):
        return list(node.expressions)
    if isinstance(node, (exp.CurrentSchema, exp.CurrentUser)):
        return [node.this] if node.this is not None else []
    return []


def prepare(binder: BindContext, tree: exp.Expression, text: str) -> None:
    """Before the statement is looked up in the compile cache: evaluate the session functions
    with constant arguments into parameters (``binder.session_calls`` maps node ids to
    them)."""
    bridge = bridge_of(binder.conn.store)
    calls: dict[int, str] = {}
    binder.session_calls = calls
    if bridge is None:
        return
    names = bridge.session_names()
    bare_users = _names_of_users(text)
    for node in tree.find_all(exp.Anonymous, exp.ObjectId, exp.CurrentUser, exp.SessionUser,
                              exp.CurrentSchema, exp.Parameter, exp.Column, bfs=False):
        if isinstance(node, exp.Parameter):
            _prepare_global(binder, node, names)
            continue
        if isinstance(node, exp.Column):
            if not _is_user_keyword(binder, node):
                continue
            name = "user"
        else:
            name = _call_name(node, bare_users, text)
        if name is None or name not in names or name in _ENGINE_OWN:
            continue
        args = constant_args(binder, _arguments(node))
        if args is None and name in _LITERAL_PER_ROW:
            binder.depends_on(object())  # rows of the catalog's current state: no plan reuse
            _fix_constant(binder, node, _LITERAL_PER_ROW[name])
        if args is None:
            if not isinstance(node, exp.Anonymous):
                calls[id(node)] = "row:" + name  # per row, under the name sqlglot lost
            continue  # per row: SQL of its own (rewrite), or not supported
        value, spec = bridge.session_value(binder.ctx.session_id, name, args)
        key = "@@" + bind_key(f"fn_{name}", args)  # the same in the views it reads
        binder.params[key] = (value, spec)
        calls[id(node)] = key
    if any(uses_datefirst(node) for node in tree.find_all(exp.Extract)):
        _bind_global(binder, "@@datefirst", names)  # DATEPART(weekday | week, …)
    if calls:
        # No plan reuse (values are bound per run); NULLs are written as NULL (PostgreSQL
        # cannot type a NULL parameter in ``$1 IS NULL``), so which ones are NULL is part
        # of the compiled SQL's key.
        nulls = tuple(k for k in calls.values()
                      if not k.startswith("row:") and binder.params[k][0] is None)
        binder.depends_on(("session-values", nulls))


def _prepare_global(binder: BindContext, node: exp.Parameter, names: frozenset[str]) -> None:
    _bind_global(binder, param_name(node), names)


def _bind_global(binder: BindContext, name: str, names: frozenset[str]) -> None:
    """Bind ``@@name``'s value for the session as the statement parameter ``name``."""
    if not name.startswith("@@") or name in binder.params or name not in names:
        return
    bridge = bridge_of(binder.conn.store)
    assert bridge is not None
    binder.params[name] = bridge.session_value(binder.ctx.session_id, name, [])
    binder.depends_on(("session-values",))


def replacement(binder: BindContext, node: exp.Expression) -> exp.Expression | None:
    """The backend expression for a session / metadata function call (children already
    rewritten), or None when ``node`` is none of them."""
    calls: dict[int, str] = binder.session_calls
    key = calls.get(id(node))
    if key is not None and key.startswith("row:"):
        return _per_row(binder, key[4:], _arguments(node))
    if key is not None:
        if binder.params[key][0] is None:
            return exp.Null()
        return binder.variable(key)
    if isinstance(node, exp.CurrentSchema) and node.this is not None:
        return _schema_name(binder, [node.this])
    if not isinstance(node, exp.Anonymous):
        return None
    low = node.name.lower()
    bridge = bridge_of(binder.conn.store)
    if low in PER_ROW or bridge is not None and low in bridge.session_names() \
            and low not in _ENGINE_OWN and low not in ("db_id", "db_name"):
        return _per_row(binder, low, list(node.expressions))
    return None


def _per_row(binder: BindContext, name: str, args: list[exp.Expression]) -> exp.Expression:
    """A session / metadata function with column arguments: its catalog SQL, if it has one."""
    build = PER_ROW.get(name)
    if build is None:
        raise not_supported(f"{name.upper()}() with a column argument inside a query")
    return build(binder, args)


def spec_of(binder: BindContext, node: exp.Expression) -> str | None:
    """The type spec of a prepared session value or a per-row catalog function."""
    calls: dict[int, str] = binder.session_calls
    key = calls.get(id(node))
    if key is not None and key.startswith("row:"):
        return "int" if key[4:] in _INT_RESULTS else "nvarchar(128)"
    if key is not None:
        return binder.params[key][1]
    if isinstance(node, exp.CurrentSchema):
        return "nvarchar(128)"
    if isinstance(node, exp.Anonymous) and node.name.lower() == "sql_variant_property":
        return property_spec(list(node.expressions))
    if isinstance(node, exp.Anonymous) and node.name.lower() in PER_ROW:
        return "int" if node.name.lower() in _INT_RESULTS else "nvarchar(128)"
    return None


# -- catalog look-ups per row ----------------------------------------------------------------
def _scalar(binder: BindContext, column: str, table: Any, conds: list[exp.Expression]
            ) -> exp.Expression:
    """``(SELECT column FROM table WHERE conds)``: the catalog columns are renamed
    ``tsqlb_m_<name>`` in a derived table, so an unqualified column of the outer query in
    the arguments (``OBJECT_NAME(object_id)``) cannot be captured by the catalog table."""
    used = {c.name for cond in conds for c in cond.find_all(exp.Column)
            if c.table == "tsqlb_m"} | {column}
    inner = sqlglot.select(*[exp.alias_(exp.column(n), f"tsqlb_m_{n}") for n in sorted(used)]
                           ).from_(exp.Table(this=exp.Identifier(this=table.name, quoted=True)))
    for cond in conds:
        for c in cond.find_all(exp.Column):
            if c.table == "tsqlb_m":
                c.set("this", exp.Identifier(this=f"tsqlb_m_{c.name}"))
                c.set("table", None)
    query = sqlglot.select(exp.column(f"tsqlb_m_{column}")).from_(
        exp.Subquery(this=inner, alias=exp.TableAlias(this=exp.Identifier(this="tsqlb_m")))
    ).where(exp.and_(*conds))
    return exp.Subquery(this=query)


def _col(name: str) -> exp.Column:
    return exp.column(name, table="tsqlb_m")


def _arity(name: str, args: list[exp.Expression], lo: int, hi: int) -> None:
    if not lo <= len(args) <= hi:
        raise tsql_error(174, name, lo, cls=BindError)


def _db(binder: BindContext, args: list[exp.Expression], at: int) -> exp.Expression:
    return args[at] if len(args) > at else exp.Literal.number(binder.ctx.db_id)


def _seen_objects(binder: BindContext) -> visibility.Visible | None:
    """The objects of the current database the session may see (None: all of them)."""
    db_id = binder.ctx.db_id
    principals = visibility.viewer(binder.ctx, db_id)
    if principals is None:
        return None
    return visibility.visible(Security.get(binder.conn.store), binder.conn, db_id, principals,
                              visibility.OBJECT)


def _visible_object(binder: BindContext) -> list[exp.Expression]:
    """Metadata visibility on the objects row ``tsqlb_m``: an object of the current database
    the session cannot see (nor the table of a constraint or trigger) answers NULL."""
    seen = _seen_objects(binder)
    if seen is None:
        return []
    own = visibility.condition_text(seen, "tsqlb_m.object_id", "tsqlb_m.schema_id",
                                    "tsqlb_m.type")
    parent = visibility.condition_text(seen, "tsqlb_m.parent_object_id", "tsqlb_m.schema_id",
                                       "'U'")
    return [sqlglot.condition(f"tsqlb_m.database_id <> {int(binder.ctx.db_id)} OR {own} OR "
                              f"(tsqlb_m.parent_object_id <> 0 AND {parent})")]


def _object_name(binder: BindContext, args: list[exp.Expression]) -> exp.Expression:
    _arity("OBJECT_NAME", args, 1, 2)
    t = binder.catalog.t.objects
    return _scalar(binder, "name", t, [exp.EQ(this=_col("object_id"), expression=args[0]),
                                       exp.EQ(this=_col("database_id"),
                                              expression=_db(binder, args, 1)),
                                       *_visible_object(binder)])


def _object_schema_name(binder: BindContext, args: list[exp.Expression]) -> exp.Expression:
    _arity("OBJECT_SCHEMA_NAME", args, 1, 2)
    t = binder.catalog.t.objects
    return _scalar(binder, "schema_name", t, [
        exp.EQ(this=_col("object_id"), expression=args[0]),
        exp.EQ(this=_col("database_id"), expression=_db(binder, args, 1)),
        *_visible_object(binder)])


def _schema_name(binder: BindContext, args: list[exp.Expression]) -> exp.Expression:
    _arity("SCHEMA_NAME", args, 0, 1)
    t = binder.catalog.t.schemas
    return _scalar(binder, "name", t, [
        exp.EQ(this=_col("schema_id"), expression=args[0]),
        exp.EQ(this=_col("database_id"), expression=exp.Literal.number(binder.ctx.db_id))])


def _schema_id(binder: BindContext, args: list[exp.Expression]) -> exp.Expression:
    _arity("SCHEMA_ID", args, 0, 1)
    t = binder.catalog.t.schemas
    return _scalar(binder, "schema_id", t, [
        exp.EQ(this=_col("name_key"), expression=exp.Lower(this=args[0])),
        exp.EQ(this=_col("database_id"), expression=exp.Literal.number(binder.ctx.db_id))])


def _col_name(binder: BindContext, args: list[exp.Expression]) -> exp.Expression:
    _arity("COL_NAME", args, 2, 2)
    t = binder.catalog.t.columns
    conds = [exp.EQ(this=_col("object_id"), expression=args[0]),
             exp.EQ(this=_col("column_id"), expression=args[1])]
    seen = _seen_objects(binder)
    if seen is not None:
        # the column of a table or view the session cannot see answers NULL
        objects = binder.catalog.t.objects.name
        conds.append(sqlglot.condition(
            f"tsqlb_m.object_id IN (SELECT object_id FROM {objects} WHERE database_id = "
            f"{int(binder.ctx.db_id)} AND "
            f"{visibility.condition_text(seen, 'object_id', 'schema_id', 'type')})"))
    return _scalar(binder, "name", t, conds)


def _view_lookup(view: str, result: str, key: str, by_name: bool, lo: int = 1
                 ) -> Callable[[BindContext, list[exp.Expression]], exp.Expression]:
    """A look-up in catalog view ``sys.<view>``: ``result`` of the row whose ``key`` equals
    the argument (names compared case-insensitively), through the view's own SQL — so the
    built-in principals and types it lists are found too."""
    def build(binder: BindContext, args: list[exp.Expression]) -> exp.Expression:
        _arity(view, args, lo, 1)
        source = binder.resolve(("", "sys", view, ""))
        columns = sqlglot.select(exp.alias_(exp.column(result), "tsqlb_m_r"),
                                 exp.alias_(exp.column(key), "tsqlb_m_k")).from_(
            exp.Subquery(this=source.query(binder.dialect),
                         alias=exp.TableAlias(this=exp.Identifier(this="tsqlb_v"))))
        left: exp.Expression = exp.column("tsqlb_m_k", table="tsqlb_m")
        right = args[0]
        if by_name:
            left, right = exp.Lower(this=left), exp.Lower(this=right)
        query = sqlglot.select(exp.column("tsqlb_m_r", table="tsqlb_m")).from_(
            exp.Subquery(this=columns, alias=exp.TableAlias(this=exp.Identifier(this="tsqlb_m")))
        ).where(exp.EQ(this=left, expression=right))
        return exp.Subquery(this=query)
    return build


def _type_id(binder: BindContext, args: list[exp.Expression]) -> exp.Expression:
    """TYPE_ID of a column: the ``sys.types`` row (metadata visibility applied by the view)
    named ``schema.name``, or, unqualified, a built-in type or one in dbo — as the
    interpreter's TYPE_ID resolves it (engine/typeids.py)."""
    _arity("TYPE_ID", args, 1, 1)
    types = binder.resolve(("", "sys", "types", "")).query(binder.dialect)
    schemas = binder.resolve(("", "sys", "schemas", "")).query(binder.dialect)
    name = exp.column("name", table="tsqlb_t")
    qualified = exp.Lower(this=exp.DPipe(this=exp.DPipe(
        this=exp.column("name", table="tsqlb_s"), expression=exp.Literal.string(".")),
        expression=name.copy()))
    keys = sqlglot.select(
        exp.alias_(exp.column("user_type_id", table="tsqlb_t"), "tsqlb_m_r"),
        exp.alias_(exp.Lower(this=name), "tsqlb_m_k"),
        exp.alias_(qualified, "tsqlb_m_q"),
        exp.alias_(exp.column("name", table="tsqlb_s"), "tsqlb_m_s"),
    ).from_(exp.Subquery(this=types, alias=exp.TableAlias(this=exp.Identifier(this="tsqlb_t")))
            ).join(exp.Subquery(this=schemas,
                                alias=exp.TableAlias(this=exp.Identifier(this="tsqlb_s"))),
                   on=exp.EQ(this=exp.column("schema_id", table="tsqlb_t"),
                             expression=exp.column("schema_id", table="tsqlb_s")))
    wanted = exp.Lower(this=args[0])
    unqualified = exp.and_(
        exp.EQ(this=exp.column("tsqlb_m_k", table="tsqlb_m"), expression=wanted),
        exp.In(this=exp.column("tsqlb_m_s", table="tsqlb_m"),
               expressions=[exp.Literal.string("sys"), exp.Literal.string("dbo")]))
    query = sqlglot.select(exp.column("tsqlb_m_r", table="tsqlb_m")).from_(
        exp.Subquery(this=keys, alias=exp.TableAlias(this=exp.Identifier(this="tsqlb_m")))
    ).where(exp.or_(exp.EQ(this=exp.column("tsqlb_m_q", table="tsqlb_m"),
                           expression=wanted.copy()), unqualified)
            ).order_by(exp.column("tsqlb_m_r", table="tsqlb_m")).limit(1)
    return exp.Subquery(this=query)


def _fix_constant(binder: BindContext, node: exp.Expression, at: int) -> None:
    """Write argument ``at`` of a literal-rows call (its property or table name), when known
    before the query runs (a variable), as a literal into the statement's private tree."""
    args = _arguments(node)
    if len(args) <= at:
        return
    values = constant_args(binder, [args[at]])
    if values is not None:
        value = values[0][0]
        args[at].replace(exp.Null() if value is None else exp.Literal.string(str(value)))


def _constant_text(binder: BindContext, arg: exp.Expression, what: str) -> str | None:
    """The value of a property-name argument, which a per-row call needs constant."""
    values = constant_args(binder, [arg])
    if values is None:
        raise not_supported(f"{what}() with a property name that is not a constant")
    value = values[0][0]
    return None if value is None else str(value)


def _as_int(key: exp.Expression) -> exp.Expression:
    # PostgreSQL takes an untyped NULL (a derived table's NULL column) as text
    return exp.Cast(this=key, to=exp.DataType.build("int"))


def _keyed_rows(binder: BindContext, rows: list[tuple[Any, Any]], key: exp.Expression,
                spec: str) -> exp.Expression:
    """``(SELECT v FROM (<rows>) WHERE k = key)``: a value per row computed in Python."""
    if not rows:
        return exp.Null()
    text = literal_rows([("k", "int"), ("v", spec)], rows, binder.conn.backend)
    source = sqlglot.parse_one(text, read=binder.dialect)
    query = sqlglot.select(exp.column("v", table="tsqlb_m")).from_(
        exp.Subquery(this=source, alias=exp.TableAlias(this=exp.Identifier(this="tsqlb_m")))
    ).where(exp.EQ(this=exp.column("k", table="tsqlb_m"), expression=_as_int(key)))
    return exp.Subquery(this=query)


def _object_property(ex: bool) -> Callable[[BindContext, list[exp.Expression]], exp.Expression]:
    """OBJECTPROPERTY(EX)(object_id column, 'property'): the property of every object the
    session sees, computed by the interpreter's own rule (engine/objprops.py)."""
    name = "OBJECTPROPERTYEX" if ex else "OBJECTPROPERTY"

    def build(binder: BindContext, args: list[exp.Expression]) -> exp.Expression:
        _arity(name, args, 2, 2)
        prop = _constant_text(binder, args[1], name)
        rows = objprops.object_properties(binder.conn, binder.ctx.session_id, binder.ctx.db_id,
                                          prop, ex=ex)
        spec = "nvarchar(128)" if ex and (prop or "").strip().lower() == "basetype" else "int"
        return _keyed_rows(binder, rows, args[0], spec)
    return build


def _column_property(binder: BindContext, args: list[exp.Expression]) -> exp.Expression:
    """COLUMNPROPERTY(id, column, 'property') per row: a CASE over the visible columns."""
    _arity("COLUMNPROPERTY", args, 3, 3)
    prop = _constant_text(binder, args[2], "COLUMNPROPERTY")
    rows = objprops.column_properties(binder.conn, binder.ctx.session_id, binder.ctx.db_id,
                                      prop, describer(binder.resolve, binder.conn,
                                                              binder.ctx.db_id))
    return _keyed_pairs(binder, rows, args[0], args[1])


def _keyed_pairs(binder: BindContext, rows: list[tuple[int, str, Any]], key: exp.Expression,
                 column: exp.Expression) -> exp.Expression:
    """``(SELECT v FROM (<rows>) WHERE k = key AND n = LOWER(column))``."""
    if not rows:
        return exp.Null()
    text = literal_rows([("k", "int"), ("n", "nvarchar(128)"), ("v", "int")], rows,
                        binder.conn.backend)
    source = sqlglot.parse_one(text, read=binder.dialect)
    query = sqlglot.select(exp.column("v", table="tsqlb_m")).from_(
        exp.Subquery(this=source, alias=exp.TableAlias(this=exp.Identifier(this="tsqlb_m")))
    ).where(exp.and_(exp.EQ(this=exp.column("k", table="tsqlb_m"), expression=_as_int(key)),
                     exp.EQ(this=exp.column("n", table="tsqlb_m"),
                            expression=exp.Lower(this=column))))
    return exp.Subquery(this=query)


def _col_length(binder: BindContext, args: list[exp.Expression]) -> exp.Expression:
    """COL_LENGTH('table', column) per row: the table named by a constant, its columns'
    lengths as literal rows."""
    _arity("COL_LENGTH", args, 2, 2)
    table = _constant_text(binder, args[0], "COL_LENGTH")
    bridge = bridge_of(binder.conn.store)
    if table is None or bridge is None:
        return exp.Null()
    object_id, _spec = bridge.session_value(binder.ctx.session_id, "object_id",
                                            [(table, "nvarchar(776)")])
    rows = [r for r in objprops.column_properties(binder.conn, binder.ctx.session_id,
                                                  binder.ctx.db_id, None,
                                                  describer(binder.resolve, binder.conn,
                                                            binder.ctx.db_id))
            if r[0] == object_id]
    return _keyed_pairs(binder, rows, exp.Literal.number(object_id or 0), args[1])


PER_ROW: dict[str, Callable[[BindContext, list[exp.Expression]], exp.Expression]] = {
    "object_name": _object_name, "object_schema_name": _object_schema_name,
    "schema_name": _schema_name, "schema_id": _schema_id, "col_name": _col_name,
    "user_name": _view_lookup("database_principals", "name", "principal_id", False),
    "user_id": _view_lookup("database_principals", "principal_id", "name", True),
    "database_principal_id": _view_lookup("database_principals", "principal_id", "name",
                                          True),
    "suser_name": _view_lookup("server_principals", "name", "principal_id", False),
    "suser_sname": _view_lookup("server_principals", "name", "sid", False),
    "suser_id": _view_lookup("server_principals", "principal_id", "name", True),
    "type_name": _view_lookup("types", "name", "user_type_id", False),
    "type_id": _type_id,
    "cert_id": _view_lookup("certificates", "certificate_id", "name", True),
    # of a sql_variant column: its stored header (variantcols.py)
    "sql_variant_property": lambda _binder, args: property_call(args),
    "objectproperty": _object_property(False), "objectpropertyex": _object_property(True),
    "columnproperty": _column_property, "col_length": _col_length,
}
# Per-row functions whose SQL carries the catalog's rows as literals.
# Per-row functions whose SQL carries the catalog's rows as literals, and which argument
# (the property or table name) must be known before the query runs.
_LITERAL_PER_ROW = {"objectproperty": 1, "objectpropertyex": 1, "columnproperty": 2,
                    "col_length": 0}
_INT_RESULTS = frozenset({"objectproperty", "columnproperty", "col_length", "schema_id", "type_id", "user_id", "database_principal_id",
                          "suser_id", "cert_id"})
