"""Which permissions a DML / DDL statement of the engine needs (checked by
``interpreter/authorize.py`` with :mod:`access`): SELECT on what it reads, INSERT / UPDATE /
DELETE on its target (with SELECT too when it filters or reads the target), MERGE's actions,
CREATE TABLE / VIEW for what it creates (SELECT … INTO: CREATE TABLE), ALTER for ALTER TABLE /
TRUNCATE / CREATE INDEX, CONTROL for DROP, REFERENCES on the table a FOREIGN KEY names.
Separate from :mod:`access` because it parses with sqlglot, which start-up does not load.

SELECT, UPDATE and REFERENCES can be granted per column, so their needs carry the column
references of the statement (:class:`ColumnRef`): a qualified reference names its table, an
unqualified one the tables of its query scope (then those of the enclosing scopes, for a
correlated reference); :func:`columns_used` binds them once the tables' columns are known.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, replace

from sqlglot import exp

from .parsing import parse_statement

TableKey = tuple[str | None, str | None, str]  # (catalog, schema, name) as written
_SCOPES = (exp.Select, exp.Update, exp.Delete, exp.Merge)


@dataclass(frozen=True)
class ColumnRef:
    """A column a statement names: ``name`` (lower case; ``*`` for every column) and the
    tables it may belong to, innermost query scope first."""

    name: str
    groups: tuple[tuple[TableKey, ...], ...]


@dataclass(frozen=True)
class Need:
    """A permission a statement needs: on an object it names (``name`` set) or on the
    database (a statement permission such as CREATE TABLE)."""

    permission: str
    catalog: str | None = None
    schema: str | None = None
    name: str | None = None
    # What a refusal says: 229 (the permission on the object), 3701 (DROP: "does not exist
    # or you do not have permission", with ``kind``), 1088 (ALTER / TRUNCATE: the same).
    error: int = 229
    kind: str = "table"
    # SELECT / UPDATE / REFERENCES: the column references that may concern this object
    # (None: the object as a whole).
    columns: tuple[ColumnRef, ...] | None = None

    @property
    def key(self) -> TableKey:
        """The object as the statement names it."""
        return (self.catalog, self.schema, self.name or "")


_needs_lock = threading.Lock()
_needs_cache: OrderedDict[str, tuple[Need, ...]] = OrderedDict()
_NEEDS_CACHE_SIZE = 2048


def statement_needs(sql: str) -> tuple[Need, ...]:
    """The permissions the engine statement ``sql`` needs (cached per text)."""
    return _cached(sql, sql, lambda tree: tree)


def view_needs(definition: str) -> tuple[Need, ...]:
    """What the query of a view needs, from its stored ``CREATE`` / ``ALTER VIEW`` text (the
    ownership chain through the view checks them where it breaks); cached per text."""
    def query(tree: exp.Expression) -> exp.Expression | None:
        found = tree.expression if isinstance(tree, exp.Create) else (
            (tree.args.get("actions") or [None])[0])
        return found if isinstance(found, exp.Query) else None
    return _cached("\0view\0" + definition, definition, query)


def _cached(key: str, sql: str,
            part: Callable[[exp.Expression], exp.Expression | None]) -> tuple[Need, ...]:
    """The needs of ``part`` of the parsed ``sql``, kept under ``key``; none when ``sql``
    does not parse (the engine reports the syntax error itself) or ``part`` is None."""
    with _needs_lock:
        hit = _needs_cache.get(key)
    if hit is not None:
        return hit
    try:
        tree = parse_statement(sql).tree
    except Exception:  # noqa: BLE001 — reported by the engine
        return ()
    node = part(tree)
    needs = () if node is None else _merged(_needs(node))
    with _needs_lock:
        _needs_cache[key] = needs
        while len(_needs_cache) > _NEEDS_CACHE_SIZE:
            _needs_cache.popitem(last=False)
    return needs


def columns_used(need: Need, columns_of: Callable[[TableKey], frozenset[str]]) -> set[str]:
    """The columns (lower case, ``*`` for all) of ``need``'s object its statement uses, given
    ``columns_of`` (a table's column names, lower case; empty when it is no table)."""
    here = need.key
    out: set[str] = set()
    for ref in need.columns or ():
        if ref.name == "*":
            if here in ref.groups[0]:
                out.add("*")
            continue
        for group in ref.groups:
            owners = [key for key in group if ref.name in columns_of(key)]
            if owners:
                if here in owners:
                    out.add(ref.name)
                break
    return out


def _merged(needs: list[Need]) -> tuple[Need, ...]:
    """One need per (permission, object, refusal), column references united."""
    out: dict[tuple[object, ...], Need] = {}
    for need in needs:
        k = (need.permission, need.catalog, need.schema, need.name, need.error, need.kind)
        have = out.get(k)
        if have is None:
            out[k] = need
        elif have.columns is not None and need.columns is not None:
            out[k] = replace(have, columns=tuple(dict.fromkeys(have.columns + need.columns)))
        else:
            out[k] = replace(have, columns=None)
    return tuple(out.values())


def _key(table: exp.Table) -> TableKey:
    return (table.catalog or None, table.db or None, table.name)


def _object(table: exp.Table, permission: str, error: int = 229, kind: str = "table",
            columns: tuple[ColumnRef, ...] | None = None) -> Need | None:
    name = table.name
    if not name or name.startswith(("#", "@")) or table.this.args.get("temporary"):
        return None
    return Need(permission, table.catalog or None, table.db or None, name, error, kind,
                columns)


def _target_table(node: exp.Expression | None, aliases: dict[str, exp.Table]
                  ) -> exp.Table | None:
    if isinstance(node, exp.Schema):
        node = node.this
    if not isinstance(node, exp.Table):
        return None
    # UPDATE a … FROM t a: the target is the table the alias names.
    if not node.db and not node.catalog and node.name.lower() in aliases:
        return aliases[node.name.lower()]
    return node


def _references(tree: exp.Expression) -> list[Need]:
    """REFERENCES on the tables (and columns) the FOREIGN KEYs of ``tree`` name."""
    out = []
    for ref in tree.find_all(exp.Reference):
        schema = ref.this
        table = schema.this if isinstance(schema, exp.Schema) else schema
        if not isinstance(table, exp.Table):
            continue
        cols = [i.name.lower() for i in schema.expressions] if isinstance(schema, exp.Schema) \
            else []
        group = ((_key(table),),)
        refs = tuple(ColumnRef(c, group) for c in cols) or (ColumnRef("*", group),)
        if (need := _object(table, "REFERENCES", columns=refs)) is not None:
            out.append(need)
    return out


_XML_METHODS = frozenset({"value", "query", "exist", "nodes", "modify"})


def _dotted(node: exp.Expression) -> list[str] | None:
    """``[db,] schema`` of a function call's qualifier (None: not a plain name)."""
    if isinstance(node, exp.Identifier):
        return [node.name]
    if isinstance(node, exp.Dot) and isinstance(node.expression, exp.Identifier):
        head = _dotted(node.this)
        return None if head is None else [*head, node.expression.name]
    return None


def _function_calls(tree: exp.Expression) -> list[Need]:
    """EXECUTE on the scalar functions a statement calls (``schema.f(…)``), SELECT on the
    table-valued functions it reads from (``FROM [schema.]f(…)``); names that are no such
    object (built-ins, xml methods) are found to be none by the caller's look-up."""
    out = []
    for dot in tree.find_all(exp.Dot):
        call = dot.expression
        if not isinstance(call, exp.Anonymous) or str(call.this).lower() in _XML_METHODS:
            continue
        parts = _dotted(dot.this)
        if parts and len(parts) <= 2:
            catalog = parts[0] if len(parts) == 2 else None
            out.append(Need("EXECUTE", catalog, parts[-1], str(call.this)))
    for table in tree.find_all(exp.Table):
        if isinstance(table.this, exp.Anonymous) and (table.db or "").lower() != "sys":
            out.append(Need("SELECT", table.catalog or None, table.db or None,
                            str(table.this.this)))
    return out


class _Scopes:
    """The query scopes of a statement: each SELECT / UPDATE / DELETE / MERGE with the
    tables it reads from (alias → key; None for a CTE or derived table)."""

    def __init__(self, tree: exp.Expression, ctes: set[str], skip: set[int]) -> None:
        self.sources: dict[int, dict[str, TableKey | None]] = {}
        self.parent: dict[int, int | None] = {}
        for table in tree.find_all(exp.Table, exp.Subquery):
            scope = table.find_ancestor(*_SCOPES)
            if scope is None or id(table) in skip:
                continue
            names = self._scope(scope)
            alias = table.alias.lower()
            if isinstance(table, exp.Subquery):
                if alias:
                    names[alias] = None
                continue
            if not table.name:
                continue
            base = None if table.name.lower() in ctes and not table.db else _key(table)
            names[alias or table.name.lower()] = base

    def _scope(self, scope: exp.Expression) -> dict[str, TableKey | None]:
        key = id(scope)
        if key not in self.sources:
            self.sources[key] = {}
            outer = scope.find_ancestor(*_SCOPES)
            self.parent[key] = None
            if outer is not None:
                self._scope(outer)
                self.parent[key] = id(outer)
        return self.sources[key]

    def chain(self, scope: exp.Expression) -> list[dict[str, TableKey | None]]:
        """The sources of ``scope`` and of its enclosing scopes, innermost first."""
        out = []
        at: int | None = id(scope)
        while at is not None:
            out.append(self.sources.get(at, {}))
            at = self.parent.get(at)
        return out

    def refs(self, tree: exp.Expression, skip: set[int]) -> list[ColumnRef]:
        """Every column reference of ``tree`` (but those in ``skip``) with its candidates."""
        out = []
        for col in tree.find_all(exp.Column, exp.Star):
            if id(col) in skip:
                continue
            scope = col.find_ancestor(*_SCOPES)
            if scope is None:
                continue
            chain = self.chain(scope)
            if isinstance(col, exp.Star):
                # SELECT *: every column of the scope's tables (not COUNT(*), not EXISTS).
                if col.parent is scope and not isinstance(scope.parent, exp.Exists):
                    group = tuple(k for k in chain[0].values() if k is not None)
                    out.append(ColumnRef("*", (group,)))
                continue
            name = "*" if isinstance(col.this, exp.Star) else col.name.lower()
            qualifier = col.table.lower()
            if qualifier:
                for sources in chain:
                    if qualifier in sources:
                        key = sources[qualifier]
                        if key is not None:
                            out.append(ColumnRef(name, ((key,),)))
                        break
                continue
            groups = tuple(g for g in (tuple(k for k in s.values() if k is not None)
                                       for s in chain) if g)
            if groups:
                out.append(ColumnRef(name, groups))
        return out


def _needs(tree: exp.Expression) -> list[Need]:
    if isinstance(tree, exp.Create):
        kind = (tree.args.get("kind") or "").upper()
        if kind in ("TABLE", "VIEW"):
            # What a view's definition reads is checked when the view is used, not now.
            return [Need(f"CREATE {kind}"), *_references(tree)]
        table = tree.this.args.get("table") if isinstance(tree.this, exp.Index) else None
        need = _object(table, "ALTER", 1088) if isinstance(table, exp.Table) else None
        return [need] if need else []
    if isinstance(tree, exp.Drop):
        kind = (tree.args.get("kind") or "TABLE").lower()
        return [n for t in tree.args.get("tables") or [tree.this]
                if isinstance(t, exp.Table) and (n := _object(t, "CONTROL", 3701, kind))]
    if isinstance(tree, (exp.Alter, exp.TruncateTable)):
        subject = tree.this if isinstance(tree, exp.Alter) else \
            (tree.expressions[0] if tree.expressions else None)
        need = _object(subject, "ALTER", 1088) if isinstance(subject, exp.Table) else None
        return ([need] if need else []) + _references(tree)
    ctes = {cte.alias_or_name.lower() for cte in tree.find_all(exp.CTE)}
    tables = [t for t in tree.find_all(exp.Table) if t.name and t.name.lower() not in ctes]
    aliases = {t.alias.lower(): t for t in tables if t.alias}
    out: list[Need] = []
    target: exp.Table | None = None
    written = tree.this if isinstance(tree, (exp.Insert, exp.Update, exp.Delete, exp.Merge)) \
        else None
    skip_tables = {id(written)} if written is not None else set()
    if isinstance(written, exp.Schema):
        skip_tables.add(id(written.this))
    into = tree.args.get("into").this if isinstance(tree, exp.Select) and \
        tree.args.get("into") is not None else None
    if into is not None:
        skip_tables.add(id(into))
    if isinstance(tree, exp.Update) and isinstance(written, exp.Table) and not written.db \
            and written.name.lower() in aliases:
        pass  # UPDATE a … FROM t a: ``a`` names the FROM table, which is the scope's source
    elif isinstance(tree, (exp.Update, exp.Delete, exp.Merge)):
        skip_tables.discard(id(written))  # the target is a source of its own statement
    scopes = _Scopes(tree, ctes, skip_tables)
    set_targets: list[exp.Column] = []
    if isinstance(tree, exp.Update):
        set_targets = [eq.this for eq in tree.expressions
                       if isinstance(eq, exp.EQ) and isinstance(eq.this, exp.Column)]
    reads = scopes.refs(tree, {id(c) for c in set_targets})
    if isinstance(tree, (exp.Insert, exp.Update, exp.Delete)):
        target = _target_table(written, aliases)
        verb = {exp.Insert: "INSERT", exp.Update: "UPDATE", exp.Delete: "DELETE"}[type(tree)]
        cols = None
        if verb == "UPDATE" and target is not None:
            group = ((_key(target),),)
            cols = tuple(ColumnRef(c.name.lower(), group) for c in set_targets)
        if target is not None and (need := _object(target, verb, columns=cols)):
            out.append(need)
            # Reading the target (a WHERE, a SET expression using its columns) needs SELECT.
            if verb != "INSERT":
                used = tuple(r for r in reads if _key(target) in r.groups[0])
                if tree.args.get("where") is not None or used:
                    out.append(replace(need, permission="SELECT", columns=tuple(reads)))
    elif isinstance(tree, exp.Merge):
        target = _target_table(written, aliases)
        verbs = {"INSERT" if isinstance(w.args.get("then"), exp.Insert) else
                 "UPDATE" if isinstance(w.args.get("then"), exp.Update) else "DELETE"
                 for w in tree.find_all(exp.When)}
        if target is not None:
            out.extend(n for v in sorted(verbs) if (n := _object(target, v)))
    out.extend(_function_calls(tree))
    if into is not None:
        out.append(Need("CREATE TABLE"))
        tables = [t for t in tables if t is not into]
    for table in tables:
        if table is target or table is written or (written is not None
                                                   and table.parent is written):
            continue
        need = _object(table, "SELECT", columns=tuple(reads))
        if need is not None and (need.schema or "").lower() not in ("sys",
                                                                    "information_schema"):
            out.append(need)
    return out
