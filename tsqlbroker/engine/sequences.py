"""Sequence objects: ``CREATE / ALTER / DROP SEQUENCE``, ``NEXT VALUE FOR`` and
``sp_sequence_get_range``.

A sequence is a catalog object of type ``SO`` with its state in ``tsqlb_sequences``: the
options, ``current_value`` (as ``sys.sequences`` shows it), ``next_value`` (what the next
``NEXT VALUE FOR`` returns; NULL once a sequence without CYCLE is exhausted) and
``last_used_value``. ``NEXT VALUE FOR`` inside a query is the backend function
``tsqlb_nextval(object_id)`` — Python on SQLite (backends/sqlite/functions.py), PL/pgSQL on
PostgreSQL (``pgfuncs.py``) — so every row gets its own value; the
interpreter's expressions call :func:`next_values`. Values are kept as bigint (a decimal
sequence's range is limited to bigint's; docs/decisions.md).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from sqlalchemy import (
    BigInteger,
    Boolean,
    Column,
    Integer,
    MetaData,
    String,
    Table,
    cast,
    false,
    literal,
    select,
)

from ..errors import BindError, tsql_error
from ..storage.sequence_state import advance
from ..storage.store import Store, StoreConnection
from ..values.types import parse_spec
from .catalog import OBJECT_COLUMNS, Catalog, ObjectRow
from .context import ExecContext

_BIGINT = (-(2 ** 63), 2 ** 63 - 1)
_RANGES = {"tinyint": (0, 255), "smallint": (-(2 ** 15), 2 ** 15 - 1),
           "int": (-(2 ** 31), 2 ** 31 - 1), "bigint": _BIGINT}


def sequences_table(metadata: MetaData) -> Table:
    """The ``tsqlb_sequences`` table of ``metadata`` (defined once)."""
    if "tsqlb_sequences" in metadata.tables:
        return metadata.tables["tsqlb_sequences"]
    return Table(
        "tsqlb_sequences", metadata,
        Column("object_id", Integer, primary_key=True, autoincrement=False),
        Column("name", String(128), nullable=False),
        Column("type_spec", String(64), nullable=False),
        Column("system_type_id", Integer, nullable=False),
        Column("precision", Integer, nullable=False),
        Column("start_value", BigInteger, nullable=False),
        Column("increment", BigInteger, nullable=False),
        Column("minimum_value", BigInteger, nullable=False),
        Column("maximum_value", BigInteger, nullable=False),
        Column("is_cycling", Boolean, nullable=False),
        Column("cache_size", Integer),
        Column("is_cached", Boolean, nullable=False),
        Column("current_value", BigInteger, nullable=False),
        Column("next_value", BigInteger),
        Column("last_used_value", BigInteger),
    )


@dataclass
class SequenceOptions:
    """The options of CREATE / ALTER SEQUENCE as written (None: not given)."""

    type_spec: str | None = None
    start: int | None = None
    restart: bool = False
    restart_with: int | None = None
    increment: int | None = None
    minimum: int | None = None
    no_minimum: bool = False
    maximum: int | None = None
    no_maximum: bool = False
    cycle: bool | None = None
    cache: bool | None = None
    cache_size: int | None = None


def _type_range(conn_name: str, spec: str) -> tuple[int, int]:
    t = parse_spec(spec)
    if t.name in _RANGES:
        return _RANGES[t.name]
    if t.name in ("decimal", "numeric") and t.scale == 0:
        top = 10 ** (t.precision or 18) - 1
        return max(-top, _BIGINT[0]), min(top, _BIGINT[1])
    raise tsql_error(11702, conn_name)


class Sequences:
    """The sequences of one store (obtain with :meth:`get`)."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self.t = sequences_table(store.metadata)
        self._ready = False

    @classmethod
    def get(cls, store: Store) -> Sequences:
        """The one :class:`Sequences` of ``store``."""
        found: Sequences = store.extension("sequences", cls)
        return found

    def ensure(self, conn: StoreConnection) -> None:
        """Create the table unless it exists (PostgreSQL's ``tsqlb_nextval`` is one of the
        engine's functions, ``pgfuncs.py``)."""
        if self._ready:
            return
        catalog = Catalog.get(self.store)
        committed = catalog.create_tables(conn, [self.t])
        self._ready = committed

    # -- DDL ----------------------------------------------------------------------------------
    def create(self, conn: StoreConnection, db_id: int, schema: str | None, name: str,
               opts: SequenceOptions) -> int:
        """``CREATE SEQUENCE``: Msg 2714 when the name is taken, 117xx for bad options."""
        self.ensure(conn)
        if opts.restart:
            raise tsql_error(11709)
        spec = (opts.type_spec or "bigint").lower()
        values = self._validated(name, spec, opts, None)
        catalog = Catalog.get(self.store)
        oid = catalog.create_object(conn, db_id, schema, name, "SO",
                                    detail=json.dumps({"type": spec}))
        t = parse_spec(spec)
        type_id, precision = _TYPE_IDS[t.name]
        conn.execute(self.t.insert().values(
            object_id=oid, name=name, type_spec=spec, system_type_id=type_id,
            precision=t.precision or precision if t.name in ("decimal", "numeric")
            else precision, **values))
        return oid

    def alter(self, conn: StoreConnection, obj: ObjectRow, opts: SequenceOptions) -> None:
        """``ALTER SEQUENCE``: changes the options given; RESTART [WITH n] sets the next
        value (to the start value when no n)."""
        self.ensure(conn)
        row = self._row(conn, obj.object_id)
        values = self._validated(obj.name, row["type_spec"], opts, row)
        conn.write()
        conn.execute(self.t.update().where(self.t.c.object_id == obj.object_id)
                     .values(**values))
        Catalog.get(self.store).update_object(conn, obj.object_id)

    def _validated(self, name: str, spec: str, opts: SequenceOptions,
                   old: Any) -> dict[str, Any]:
        lo, hi = _type_range(name, spec)
        for arg, given in (("START WITH", opts.start), ("RESTART WITH", opts.restart_with),
                           ("INCREMENT BY", opts.increment), ("MINVALUE", opts.minimum),
                           ("MAXVALUE", opts.maximum)):
            if given is not None and not lo <= given <= hi and not (
                    arg == "INCREMENT BY" and -hi <= given <= hi):
                raise tsql_error(11708, arg)
        inc = opts.increment if opts.increment is not None else (
            old["increment"] if old is not None else 1)
        if inc == 0:
            raise tsql_error(11700, name)
        minimum = lo if opts.no_minimum else opts.minimum if opts.minimum is not None else (
            old["minimum_value"] if old is not None else lo)
        maximum = hi if opts.no_maximum else opts.maximum if opts.maximum is not None else (
            old["maximum_value"] if old is not None else hi)
        if minimum >= maximum:
            raise tsql_error(11705, name)
        if opts.cache_size is not None and opts.cache_size <= 0:
            raise tsql_error(11706, name)
        values: dict[str, Any] = {"increment": inc, "minimum_value": minimum,
                                  "maximum_value": maximum}
        if old is None:
            start = opts.start if opts.start is not None else (minimum if inc > 0
                                                               else maximum)
            if not minimum <= start <= maximum:
                raise tsql_error(11703, name)
            values.update(start_value=start, current_value=start, next_value=start,
                          last_used_value=None, is_cycling=bool(opts.cycle),
                          is_cached=opts.cache is not False,
                          cache_size=opts.cache_size)
            return values
        if opts.start is not None:
            raise tsql_error(11710, name)
        if opts.cycle is not None:
            values["is_cycling"] = opts.cycle
        if opts.cache is not None:
            values["is_cached"] = opts.cache
            values["cache_size"] = opts.cache_size if opts.cache else None
        if opts.restart:
            restart = opts.restart_with if opts.restart_with is not None else \
                old["start_value"]
            if not minimum <= restart <= maximum:
                raise tsql_error(11703, name)
            values.update(current_value=restart, next_value=restart)
            if opts.restart_with is not None:
                values["start_value"] = restart
        elif not minimum <= old["current_value"] <= maximum:
            raise tsql_error(11704, str(old["current_value"]), name)
        return values

    def drop(self, conn: StoreConnection, object_id: int) -> None:
        """``DROP SEQUENCE``: the object and its state."""
        self.ensure(conn)
        conn.write()
        conn.execute(self.t.delete().where(self.t.c.object_id == object_id))
        Catalog.get(self.store).drop_object(conn, object_id)

    # -- values -------------------------------------------------------------------------------
    def _row(self, conn: StoreConnection, object_id: int) -> Any:
        row = conn.execute(select(self.t).where(self.t.c.object_id == object_id)
                           ).mappings().first()
        if row is None:
            raise tsql_error(208, str(object_id), cls=BindError)
        return row

    def next_values(self, conn: StoreConnection, object_id: int, count: int = 1
                    ) -> tuple[int, int, int]:
        """Hand out ``count`` values (``count`` 1: ``NEXT VALUE FOR``; more:
        ``sp_sequence_get_range``): ``(first, last, cycles)`` — Msg 11728 when a sequence
        without CYCLE runs out (nothing is handed out then)."""
        self.ensure(conn)
        conn.write()
        row = self._row(conn, object_id)
        first, last, cycles, following = advance(row, count)
        conn.execute(self.t.update().where(self.t.c.object_id == object_id).values(
            current_value=last, last_used_value=last, next_value=following))
        return first, last, cycles

    def describe(self, conn: StoreConnection, object_id: int) -> dict[str, Any]:
        """The sequence's state row (``sys.sequences``, ``sp_sequence_get_range``)."""
        self.ensure(conn)
        return dict(self._row(conn, object_id))


