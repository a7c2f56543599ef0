"""Public parsing API: GO batch splitting, batch parsing and whole-script parsing.

``split_batches`` cuts a script at ``GO [n]`` lines; ``parse_batch`` parses one batch into an
:class:`ast.Batch` whose statement spans carry file line numbers; ``parse`` does both. Any
input yields an AST or a :class:`~tsqlbroker.errors.ParseError` — never another exception.
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass

from lark import Token

from tsqlbroker.errors import ParseError, message_text
from tsqlbroker.grammar import ast
from tsqlbroker.grammar.driver import SyntaxFailure
from tsqlbroker.grammar.loader import SQL_SERVER_RESERVED, get_driver, terminal_patterns
from tsqlbroker.grammar.scan import blank_comments, regions


@dataclass(frozen=True)
class BatchText:
    """One batch of a script: its text, the file line of its first line, and ``GO n``'s n."""

    text: str
    start_line: int
    repeat: int = 1


# GO alone on its line, optionally with a count, a semicolon and a trailing line comment.
_GO_LINE = re.compile(r"^[ \t]*GO(?:[ \t]+(\d+))?[ \t]*;?[ \t]*(?:--[^\r\n]*)?\r?$",
                      re.IGNORECASE | re.MULTILINE)
_BLANK = re.compile(r"\s*")


def split_batches(text: str) -> list[BatchText]:
    """Split a script at ``GO [n]`` lines (never inside a string, quoted name or comment).

    Batches holding only whitespace and comments are dropped. Linear in the text: lines are
    counted from one batch to the next, not from the start."""
    found = regions(text, strict=False)
    starts = [s for s, _e, _c in found]
    blanked = blank_comments(text, found)
    batches: list[BatchText] = []
    begin = 0
    line = 1  # the file line of ``begin``
    for m in _GO_LINE.finditer(text):
        i = bisect.bisect_right(starts, m.start()) - 1
        if i >= 0 and found[i][1] > m.start():
            continue  # inside a string, quoted identifier or comment
        repeat = int(m.group(1)) if m.group(1) else 1
        end = m.start()
        # The line break before the GO line belongs to neither batch.
        if text.endswith("\r\n", 0, end):
            end -= 2
        elif text.endswith("\n", 0, end):
            end -= 1
        _add_batch(batches, text, blanked, begin, max(end, begin), repeat, line)
        after = m.end() + 1 if m.end() < len(text) else m.end()
        line += text.count("\n", begin, after)
        begin = after
    _add_batch(batches, text, blanked, begin, len(text), 1, line)
    return batches


def _add_batch(out: list[BatchText], text: str, blanked: str, begin: int, end: int,
               repeat: int, line: int) -> None:
    if _BLANK.fullmatch(blanked, begin, end) is None:
        out.append(BatchText(text[begin:end], line, repeat))


def parse(text: str) -> ast.Script:
    """Parse a whole script: split at GO, parse every batch (the first error is raised)."""
    return ast.Script(tuple(parse_batch(b.text, b.start_line, b.repeat)
                            for b in split_batches(text)))


def parse_batch(text: str, start_line: int = 1, repeat: int = 1) -> ast.Batch:
    """Parse one batch. Statement spans carry file lines (``start_line`` is the file line of
    the batch's first line); ``start_pos``/``end_pos`` are offsets into ``text``."""
    found = regions(text, start_line)
    blanked = blank_comments(text, found)
    _check_identifier_lengths(text, blanked, found, start_line)
    try:
        stmts = get_driver().parse(blanked, lambda b: b.reset(text, start_line - 1))
    except SyntaxFailure as e:
        if e.kind == "char":
            raise _char_error(text, blanked, e.pos, e.expected, start_line) from None
        if e.kind == "depth":
            raise _nesting_error(text, start_line) from None
        assert e.token is not None
        raise _token_error(text, blanked, e.token, e.expected, start_line) from None
    except RecursionError:
        raise _nesting_error(text, start_line) from None
    return ast.Batch(stmts, text, start_line, repeat, span=_batch_span(text, start_line))


# ---------------------------------------------------------------------------------------------
# Errors
# ---------------------------------------------------------------------------------------------
MAX_IDENTIFIER = 128
# A bare name (or @variable, #temp) longer than MAX_IDENTIFIER: only such runs match.
_LONG_WORD = re.compile(r"(?<![\w@#$])(?=[@#]*[^\W\d])[\w@#$]{" + str(MAX_IDENTIFIER + 1)
                        + ",}")


