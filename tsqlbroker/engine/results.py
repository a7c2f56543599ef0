"""Result sets: the shape in which rows leave the engine and the interpreter."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass
class ResultSet:
    """Named columns, their type specs (``'int'``, ``'nvarchar(max)'`` … or None when the
    backend computed the value), and the rows as tuples of Python values."""

    columns: list[str]
    types: list[str | None] = field(default_factory=list)
    rows: list[tuple[Any, ...]] = field(default_factory=list)
    # Each row's value type specs where a sql_variant column's values keep their own base
    # types (None: every value is of its column's type).
    row_types: list[tuple[str | None, ...]] | None = None

    def __post_init__(self) -> None:
        if not self.types:
            self.types = [None] * len(self.columns)

    def value_types(self) -> list[tuple[str | None, ...]]:
        """Each row's value type specs: a sql_variant column's value's base type, else the
        column's type."""
        if self.row_types is not None and len(self.row_types) == len(self.rows):
            return self.row_types
        return [tuple(self.types)] * len(self.rows)
