"""``NEXT VALUE FOR`` inside queries, for the transpiler's Binder: each use becomes the
backend function ``tsqlb_nextval(object_id)`` of its sequence (``sequences.py``). Apart from
``sequences.py`` so that the sequence catalog loads without sqlglot."""

from __future__ import annotations

import json

from sqlglot import exp

from ..errors import BindError, tsql_error
from .catalog import Catalog
from .sequences import Sequences
from .transpiler.interface import BindContext


def _sequence_key(node: exp.NextValueFor) -> tuple[str, str, str]:
    col = node.this
    if isinstance(col, exp.Column):
        return (col.args.get("catalog").name if col.args.get("catalog") else "",
                col.table or "", col.name)
    return ("", "", col.name)


def _written(key: tuple[str, str, str]) -> str:
    return ".".join(p for p in key if p)


def resolve_sequences(binder: BindContext, tree: exp.Expression) -> None:
    """Find the sequence of every ``NEXT VALUE FOR`` in ``tree`` (Msg 208 for none) and
    make the compiled statement depend on it (a recreated sequence recompiles)."""
    nodes = list(tree.find_all(exp.NextValueFor))
    if not nodes:
        return
    ctx = binder.ctx
    catalog = Catalog.get(ctx.conn.store)
    Sequences.get(ctx.conn.store).ensure(ctx.conn)
    for node in nodes:
        key = _sequence_key(node)
        if key in binder.sequences:
            continue
        db_id: int | None = ctx.db_id
        if key[0]:
            db_id = catalog.database_id(ctx.conn, key[0])
        obj = None if db_id is None else catalog.find_object(
            ctx.conn, db_id, key[1] or None, key[2], {"SO"})
        if obj is None:
            raise tsql_error(208, _written(key), cls=BindError)
        spec = json.loads(obj.detail or "{}").get("type", "bigint")
        binder.sequences[key] = (obj.object_id, spec)
        binder.depends_on(("sequence", key, obj.object_id, obj.modify_date))


def sequence_call(binder: BindContext, node: exp.NextValueFor) -> exp.Expression:
    """``NEXT VALUE FOR s`` as the backend's ``tsqlb_nextval(object_id)``."""
    oid, _spec = binder.sequences[_sequence_key(node)]
    return exp.Anonymous(this="tsqlb_nextval", expressions=[exp.Literal.number(oid)])


def sequence_spec(binder: BindContext, node: exp.NextValueFor) -> str | None:
    """The type of ``NEXT VALUE FOR s``: the sequence's."""
    found = binder.sequences.get(_sequence_key(node))
    return None if found is None else str(found[1])
