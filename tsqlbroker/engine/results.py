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

    def __post_init__(self) -> None:
        if not self.types:
            self.types = [None] * len(self.columns)
