"""Which permissions a DML / DDL statement of the engine needs (checked by
``interpreter/authorize.py`` with :mod:`access`): SELECT on what it reads, INSERT / UPDATE /
DELETE on its target (with SELECT too when it filters), MERGE's actions, CREATE TABLE / VIEW
for what it creates (SELECT … INTO: CREATE TABLE), ALTER for ALTER TABLE / TRUNCATE / CREATE
INDEX, CONTROL for DROP. Separate from :mod:`access` because it parses with sqlglot, which
start-up does not load.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from dataclasses import dataclass

from sqlglot import exp

from .parsing import parse_statement


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


_needs_lock = threading.Lock()
_needs_cache: OrderedDict[str, tuple[Need, ...]] = OrderedDict()
_NEEDS_CACHE_SIZE = 2048


def statement_needs(sql: str) -> tuple[Need, ...]:
    """The permissions the engine statement ``sql`` needs (cached per text)."""
    with _needs_lock:
        hit = _needs_cache.get(sql)
    if hit is not None:
        return hit
    try:
        tree = parse_statement(sql).tree
    except Exception:  # noqa: BLE001 — the engine reports the syntax error itself
        return ()
    needs = tuple(dict.fromkeys(_needs(tree)))
    with _needs_lock:
        _needs_cache[sql] = needs
        while len(_needs_cache) > _NEEDS_CACHE_SIZE:
            _needs_cache.popitem(last=False)
    return needs


def _object(table: exp.Table, permission: str, error: int = 229, kind: str = "table"
            ) -> Need | None:
    name = table.name
    if not name or name.startswith(("#", "@")) or table.this.args.get("temporary"):
        return None
    return Need(permission, table.catalog or None, table.db or None, name, error, kind)


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


def _needs(tree: exp.Expression) -> list[Need]:
    if isinstance(tree, exp.Create):
        kind = (tree.args.get("kind") or "").upper()
        if kind in ("TABLE", "VIEW"):
            # What the definition reads is checked when the view is used, not now.
            return [Need(f"CREATE {kind}")]
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
        return [need] if need else []
    ctes = {cte.alias_or_name.lower() for cte in tree.find_all(exp.CTE)}
    tables = [t for t in tree.find_all(exp.Table) if t.name and t.name.lower() not in ctes]
    aliases = {t.alias.lower(): t for t in tables if t.alias}
    out: list[Need] = []
    target: exp.Table | None = None
    if isinstance(tree, (exp.Insert, exp.Update, exp.Delete)):
        target = _target_table(tree.this, aliases)
        verb = {exp.Insert: "INSERT", exp.Update: "UPDATE", exp.Delete: "DELETE"}[type(tree)]
        if target is not None and (need := _object(target, verb)):
            out.append(need)
            if verb != "INSERT" and tree.args.get("where") is not None:
                out.append(Need("SELECT", need.catalog, need.schema, need.name))
    elif isinstance(tree, exp.Merge):
        target = _target_table(tree.this, aliases)
        verbs = {"INSERT" if isinstance(w.args.get("then"), exp.Insert) else
                 "UPDATE" if isinstance(w.args.get("then"), exp.Update) else "DELETE"
                 for w in tree.find_all(exp.When)}
        if target is not None:
            out.extend(n for v in sorted(verbs) if (n := _object(target, v)))
    if isinstance(tree, exp.Select) and tree.args.get("into") is not None:
        out.append(Need("CREATE TABLE"))
        into = tree.args["into"].this
        tables = [t for t in tables if t is not into]
    written = tree.this if isinstance(tree, (exp.Insert, exp.Update, exp.Delete, exp.Merge)) \
        else None
    for table in tables:
        if table is target or table is written or (written is not None
                                                   and table.parent is written):
            continue
        need = _object(table, "SELECT")
        if need is not None and (need.schema or "").lower() not in ("sys",
                                                                    "information_schema"):
            out.append(need)
    return out