def _check_identifier_lengths(text: str, blanked: str, found: list[tuple[int, int, bool]],
                              start_line: int) -> None:
    """SQL Server's Msg 103 for the first identifier longer than 128 characters (bare,
    bracketed or quoted; escapes count once), raised before parsing as its lexer does."""
    long_at: list[tuple[int, str]] = []
    starts = [s for s, _e, _c in found]
    for m in _LONG_WORD.finditer(blanked):
        i = bisect.bisect_right(starts, m.start()) - 1
        if i < 0 or found[i][1] <= m.start():  # not inside a string or quoted name
            long_at.append((m.start(), m.group()))
            break
    for s, e, is_comment in found:
        quote = text[s]
        if not is_comment and quote in '["' and e - s > MAX_IDENTIFIER + 2:
            closer = "]" if quote == "[" else '"'
            name = text[s + 1:e - 1 if text[e - 1] == closer else e]
            name = name.replace(closer * 2, closer)
            if len(name) > MAX_IDENTIFIER:
                long_at.append((s, name))
                break
    if long_at:
        pos, name = min(long_at)
        line, col = _position(text, pos)
        raise ParseError(message_text(103, name[:MAX_IDENTIFIER]), start_line + line, col,
                         _line_at(text, pos), number=103)


def _line_at(text: str, pos: int) -> str:
    start = text.rfind("\n", 0, pos) + 1
    end = text.find("\n", pos)
    return text[start:] if end < 0 else text[start:end]


def _position(text: str, pos: int) -> tuple[int, int]:
    """0-based line index and 1-based column of offset ``pos``."""
    return text.count("\n", 0, pos), pos - (text.rfind("\n", 0, pos) + 1) + 1


def _is_keyword(tok: Token) -> bool:
    """A reserved keyword read as a keyword (Msg 156); other words are Msg 102."""
    word = str(tok).upper()
    return tok.type == word and word in SQL_SERVER_RESERVED


# Terminals that are kinds of token rather than words: shown as what the user would type.
_KINDS = {"NAME": "identifier", "BRACKETED": "identifier", "QUOTED": "identifier",
          "VARIABLE": "@variable", "GLOBAL_VAR": "@@variable", "STRING": "string",
          "NSTRING": "string", "INT": "number", "DECIMAL": "number", "FLOAT": "number",
          "MONEY": "number", "BINARY": "binary"}
# Kinds come first, in this order, then words, then punctuation.
_KIND_ORDER = ("identifier", "@variable", "@@variable", "string", "number", "binary")
# Terminals whose names are the grammar's, not T-SQL's.
_ALIASES = {"WITH_CTE": "WITH", "WITH_LPAR": "WITH", "SET_LPAR": "SET",
            "FOR_XML": "FOR XML", "OFFSET_FETCH": "FETCH", "EP_PAREN": "'('",
            "ASSIGN_OP": "'+='"}
# Never hints: statement separators, labels, and $action (MERGE … OUTPUT only, but LALR offers
# it wherever an expression may start).
_HIDDEN = frozenset({"$END", "_SEMI", "LABEL", "ACTION"})
# More than this many items are cut ("…" follows).
_MAX_EXPECTED = 12
STATEMENT_HINT = "a new statement"
_DISPLAY: dict[str, str] = {}
_statement_starts: frozenset[str] | None = None


def display_word(name: str) -> str | None:
    """One expected terminal as T-SQL words: keywords and punctuation as written, kinds of
    token as ``identifier``, ``@variable``, ``string``, ``number`` …; None to hide it."""
    if not _DISPLAY:
        for term, (kind, value) in terminal_patterns().items():
            if term in _KINDS:
                _DISPLAY[term] = _KINDS[term]
            elif term in _ALIASES:
                _DISPLAY[term] = _ALIASES[term]
            elif kind == "str":
                # Punctuation is quoted: a bare "," would vanish in the list.
                _DISPLAY[term] = value.upper() if value[:1].isalpha() else f"'{value}'"
    if name in _HIDDEN or name.startswith("__"):
        return None
    return _DISPLAY.get(name)


def _statement_start_terminals() -> frozenset[str]:
    """What may begin a statement: the expected set of a batch that starts badly."""
    global _statement_starts
    if _statement_starts is None:
        try:
            get_driver().parse(")", lambda b: b.reset(")", 0))
            starts: frozenset[str] = frozenset()
        except SyntaxFailure as e:
            starts = e.expected
        # END starts END CONVERSATION, but the END of a block is worth naming apart.
        _statement_starts = frozenset(t for t in starts if t not in _KINDS and t != "END")
    return _statement_starts


def _sort_key(word: str) -> tuple[int, int, str]:
    if word in _KIND_ORDER:
        return 0, _KIND_ORDER.index(word), word
    return (2 if word[:1].isalpha() else 1), 0, word


def expected_words(expected: frozenset[str]) -> list[str]:
    """Expected terminals in T-SQL words, deduplicated and ordered: kinds of token
    (``identifier``, ``@variable``, ``string``, ``number``), punctuation, keywords. Where any
    statement could begin, the statement keywords are one item, ``a new statement``. A long
    list is cut, with ``…`` as its last word or before ``a new statement``."""
    starts = _statement_start_terminals()
    rest = expected
    collapsed = bool(starts) and starts <= expected
    if collapsed:
        rest = expected - starts
    shown = {w for w in map(display_word, rest) if w}
    words = sorted(shown, key=_sort_key)
    room = _MAX_EXPECTED - (1 if collapsed else 0)
    if len(words) > room:
        words = [*words[:room], "…"]
    if collapsed:
        words.append(STATEMENT_HINT)
    return words


