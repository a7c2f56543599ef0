"""Batch read, "observe": a queue (or a broker catalog view) exactly as ``SELECT *`` shows
it, nothing dequeued, read through the engine's own query path.

Partitions are made of whole conversation groups (``sys.transmission_queue``, which has no
group column, of whole conversations), balanced by message count; a group's rows come in
queuing order. A queue read is bounded by the highest queuing order seen when the read was
planned, so messages sent while it runs do not trickle into some partitions and not others.
"""

from __future__ import annotations

import heapq
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from pyspark.sql.datasource import DataSourceReader, Filter, InputPartition

from tsqlbroker.engine.broker.validation import decode_body
from tsqlbroker.errors import TSqlError
from tsqlbroker.values.xml_value import XmlValue

from .columns import row_converter, schema_ddl
from .filters import Condition, Pushdown, where
from .options import SourceOptions
from .stores import quote, run_sql, task_session

_CHUNK = 400        # keys per IN list
_BODY = {"text": "message_body_text", "xml": "message_body_xml"}
_ORDER = {"conversation_group_id": "queuing_order", "conversation_handle":
          "message_sequence_number"}


def _xml(body: bytes) -> str | None:
    try:
        return XmlValue.from_bytes(body).to_string()
    except TSqlError:
        return None          # not XML: the text column of bodyAs=text shows it


_DECODE: dict[str, Callable[[bytes], str | None]] = {"text": decode_body, "xml": _xml}


@dataclass(frozen=True)
class Shape:
    """What a read selects: the object, its columns (name, T-SQL spec) and how it is cut."""

    source: str                                  # T-SQL name, e.g. [dbo].[q]
    columns: tuple[tuple[str, str | None], ...]
    key: str | None                              # partition key column
    body_as: str = "binary"

    @classmethod
    def describe(cls, opts: SourceOptions) -> Shape:
        """Ask the store for the columns of the object the options name."""
        source = opts.source_object()
        with task_session(opts.url, opts.database) as session:
            rs = run_sql(session, f"SELECT * FROM {source} WHERE 1 = 0")
        assert rs is not None
        columns = tuple(zip(rs.columns, rs.types, strict=True))
        names = [c for c, _t in columns]
        key = next((k for k in ("conversation_group_id", "conversation_handle")
                    if k in names), None)
        return cls(source, columns, key, opts.body_as)

    @property
    def order(self) -> str | None:
        """The column ordering a key's rows."""
        names = [c for c, _t in self.columns]
        col = _ORDER.get(self.key or "")
        return col if col in names else None

    def spark_schema(self) -> str:
        """The DDL schema Spark sees (plus the decoded body column when asked for)."""
        cols: list[tuple[str, str | None]] = list(self.columns)
        if self.body_as in _BODY and "message_body" in dict(cols):
            cols.append((_BODY[self.body_as], "nvarchar(max)"))
        return schema_ddl(cols)

    def converter(self) -> Callable[[Sequence[Any]], tuple[Any, ...]]:
        """Engine row → Spark tuple (adding the decoded body)."""
        convert = row_converter([t for _c, t in self.columns])
        names = [c for c, _t in self.columns]
        if self.body_as not in _BODY or "message_body" not in names:
            return convert
        at = names.index("message_body")
        decode = _DECODE[self.body_as]

        def with_body(row: Sequence[Any]) -> tuple[Any, ...]:
            body = row[at]
            return (*convert(row), None if body is None else decode(bytes(body)))
        return with_body


class KeyPartition(InputPartition):
    """Whole groups (or conversations) of a read, as canonical key strings (None: the
    object has no key column, one partition reads it all)."""

    def __init__(self, keys: list[Any] | None, bound: int | None) -> None:
        super().__init__(None if keys is None else len(keys))
        self.keys = keys
        self.bound = bound


def balance(counts: Sequence[tuple[Any, int]], n: int) -> list[list[Any]]:
    """Keys into at most ``n`` lists of similar total count (largest first onto the
    lightest list); each list in key order."""
    heap = [(0, i) for i in range(max(1, n))]
    bins: list[list[Any]] = [[] for _ in heap]
    for key, count in sorted(counts, key=lambda kc: (-kc[1], str(kc[0]))):
        load, i = heapq.heappop(heap)
        bins[i].append(key)
        heapq.heappush(heap, (load + count, i))
    return [sorted(b, key=str) for b in bins if b]


class ObserveReader(DataSourceReader):
    """The batch reader (see the module docstring)."""

    def __init__(self, opts: SourceOptions, shape: Shape) -> None:
        self.opts = opts
        self.shape = shape
        self.conditions: list[Condition] = []

    def pushFilters(self, filters: list[Filter]) -> Iterator[Filter]:
        """Push what the store can evaluate (see :mod:`.filters`)."""
        pd = Pushdown(dict(self.shape.columns))
        remaining = list(pd.push(filters))
        self.conditions = pd.conditions
        yield from remaining

    def partitions(self) -> list[KeyPartition]:
        """Whole groups per partition, about ``numPartitions`` of them."""
        sh = self.shape
        cond, params = where(self.conditions)
        with task_session(self.opts.url, self.opts.database) as session:
            bound = None
            if "queuing_order" in dict(sh.columns):
                rs = run_sql(session, f"SELECT MAX(queuing_order) FROM {sh.source}")
                bound = rs.rows[0][0] if rs is not None and rs.rows else None
            if sh.key is None:
                return [KeyPartition(None, bound)]
            rs = run_sql(session, f"SELECT {quote(sh.key)}, COUNT(*) FROM {sh.source} "
                                  f"WHERE {cond} GROUP BY {quote(sh.key)}", params)
        counts = [(str(k).upper(), int(n)) for k, n in (rs.rows if rs is not None else [])]
        bins = balance(counts, self.opts.partitions)
        return [KeyPartition(b, bound) for b in bins] or [KeyPartition([], bound)]

    def read(self, partition: KeyPartition) -> Iterator[tuple[Any, ...]]:
        """The partition's rows, key by key, in order."""
        conds = list(self.conditions)
        if partition.bound is not None:
            conds.append(Condition("queuing_order <= @bound",
                                   {"@bound": (partition.bound, "bigint")}))
        yield from select_keys(self.opts, self.shape, partition.keys, conds)


def select_keys(opts: SourceOptions, shape: Shape, keys: list[Any] | None,
                conds: list[Condition]) -> Iterator[tuple[Any, ...]]:
    """The rows of ``shape`` meeting ``conds`` with a key among ``keys`` (every row when
    ``shape`` has no key), key by key in order, as Spark tuples."""
    convert = shape.converter()
    order = ", ".join(quote(c) for c in (shape.key, shape.order) if c)
    with task_session(opts.url, opts.database) as session:
        if shape.key is None or keys is None:
            cond, params = where(conds)
            rs = run_sql(session, f"SELECT * FROM {shape.source} WHERE {cond}"
                                  + (f" ORDER BY {order}" if order else ""), params)
            yield from (convert(r) for r in (rs.rows if rs is not None else []))
            return
        for start in range(0, len(keys), _CHUNK):
            chunk = keys[start:start + _CHUNK]
            named = {f"@k{i}": (k, "uniqueidentifier") for i, k in enumerate(chunk)}
            cond, params = where([*conds, Condition(
                f"{quote(shape.key)} IN ({', '.join(named)})", named)])
            rs = run_sql(session, f"SELECT * FROM {shape.source} WHERE {cond} "
                                  f"ORDER BY {order}", params)
            yield from (convert(r) for r in (rs.rows if rs is not None else []))