# system_type_id and precision of the types a sequence may have (sys.sequences).
_TYPE_IDS = {"tinyint": (48, 3), "smallint": (52, 5), "int": (56, 10), "bigint": (127, 19),
             "decimal": (106, 18), "numeric": (108, 18)}
SEQUENCE_COLUMNS: list[tuple[str, str | None]] = [
    *OBJECT_COLUMNS, ("start_value", "bigint"),
    ("increment", "bigint"), ("minimum_value", "bigint"),
    ("maximum_value", "bigint"), ("is_cycling", "bit"), ("is_cached", "bit"),
    ("cache_size", "int"), ("system_type_id", "tinyint"), ("user_type_id", "int"),
    ("precision", "tinyint"), ("scale", "tinyint"), ("current_value", "bigint"),
    ("is_exhausted", "bit"), ("last_used_value", "bigint")]


def sequences_query(ctx: ExecContext, db_id: int) -> Any:
    """``sys.sequences`` of database ``db_id`` (columns :data:`SEQUENCE_COLUMNS`)."""
    catalog = Catalog.get(ctx.conn.store)
    seqs = Sequences.get(ctx.conn.store)
    seqs.ensure(ctx.conn)
    o, q = catalog.t.objects, seqs.t
    return select(
        o.c.name.label("name"), o.c.object_id.label("object_id"),
        cast(literal(None), Integer).label("principal_id"), o.c.schema_id.label("schema_id"),
        literal(0).label("parent_object_id"), literal("SO").label("type"),
        literal("SEQUENCE_OBJECT").label("type_desc"), o.c.create_date.label("create_date"),
        o.c.modify_date.label("modify_date"), false().label("is_ms_shipped"),
        false().label("is_published"), false().label("is_schema_published"),
        q.c.start_value.label("start_value"), q.c.increment.label("increment"),
        q.c.minimum_value.label("minimum_value"), q.c.maximum_value.label("maximum_value"),
        q.c.is_cycling.label("is_cycling"), q.c.is_cached.label("is_cached"),
        q.c.cache_size.label("cache_size"), q.c.system_type_id.label("system_type_id"),
        q.c.system_type_id.label("user_type_id"), q.c.precision.label("precision"),
        literal(0).label("scale"), q.c.current_value.label("current_value"),
        q.c.next_value.is_(None).label("is_exhausted"),
        q.c.last_used_value.label("last_used_value"),
    ).join_from(o, q, q.c.object_id == o.c.object_id).where(
        o.c.database_id == db_id, o.c.type == "SO")