def _token_error(text: str, blanked: str, tok: Token, expected: frozenset[str],
                 start_line: int) -> ParseError:
    if tok.type == "$END":
        # At the end of the input SQL Server names the last token, keyword or not, with
        # Msg 102 ("Incorrect syntax near 'END'." for an unfinished block).
        pos = len(blanked.rstrip())
        word = _last_word(blanked)
        line, col = _position(text, max(pos - len(word), 0))
        return ParseError(message_text(102, word), start_line + line, col,
                          _line_at(text, max(pos - 1, 0)), number=102,
                          expected=expected_words(expected))
    pos = tok.start_pos
    line, col = _position(text, pos)
    value = str(tok)
    first = _must_be_first(blanked, tok)
    if first:
        return ParseError(message_text(111, first), start_line + line, col, _line_at(text, pos),
                          number=111)
    rest = _WORD_REST.match(blanked, pos + len(value)) if value[-1:].isalpha() else None
    if rest is not None and rest.group():
        # A keyword the state's lexer found at the start of a longer word (FOR of FORM):
        # the word is what was written.
        value += rest.group()
        number = 156 if value.upper() in SQL_SERVER_RESERVED else 102
    elif tok.type in ("WITH_CTE", "WITH_LPAR", "SET_LPAR", "OFFSET_FETCH"):
        value = value.split()[0].rstrip("(")
        number = 156
    elif tok.type == "LABEL":
        value, number = value[:-1], 102
    else:
        number = 156 if _is_keyword(tok) else 102
    return ParseError(message_text(number, value), start_line + line, col, _line_at(text, pos),
                      number=number, expected=expected_words(expected))


_WORD_REST = re.compile(r"[\w@#$]*")
_FIRST_IN_BATCH = {"PROCEDURE": "CREATE/ALTER PROCEDURE", "PROC": "CREATE/ALTER PROCEDURE",
                   "FUNCTION": "CREATE FUNCTION", "VIEW": "CREATE VIEW",
                   "SCHEMA": "CREATE SCHEMA", "TRIGGER": "CREATE TRIGGER"}
_OR_ALTER = re.compile(r"\s+ALTER\s+(PROCEDURE|PROC|FUNCTION|VIEW)\b", re.IGNORECASE)
_CREATE_BEFORE = re.compile(r"(?:CREATE|ALTER|CREATE\s+OR\s+ALTER)\s+\Z", re.IGNORECASE)


def _must_be_first(blanked: str, tok: Token) -> str | None:
    """SQL Server's Msg 111 for CREATE PROCEDURE / FUNCTION / VIEW after other statements."""
    word = str(tok).upper()
    if word == "OR":  # CREATE OR ALTER PROCEDURE …: the parse stops at OR
        m = _OR_ALTER.match(blanked, tok.end_pos or 0)
        word = m.group(1).upper() if m else word
    name = _FIRST_IN_BATCH.get(word)
    if name and _CREATE_BEFORE.search(blanked[max(0, tok.start_pos - 40):tok.start_pos]):
        return name
    return None


def _char_error(text: str, blanked: str, pos: int, allowed: frozenset[str],
                start_line: int) -> ParseError:
    line, col = _position(text, pos)
    ch = blanked[pos:pos + 1]
    if ch == "'" and pos > 0 and blanked[pos - 1] in "nN" and (
            pos == 1 or not (blanked[pos - 2].isalnum() or blanked[pos - 2] in "_@#$")):
        # N'… lexed as the name N and an unclosed string: report it at the N, as one literal.
        pos -= 1
        line, col = _position(text, pos)
        ch = blanked[pos]
    quote = ch in ("'", "[", '"') or (ch in "nN" and blanked[pos + 1:pos + 2] == "'")
    if quote:
        body_start = pos + (2 if ch in "nN" else 1)
        return ParseError(message_text(105, text[body_start:]), start_line + line, col,
                          _line_at(text, pos), number=105)
    return ParseError(message_text(102, ch), start_line + line, col, _line_at(text, pos),
                      number=102, expected=expected_words(allowed))


def _nesting_error(text: str, start_line: int) -> ParseError:
    return ParseError(message_text(191), start_line, 1, _line_at(text, 0), number=191)


_LAST_WORD = re.compile(r"(?:N?'(?:[^']|'')*'|\[(?:[^\]]|\]\])*\]|[\w@#$.]+|\S)\s*\Z")


def _last_word(blanked: str) -> str:
    m = _LAST_WORD.search(blanked.rstrip()[-300:])
    return m.group().strip() if m else ""


def _batch_span(text: str, start_line: int) -> ast.Span:
    lines = text.count("\n")
    return ast.Span(start_line, 1, start_line + lines, len(text) - text.rfind("\n"), 0, len(text))
