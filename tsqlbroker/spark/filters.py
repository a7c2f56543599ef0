"""Spark filters pushed down into the T-SQL a read runs, as bound parameters.

A pushed filter must select exactly what Spark would, or be handed back to Spark to apply
again. Integers compare alike in both, so they are pushed fully. T-SQL compares strings
under a case-insensitive collation and uniqueidentifiers whatever their spelling, where Spark
compares the characters: such a filter is pushed (the store returns a superset) and handed
back too — except a uniqueidentifier spelt as this source shows it (upper case), which both
sides match exactly. Anything else stays with Spark.
"""

from __future__ import annotations

import itertools
import uuid
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from pyspark.sql.datasource import (
    EqualNullSafe,
    EqualTo,
    Filter,
    GreaterThan,
    GreaterThanOrEqual,
    In,
    IsNotNull,
    IsNull,
    LessThan,
    LessThanOrEqual,
)

from .stores import quote

_COMPARE = {EqualTo: "=", GreaterThan: ">", GreaterThanOrEqual: ">=", LessThan: "<",
            LessThanOrEqual: "<="}
_INTEGERS = ("bigint", "int", "smallint", "tinyint")
_STRINGS = ("nvarchar", "varchar", "nchar", "char", "sysname")


@dataclass(frozen=True)
class Condition:
    """One T-SQL condition with its bound parameters."""

    sql: str
    params: dict[str, tuple[Any, str]] = field(default_factory=dict)


def where(conditions: Iterable[Condition]) -> tuple[str, dict[str, tuple[Any, str]]]:
    """`` AND ``-joined conditions (``1 = 1`` for none) and their parameters."""
    conds = list(conditions)
    params: dict[str, tuple[Any, str]] = {}
    for c in conds:
        params.update(c.params)
    return (" AND ".join(c.sql for c in conds) or "1 = 1"), params


def _kind(spec: str | None) -> str | None:
    base = (spec or "").split("(", 1)[0].lower()
    if base in _INTEGERS:
        return "int"
    if base == "uniqueidentifier":
        return "uuid"
    if base in _STRINGS:
        return "str"
    return None


def _param(kind: str, spec: str, value: Any) -> tuple[tuple[Any, str], bool] | None:
    """(parameter, exact) for ``value`` compared with a column of ``kind``; None when the
    comparison cannot go to the store."""
    if kind == "int":
        if isinstance(value, int) and not isinstance(value, bool):
            return (value, "bigint"), True
        return None
    if not isinstance(value, str):
        return None
    if kind == "uuid":
        try:
            u = uuid.UUID(value)
        except ValueError:
            return None
        return (u, "uniqueidentifier"), str(u).upper() == value
    return (value, spec), False


class Pushdown:
    """Decides, filter by filter, what goes into the store's WHERE."""

    def __init__(self, columns: Mapping[str, str | None], prefix: str = "@f") -> None:
        self.columns = {name.lower(): (name, spec) for name, spec in columns.items()}
        self.prefix = prefix
        self.conditions: list[Condition] = []
        self._names = itertools.count()

    def _name(self) -> str:
        return f"{self.prefix}{next(self._names)}"

    def push(self, filters: Iterable[Filter]) -> Iterator[Filter]:
        """Record what can be pushed; yield what Spark must (still) evaluate."""
        for f in filters:
            exact = self._push_one(f)
            if exact is not True:
                yield f

    def _push_one(self, f: Filter) -> bool | None:
        """True: pushed exactly; False: pushed as a superset; None: not pushed."""
        path = getattr(f, "attribute", ())
        if len(path) != 1 or path[0].lower() not in self.columns:
            return None
        name, spec = self.columns[path[0].lower()]
        kind = _kind(spec)
        col = quote(name)
        if isinstance(f, IsNull | IsNotNull):
            self.conditions.append(Condition(
                f"{col} IS {'NOT ' if isinstance(f, IsNotNull) else ''}NULL"))
            return True
        if kind is None:
            return None
        if isinstance(f, EqualNullSafe):
            if f.value is None:
                return None
            f_op, value = "=", f.value
        elif type(f) in _COMPARE:
            f_op, value = _COMPARE[type(f)], f.value
        elif isinstance(f, In):
            return self._push_in(col, kind, spec or "", f.value)
        else:
            return None
        if kind != "int" and f_op != "=":
            return None      # collations order strings differently from Spark
        got = _param(kind, spec or "", value)
        if got is None:
            return None
        param, exact = got
        name = self._name()
        self.conditions.append(Condition(f"{col} {f_op} {name}", {name: param}))
        return exact

    def _push_in(self, col: str, kind: str, spec: str, values: Any) -> bool | None:
        got = [_param(kind, spec, v) for v in values]
        if not got or any(g is None for g in got):
            return None
        params = {self._name(): g[0] for g in got if g is not None}
        self.conditions.append(Condition(f"{col} IN ({', '.join(params)})", params))
        return all(g[1] for g in got if g is not None)
