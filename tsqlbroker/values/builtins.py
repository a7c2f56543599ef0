"""The library of pure built-in scalar functions the compiler binds by name.

``lookup(name)`` gives a :class:`Builtin`; ``Builtin.bind(arg_types, const_args)`` returns the
result type and a callable taking the evaluated arguments positionally. ``const_args`` holds
the values known at compile time (None, or :data:`NOTCONST`, when not known): DATEADD's
``day`` arrives there as the text ``'day'`` and the callable is specialised for it.

Session functions (DB_ID, OBJECT_ID, ERROR_NUMBER, @@SPID …) and the short-circuit forms
IIF, COALESCE and ISNULL are compiled by the compiler itself (function_calls.py); the ISNULL and
COALESCE here are the plain, all-arguments-evaluated versions for callers without their own.

The families live in their own modules — :mod:`strings`, :mod:`mathfunctions`,
:mod:`datefunctions`, :mod:`jsonvalue` — each with a table of ``name → (min args, max args,
binder, deterministic)``; this module holds the registry, the miscellany (NULLIF, CHOOSE,
NEWID, FORMAT, STR, FORMATMESSAGE, ISNUMERIC) and the error handling common to all: wrong
argument counts (Msg 174/189) and argument types a function does not take (Msg 8116).
"""

from __future__ import annotations

import os
import threading
import time as _time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from tsqlbroker.errors import MESSAGES, BindError, format_message, tsql_error
from tsqlbroker.values.convert import converter
from tsqlbroker.values.date_builtins import DATE_FUNCTIONS
from tsqlbroker.values.format_builtins import format_value, str_function
from tsqlbroker.values.json_builtins import JSON_FUNCTIONS
from tsqlbroker.values.math_builtins import MATH_FUNCTIONS, num_arg
from tsqlbroker.values.message_format import format_raiserror
from tsqlbroker.values.operators import comparison
from tsqlbroker.values.precedence import common_type
from tsqlbroker.values.string_builtins import STRING_FUNCTIONS, as_int, as_string
from tsqlbroker.values.types import (
    FLOAT,
    INT,
    UNIQUEIDENTIFIER,
    ArgumentTypeError,
    SqlType,
    nvarchar,
    varchar,
)

Bound = tuple[SqlType, Callable[..., Any]]
Types = list[SqlType]
Consts = list[Any]


class _NotConst:
    """Marks an argument whose value is not known at compile time."""

    def __repr__(self) -> str:
        return "NOTCONST"


NOTCONST: Any = _NotConst()


@dataclass(frozen=True)
class Builtin:
    """A built-in function: its arity and how to bind it to argument types."""

    name: str
    min_args: int
    max_args: int
    binder: Callable[[Types, Consts], Bound] = field(repr=False)
    deterministic: bool = True

    def bind(self, arg_types: list[SqlType], const_args: list[Any]) -> Bound:
        """Result type and callable for these argument types (Msg 174/189 on bad arity)."""
        n = len(arg_types)
        if not self.min_args <= n <= self.max_args:
            if self.min_args == self.max_args:
                raise tsql_error(174, self.name, self.min_args, cls=BindError)
            raise tsql_error(189, self.name, self.min_args, self.max_args, cls=BindError)
        consts = list(const_args) + [NOTCONST] * (n - len(const_args))
        try:
            return self.binder(list(arg_types), consts)
        except ArgumentTypeError as e:
            raise tsql_error(8116, e.type_name, e.position, self.name, cls=BindError) from None


# -------------------------------------------------------------------------------- misc
_NUMERIC_TEXT = __import__("re").compile(
    r"^\s*[+-]?\s*[$€£¥]?\s*[+-]?\s*(\d[\d,]*\.?\d*|\.\d*|)(?:[eEdD][+-]?\d+)?\s*$")


def isnumeric(text: str) -> int:
    """ISNUMERIC's lenient test: signs, currency symbols, commas, exponents all pass."""
    if not text.strip():
        return 0
    m = _NUMERIC_TEXT.match(text)
    if not m:
        return 0
    body = text.strip()
    if any(c in body for c in "eEdD") and not m.group(1):
        return 0
    return 1


def _bind_isnumeric(types: Types, consts: Consts) -> Bound:
    t = types[0]
    if t.is_numeric:
        return INT, lambda v: 0 if v is None else 1
    if not t.is_string:
        return INT, lambda v: 0
    return INT, lambda v: 0 if v is None else isnumeric(v)


def _bind_nullif(types: Types, consts: Consts) -> Bound:
    rt = types[0] if not types[0].is_null else INT
    eq = comparison("=", types[0], types[1])
    return rt, lambda a, b: None if a is None or eq(a, b) else a


def _bind_isnull(types: Types, consts: Consts) -> Bound:
    rt = types[0] if not types[0].is_null else (types[1] if not types[1].is_null else INT)
    cb = converter(types[1], rt, explicit=False) if types[1] != rt else (lambda v: v)
    return rt, lambda a, b: cb(b) if a is None else a


