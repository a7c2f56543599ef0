"""Compiled regular expressions kept across processes, for the driver's lexers.

Compiling a contextual lexer's alternation (hundreds of named groups) is the largest part
of parsing the first statement of a process: ``re`` parses the pattern and generates the
matcher's code in Python. The generated code is a list of integers that ``_sre.compile``
turns into a pattern object; :func:`image` keeps that list (with the group tables) so that
the cached grammar tables can carry it, and :func:`compile_image` rebuilds the pattern
without parsing. The image is specific to the Python version (the tables cache is keyed by
it); when the interpreter's internals differ, both fall back to :func:`re.compile`.
"""

from __future__ import annotations

import _sre
import re
from re import _compiler, _parser
from typing import Any

Image = tuple[int, list[int], int, dict[str, int], tuple[str | None, ...]]


def image(pattern: str, flags: int) -> Image | None:
    """What ``_sre.compile`` needs to rebuild ``re.compile(pattern, flags)``, or None."""
    try:
        parsed = _parser.parse(pattern, flags)
        code = _compiler._code(parsed, flags)
        groupindex = dict(parsed.state.groupdict)
        indexgroup: list[str | None] = [None] * parsed.state.groups
        for name, i in groupindex.items():
            indexgroup[i] = name
        # Plain ints and containers only: the image is stored with marshal.
        result: Image = (int(flags | parsed.state.flags), [int(c) for c in code],
                         int(parsed.state.groups - 1), {str(k): int(v) for k, v in
                                                        groupindex.items()},
                         tuple(indexgroup))
        check = _build(pattern, result)
        reference = re.compile(pattern, flags)
        if check.flags != reference.flags or check.groupindex != reference.groupindex:
            return None
        return result
    except Exception:  # noqa: BLE001 — any internal difference: plain re.compile at run time
        return None


def compile_image(pattern: str, flags: int, img: Image | None) -> re.Pattern[str]:
    """``re.compile(pattern, flags)``, from its image when there is one."""
    if img is not None:
        try:
            built: re.Pattern[str] = _build(pattern, img)
        except Exception:  # noqa: BLE001 — a stale image: compile as usual
            return re.compile(pattern, flags)
        return built
    return re.compile(pattern, flags)


def _build(pattern: str, img: Image) -> Any:
    final_flags, code, groups, groupindex, indexgroup = img
    return _sre.compile(pattern, final_flags, code, groups, groupindex, indexgroup)
