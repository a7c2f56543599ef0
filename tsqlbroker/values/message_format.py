"""RAISERROR's printf-style message formatting.

``% [flags] [width] [.precision] [h|l|I64] type`` with flags ``- + 0 # space``, ``*`` for a
width or precision taken from the arguments, types ``d i o s u x X``; ``%%`` is a percent
sign. A NULL or missing argument prints ``(null)``. Argument types are checked as SQL Server
checks them: integer conversions want an integer, ``%s`` a string (Msg 2786 otherwise).
"""

from __future__ import annotations

import re
from typing import Any

from tsqlbroker.errors import ExecutionError

from . import types as T

_PRINTF_SPEC = re.compile(r"%(?P<flags>[-+0# ]*)(?P<width>\*|\d+)?(?:\.(?P<prec>\*|\d+))?"
                   r"(?:I64|h|l)?(?P<type>[diosuxX])|%%")


def _mismatch(position: int) -> ExecutionError:
    return ExecutionError(2786, f"The data type of substitution parameter {position} does not "
                                "match the expected type of the format specification.",
                          severity=16)


def format_raiserror(template: str, args: list[tuple[Any, T.SqlType]]) -> str:
    """Fill ``template`` with ``args`` (``(value, static type)`` pairs) as RAISERROR does."""
    it = iter(enumerate(args, start=1))

    def take() -> tuple[int, Any, T.SqlType | None]:
        try:
            pos, (value, t) = next(it)
            return pos, value, t
        except StopIteration:
            return 0, None, None

    def star() -> int | None:
        pos, value, t = take()
        if value is None:
            return None
        if t is not None and not t.is_integer:
            raise _mismatch(pos)
        return int(value)

    def sub(m: re.Match[str]) -> str:
        if m.group(0) == "%%":
            return "%"
        flags = m.group("flags") or ""
        width_s, prec_s, kind = m.group("width"), m.group("prec"), m.group("type")
        width = star() if width_s == "*" else (int(width_s) if width_s else None)
        prec = star() if prec_s == "*" else (int(prec_s) if prec_s is not None else None)
        pos, value, t = take()
        if value is None:
            text = "(null)"
            return _pad(text, flags.replace("0", ""), width)
        if kind == "s":
            if t is not None and not (t.is_string or t.name == "null"):
                raise _mismatch(pos)
            text = str(value)
            if prec is not None:
                text = text[:prec]
            return _pad(text, flags.replace("0", ""), width)
        if t is not None and not (t.is_integer or t.name == "null"):
            raise _mismatch(pos)
        n = int(value)
        if kind in ("u", "x", "X", "o") and n < 0:
            n &= 0xFFFFFFFF
        if kind in ("d", "i", "u"):
            digits = str(abs(n))
        elif kind == "o":
            digits = format(abs(n), "o")
        else:
            digits = format(abs(n), kind)
        if prec is not None:
            digits = digits.rjust(prec, "0")
        prefix = "-" if n < 0 else ("+" if "+" in flags else (" " if " " in flags else ""))
        if "#" in flags and n != 0:
            prefix += {"x": "0x", "X": "0X", "o": "0"}.get(kind, "")
        if "0" in flags and "-" not in flags and prec is None and width is not None:
            digits = digits.rjust(width - len(prefix), "0")
        return _pad(prefix + digits, flags, width)

    return _PRINTF_SPEC.sub(sub, template)


def _pad(text: str, flags: str, width: int | None) -> str:
    if width is None or len(text) >= width:
        return text
    return text.ljust(width) if "-" in flags else text.rjust(width)
