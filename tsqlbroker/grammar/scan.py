"""Source scanning that a regex lexer cannot do: nested comments and GO batch separators.

:func:`blank_comments` replaces every comment by spaces (newlines kept), so that offsets,
lines and columns of the parsed text are those of the source. :func:`protected_regions`
lists the strings, quoted identifiers and comments, inside which ``GO`` never splits.
"""

from __future__ import annotations

import re

from tsqlbroker.errors import ParseError, message_text

# Strings, bracketed and quoted identifiers (an unclosed one runs to the end of the text),
# line comments and the start of a block comment. The repetitions are possessive: a plain
# ``(?:[^']|'')*`` keeps a backtracking entry per character (1 GB for a 10 MB literal).
_REGION = re.compile(
    r"""'(?:[^']++|'')*+(?:'|\Z)|\[(?:[^\]]++|\]\])*+(?:\]|\Z)|"(?:[^"]++|"")*+(?:"|\Z)"""
    r"""|--[^\r\n]*|/\*"""
)
_BLOCK_EDGE = re.compile(r"/\*|\*/")
_NOT_NEWLINE = re.compile(r"[^\r\n]")


def _block_comment_end(text: str, start: int) -> int:
    """Offset just past the ``*/`` closing the (nesting) comment opened at ``start``."""
    depth = 1
    pos = start + 2
    while True:
        m = _BLOCK_EDGE.search(text, pos)
        if m is None:
            return -1
        depth += 1 if m.group() == "/*" else -1
        pos = m.end()
        if depth == 0:
            return pos


def regions(text: str, start_line: int = 1, strict: bool = True) -> list[tuple[int, int, bool]]:
    """``(start, end, is_comment)`` of every string, quoted name and comment, in order.

    An unterminated block comment raises Msg 113 as SQL Server does (with ``strict``; else
    it runs to the end of the text)."""
    out: list[tuple[int, int, bool]] = []
    pos = 0
    search = _REGION.search
    while True:
        m = search(text, pos)
        if m is None:
            return out
        s = m.start()
        tok = m.group()
        if tok == "/*":
            end = _block_comment_end(text, s)
            if end < 0 and not strict:
                out.append((s, len(text), True))
                return out
            if end < 0:
                line = text.count("\n", 0, s)
                col = s - (text.rfind("\n", 0, s) + 1) + 1
                src = text.splitlines()[line] if text else ""
                raise ParseError(message_text(113), start_line + line, col, src,
                                 number=113)
            out.append((s, end, True))
            pos = end
        else:
            out.append((s, m.end(), tok[0] == "-"))
            pos = m.end()
        if pos == s:  # an empty match cannot happen, but never loop forever
            pos += 1


def blank_comments(text: str, found: list[tuple[int, int, bool]]) -> str:
    """``text`` with the comments among ``found`` replaced by spaces, newlines kept."""
    if not any(c for _s, _e, c in found):
        return text
    parts: list[str] = []
    last = 0
    for s, e, is_comment in found:
        if is_comment:
            parts.append(text[last:s])
            parts.append(_NOT_NEWLINE.sub(" ", text[s:e]))
            last = e
    parts.append(text[last:])
    return "".join(parts)
