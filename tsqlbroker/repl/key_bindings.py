"""Key bindings and the rule that decides when the buffer runs.

Enter runs the buffer when it is complete — its last line is ``GO [n]`` (or, in ``semicolon``
mode, it ends with ``;`` outside any ``BEGIN … END`` block), its last line is a ``:command``
or ``!!`` line, or it is a bare ``exit``/``quit`` — and otherwise inserts a newline, so
batches are edited over several lines as in sqlcmd. Alt-Enter (Esc Enter) always runs it. Ctrl-C clears the buffer; Ctrl-D on
an empty buffer leaves (prompt-toolkit raises ``EOFError``).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from prompt_toolkit.application import get_app
from prompt_toolkit.filters import Condition, has_completions, in_paste_mode
from prompt_toolkit.key_binding import KeyBindings, KeyPressEvent

# The same GO line the batch splitter (tsqlbroker.grammar.split_batches) recognises.
GO_LINE = re.compile(r"^[ \t]*go(?:[ \t]+(\d+))?[ \t]*;?[ \t]*(?:--.*)?$", re.IGNORECASE)
_TOKEN = re.compile(
    r"--[^\n]*|/\*|'(?:[^']++|'')*+'?|\"(?:[^\"]++|\"\")*+\"?|\[(?:[^\]]++|\]\])*+\]?|[A-Za-z_]\w*|.",
    re.DOTALL)
# BEGIN words that open no block (BEGIN TRAN, BEGIN DIALOG …): only BEGIN [TRY|CATCH] nests.
_NOT_BLOCK = {"tran", "transaction", "dialog", "conversation", "distributed"}


def _code_tokens(text: str) -> tuple[list[str], bool]:
    """Words and symbols outside strings and comments; True when the text ends inside one."""
    tokens: list[str] = []
    pos = 0
    while pos < len(text):
        if text.startswith("/*", pos):
            # Block comments nest in T-SQL.
            depth, pos = 1, pos + 2
            while pos < len(text) and depth:
                if text.startswith("/*", pos):
                    depth, pos = depth + 1, pos + 2
                elif text.startswith("*/", pos):
                    depth, pos = depth - 1, pos + 2
                else:
                    pos += 1
            if depth:
                return tokens, True
            continue
        m = _TOKEN.match(text, pos)
        assert m is not None  # the last alternative matches any character
        tok = m.group()
        pos = m.end()
        if tok[0] in "'\"[":
            closer = "]" if tok[0] == "[" else tok[0]
            if len(tok) < 2 or not tok.endswith(closer) or _odd_tail(tok, closer):
                return tokens, True
            tokens.append("'")
        elif not tok.startswith("--") and not tok.isspace():
            tokens.append(tok.lower())
    return tokens, False


def _odd_tail(tok: str, closer: str) -> bool:
    """True when ``tok``'s final closer is an escaped (doubled) one, i.e. still open."""
    body = tok[1:]
    run = len(body) - len(body.rstrip(closer))
    return run % 2 == 0


def open_blocks(text: str) -> int:
    """How many ``BEGIN … END`` / ``CASE … END`` blocks are open at the end of ``text``."""
    tokens, _ = _code_tokens(text)
    depth = 0
    for i, tok in enumerate(tokens):
        nxt = tokens[i + 1] if i + 1 < len(tokens) else ""
        if (tok == "begin" and nxt not in _NOT_BLOCK) or tok == "case":
            depth += 1
        elif tok == "end" and depth:
            depth -= 1
    return depth


def ends_inside_literal(text: str) -> bool:
    """True when ``text`` ends inside a string, quoted name or block comment."""
    return _code_tokens(text)[1]


def split_command(text: str) -> tuple[str, str] | None:
    """``(statement cache, command)`` when the buffer's last line is a ``:command`` or a
    ``!! shell`` line (or the buffer is a bare ``exit`` / ``quit``): the lines before it are
    sqlcmd's statement cache, which ``:list``, ``:reset``, ``:ed`` and ``:exit()`` act on.
    None for T-SQL."""
    stripped = text.rstrip()
    if not stripped.strip():
        return None
    lines = stripped.splitlines()
    last = lines[-1].strip()
    if len(lines) == 1 and last.lower() in ("exit", "quit"):
        return "", last
    if not last.startswith((":", "!!")):
        return None
    before = "\n".join(lines[:-1])
    if ends_inside_literal(before):
        return None  # the line is inside a string or comment
    return before, last


def is_special(text: str) -> bool:
    """Whether the buffer ends with a client command (see :func:`split_command`)."""
    return split_command(text) is not None


def is_complete(text: str, terminator: str = "go") -> bool:
    """Should Enter run ``text`` rather than add a line? (See the module docstring.)"""
    if not text.strip() or is_special(text):
        return True  # a blank buffer just gives a fresh prompt
    lines = text.rstrip().splitlines()
    last = lines[-1] if lines else ""
    if GO_LINE.match(last):
        return not ends_inside_literal("\n".join(lines[:-1]))
    if terminator == "semicolon" and text.rstrip().endswith(";"):
        return not ends_inside_literal(text) and open_blocks(text) == 0
    return False


def build_key_bindings(get_terminator: Callable[[], str]) -> KeyBindings:
    """The REPL's bindings: Enter runs a complete buffer, Ctrl-C clears, Alt-Enter runs."""
    kb = KeyBindings()

    @Condition
    def buffer_complete() -> bool:
        buf = get_app().current_buffer
        return is_complete(buf.text, get_terminator())

    @kb.add("enter", filter=~has_completions & buffer_complete)
    def _run(event: KeyPressEvent) -> None:
        event.current_buffer.validate_and_handle()

    @kb.add("enter", filter=has_completions)
    def _accept_completion(event: KeyPressEvent) -> None:
        buf = event.current_buffer
        if buf.complete_state is not None and buf.complete_state.current_completion:
            buf.apply_completion(buf.complete_state.current_completion)
        else:
            buf.complete_state = None
            if is_complete(buf.text, get_terminator()):
                buf.validate_and_handle()
            else:
                buf.newline(copy_margin=True)

    # Auto-indent: a new line takes the indentation of the one before (unless pasting);
    # blanks typed first on such a line replace it rather than add to it, so lines typed
    # with their own indentation do not drift further right each time.
    margin: dict[str, Any] = {}

    @kb.add("enter", filter=~has_completions & ~buffer_complete)
    def _newline(event: KeyPressEvent) -> None:
        buf = event.current_buffer
        buf.newline(copy_margin=not in_paste_mode())
        margin.update(text=buf.text, cursor=buf.cursor_position)

    @Condition
    def on_auto_margin() -> bool:
        buf = get_app().current_buffer
        return (buf.text == margin.get("text") and buf.cursor_position == margin.get("cursor")
                and buf.document.current_line_before_cursor.strip() == ""
                and buf.document.current_line_before_cursor != "")

    @kb.add(" ", filter=on_auto_margin)
    def _typed_indent(event: KeyPressEvent) -> None:
        buf = event.current_buffer
        buf.delete_before_cursor(len(buf.document.current_line_before_cursor))
        margin.clear()
        buf.insert_text(event.data)

    @kb.add("escape", "enter")
    def _run_now(event: KeyPressEvent) -> None:
        event.current_buffer.validate_and_handle()

    @kb.add("c-c")
    def _clear(event: KeyPressEvent) -> None:
        event.current_buffer.reset()

    return kb