def _bind_coalesce(types: Types, consts: Consts) -> Bound:
    rt = common_type(types)
    convs = [converter(t, rt, explicit=False) for t in types]

    def coalesce(*vals: Any) -> Any:
        for c, v in zip(convs, vals):
            if v is not None:
                return c(v)
        return None
    return rt, coalesce


def _bind_choose(types: Types, consts: Consts) -> Bound:
    ii = as_int(types[0])
    rt = common_type(types[1:])
    convs = [converter(t, rt, explicit=False) for t in types[1:]]

    def choose(i: Any, *vals: Any) -> Any:
        if i is None:
            return None
        k = ii(i)
        if not 1 <= k <= len(vals):
            return None
        return convs[k - 1](vals[k - 1])
    return rt, choose


def _bind_newid(types: Types, consts: Consts) -> Bound:
    return UNIQUEIDENTIFIER, uuid.uuid4


_seq_lock = threading.Lock()
_seq_state = {"base": uuid.uuid4().bytes, "n": int.from_bytes(os.urandom(3), "big")}


def newsequentialid() -> uuid.UUID:
    """GUIDs that increase in SQL Server's uniqueidentifier order (last 6 bytes first)."""
    with _seq_lock:
        _seq_state["n"] += 1
        n = _seq_state["n"]
    stamp = int(_time.time() * 1000) & 0xFFFF
    b = bytearray(_seq_state["base"])
    b[10:16] = (n + (stamp << 32)).to_bytes(6, "big")
    return uuid.UUID(bytes=bytes(b))


def _bind_newsequentialid(types: Types, consts: Consts) -> Bound:
    return UNIQUEIDENTIFIER, newsequentialid


def _bind_format(types: Types, consts: Consts) -> Bound:
    t = types[0]
    read = (lambda v: v) if (t.is_numeric or t.is_datetime) else None
    if read is None:
        raise tsql_error(8116, t.name, 1, "format", cls=BindError)
    fs = as_string(types[1])
    cs = as_string(types[2]) if len(types) > 2 else None

    def fmt(v: Any, f: Any, c: Any = None) -> Any:
        if v is None or f is None:
            return None
        return format_value(v, fs(f), cs(c) if cs and c is not None else None)
    return nvarchar(4000), fmt


def _bind_str(types: Types, consts: Consts) -> Bound:
    a = num_arg(types[0], FLOAT)
    li = as_int(types[1]) if len(types) > 1 else None
    di = as_int(types[2]) if len(types) > 2 else None
    length = consts[1] if len(consts) > 1 and isinstance(consts[1], int) else 10
    rt = varchar(length if 0 < length <= 8000 else 10)

    def str_(v: Any, n: Any = 10, d: Any = 0) -> Any:
        if v is None:
            return None
        return str_function(float(a(v)), li(n) if li and n is not None else (
            None if li else 10), di(d) if di and d is not None else (None if di else 0))
    return rt, str_


def _bind_formatmessage(types: Types, consts: Consts) -> Bound:
    first = types[0]
    conv0 = as_string(first) if not first.is_integer else (lambda v: v)
    rest = types[1:]

    def formatmessage(msg: Any, *args: Any) -> Any:
        if msg is None:
            return None
        if first.is_integer:
            entry = MESSAGES.get(int(msg))
            if entry is None:
                return None
            return format_message(entry[1], *args)
        return format_raiserror(conv0(msg), list(zip(args, rest)))
    return nvarchar(2048), formatmessage


# -------------------------------------------------------------------------------- registry
def _b(name: str, lo: int, hi: int, binder: Callable[[Types, Consts], Bound],
       deterministic: bool = True) -> Builtin:
    return Builtin(name, lo, hi, binder, deterministic)


_REGISTRY: dict[str, Builtin] = {
    name: _b(name, lo, hi, binder) for name, (lo, hi, binder) in STRING_FUNCTIONS.items()
}
for _table in (MATH_FUNCTIONS, DATE_FUNCTIONS, JSON_FUNCTIONS):
    for _name, (_lo, _hi, _binder, _det) in _table.items():
        _REGISTRY[_name] = _b(_name, _lo, _hi, _binder, _det)
_REGISTRY.update({b.name: b for b in [
    _b("isnumeric", 1, 1, _bind_isnumeric), _b("nullif", 2, 2, _bind_nullif),
    _b("isnull", 2, 2, _bind_isnull), _b("coalesce", 2, 254, _bind_coalesce),
    _b("choose", 2, 254, _bind_choose), _b("newid", 0, 0, _bind_newid, False),
    _b("newsequentialid", 0, 0, _bind_newsequentialid, False),
    _b("format", 2, 3, _bind_format), _b("str", 1, 3, _bind_str),
    _b("formatmessage", 1, 21, _bind_formatmessage),
]})


def lookup(name: str) -> Builtin | None:
    """The built-in function called ``name`` (case-insensitive), or None."""
    return _REGISTRY.get(name.lower())


def names() -> list[str]:
    """All built-in function names (for completion and documentation)."""
    return sorted(_REGISTRY)


__all__ = ["NOTCONST", "Builtin", "lookup", "names"]
