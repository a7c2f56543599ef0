"""A lean LALR driver over the Lark grammar's own tables.

Lark's ``Lark.parse`` builds a parse tree (propagating positions through every one of the
many unit reductions of an expression grammar) that a Transformer then walks again. For
T-SQL that is most of the parse time, so this module runs the same LALR(1) table and the
same per-state (contextual) lexers itself and calls the AST builder at each reduction:

* tokens are matched with the contextual lexer's compiled patterns for the parser state;
* each reduction goes through Lark's own child filtering (keyword tokens dropped, ``?rule``
  inlined, ``[x]`` placeholders) straight into the builder method of the rule;
* positions are kept on a stack of offsets beside the value stack, and only the rules that
  need them (statements and a few text-slicing rules) get their span.

Errors come out as :class:`SyntaxFailure`, which :mod:`parser` turns into ParseError.
"""

from __future__ import annotations

import marshal
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from lark import Token, Tree

from .parse_tables import Tables, from_lark
from .sre_image import compile_image

if TYPE_CHECKING:
    from lark import Lark

# Nesting deeper than this many parser states is refused (Msg 191) rather than handing
# consumers an AST deep enough to exhaust Python's recursion limit.
MAX_DEPTH = 3000
# The "(" of INSERT's query in parentheses (rules/terminals.lark), retyped where it cannot be.
INSERT_LPAR = "_INSERT_LPAR"


class SyntaxFailure(Exception):
    """Where and why the driver stopped: an unexpected token, character or nesting."""

    def __init__(self, kind: str, pos: int, token: Token | None = None,
                 expected: frozenset[str] = frozenset(), exact: bool = False) -> None:
        super().__init__(kind)
        self.kind = kind  # token | char | depth
        self.pos = pos
        self.token = token
        self.expected = expected
        # ``expected`` was taken before the failing token caused any reduction.
        self.exact = exact


class _StoppedAt(Exception):
    """A parse stopped on purpose before a position: the parser's state stack there."""

    def __init__(self, stack: list[int]) -> None:
        super().__init__("stopped")
        self.stack = list(stack)


class Driver:
    """Parses text with the tables of ``lark`` into the values built by ``builder_factory()``
    instances (one per thread: builders keep per-parse state)."""

    def __init__(self, tables: Tables, builder_factory: Callable[[], Any],
                 span_rules: frozenset[str],
                 user_callbacks: dict[str, Callable[[Token], Token]] | None = None) -> None:
        self.start_state = tables.start_state
        self.end_state = tables.end_state
        self.tables = tables
        self._factory = builder_factory
        self._span_rules = span_rules
        self._user_callbacks = user_callbacks or {}
        self._local = threading.local()
        # Lexers are compiled per parser state on first use: a script visits a fraction of
        # the states, and startup matters for a command-line tool.
        self.lexers = _Lazy(self._lexer_entry)
        self._compiled: dict[int, tuple[Any, ...]] = {}
        self._keyword_res: dict[tuple[str, int], Any] = {}
        # state -> symbol -> (True, next state) | (False, rule index); the gotos of
        # nonterminals are the shifts on their names, as in Lark's table.
        self.actions = _Lazy(lambda state: marshal.loads(tables.actions[state]))
        # Terminals some rule keeps as a child (names, numbers, strings, operators, "!rule"
        # keywords …); every other token (keywords, punctuation) is pushed as a plain string.
        self.kept_types = tables.kept_types

    @classmethod
    def from_lark(cls, lark: Lark, builder_factory: Callable[[], Any],
                  span_rules: frozenset[str]) -> Driver:
        """A driver over the tables of a Lark parser built in this process."""
        callbacks = dict(lark.parser.lexer.root_lexer.user_callbacks)
        return cls(from_lark(lark, builder_factory), builder_factory, span_rules, callbacks)

    def _lexer_entry(self, state: Any) -> tuple[Any, ...]:
        tables = self.tables
        index = tables.root_lexer if state is None else tables.state_lexer[state]
        entry = self._compiled.get(index)
        if entry is None:
            spec = marshal.loads(tables.lexers[index])
            entry = self._compiled[index] = self._compile(spec)
        return entry

    def _compile(self, spec: tuple[Any, ...]) -> tuple[Any, ...]:
        """(patterns, ignored types, callbacks) of one lexer from its spec (a LexerSpec,
        optionally followed by the compiled images of its regexes)."""
        pattern, flags, ignore, callback_specs = spec[:4]
        main_image, kw_images = spec[4:] if len(spec) > 4 else (None, (None,) * len(
            callback_specs))
        callbacks: dict[str, Callable[[Token], Token]] = {}
        for (type_, keywords, kw_flags, has_user), kw_image in zip(callback_specs, kw_images,
                                                                   strict=True):
            user = self._user_callbacks.get(type_) if has_user else None
            if keywords is None:
                if user is not None:
                    callbacks[type_] = user
                continue
            key = (keywords, kw_flags)
            kw_re = self._keyword_res.get(key)
            if kw_re is None:
                kw_re = self._keyword_res[key] = compile_image(keywords, kw_flags, kw_image)
            callbacks[type_] = _unless(kw_re, type_, user)
        return (compile_image(pattern, flags, main_image),), frozenset(ignore), callbacks

    def _thread_tables(self) -> tuple[Any, list[tuple[int, str, Callable[..., Any], bool,
                                                        bool]]]:
        """The builder and reduction table of the calling thread (built on first use)."""
        local = self._local
        tables = getattr(local, "tables", None)
        if tables is None:
            builder = self._factory()
            factories = _shape_factories(self.tables.shapes)
            reductions = []
            for size, origin, name, passthrough, has_method, shape in self.tables.rules:
                method = None if name.startswith("_") else getattr(builder, name, None)
                if (method is not None) != has_method:
                    raise RuntimeError(f"grammar tables out of date for rule {name}")
                reductions.append((size, origin, factories[shape](method, Tree, name),
                                   name in self._span_rules, passthrough))
            tables = local.tables = (builder, reductions)
        return tables

    def parse(self, text: str, builder_setup: Callable[[Any], None]) -> Any:
        """Parse ``text``; ``builder_setup(builder)`` primes the builder for this text.

        A :class:`SyntaxFailure` names what was expected where the unexpected token began:
        the terminals the parser could have shifted there (after the reductions each
        implies), not those of the state the failing token's own reductions led to."""
        try:
            return self._parse(text, builder_setup, None)
        except SyntaxFailure as failure:
            if failure.kind == "token" and not failure.exact:
                try:
                    self._parse(text, builder_setup, failure.pos)
                except _StoppedAt as stop:
                    failure.expected = self._expected_of(stop.stack) or failure.expected
                except (SyntaxFailure, RecursionError):
                    pass  # keep the first answer
            raise

    def _parse(self, text: str, builder_setup: Callable[[Any], None],
               stop_at: int | None) -> Any:
        """The parse itself; with ``stop_at``, raise :class:`_StoppedAt` (the state stack)
        at the first token starting there or later, before that token is fed."""
        builder, reductions = self._thread_tables()
        builder_setup(builder)
        actions = self.actions
        lexers = self.lexers
        n = len(text)
        pos = 0
        state_stack = [self.start_state]
        values: list[Any] = []
        starts: list[Any] = []
        ends: list[Any] = []
        end_state = self.end_state
        kept = self.kept_types
        new_token = Token._future_new
        while True:
            # ---- lex one token in the lexer of the current state
            state = state_stack[-1]
            mres, ignore, callbacks = lexers[state]
            while True:
                if pos >= n:
                    if stop_at is not None:
                        raise _StoppedAt(state_stack)
                    ttype, tok, tstart, tend = "$END", None, n, n
                    break
                for mre in mres:
                    m = mre.match(text, pos)
                    if m is not None:
                        break
                else:
                    if text[pos:].isspace():
                        pos = n
                        continue
                    self._no_match(text, _skip_blanks(text, pos), state_stack)
                ttype = m.lastgroup
                tend = m.end()
                if ttype in ignore:
                    pos = tend
                    continue
                tstart = m.start(m.lastindex)
                if stop_at is not None and tstart >= stop_at:
                    raise _StoppedAt(state_stack)
                if ttype == INSERT_LPAR:
                    ttype = self._insert_paren(state_stack, text, tstart)
                if ttype in callbacks:
                    tok = callbacks[ttype](new_token(ttype, text[tstart:tend], tstart))
                    if tok.type != ttype and ttype == "NAME" and "NAME" in actions[state]:
                        tok.type = self._keyword_or_name(state_stack, tok)
                    ttype = tok.type
                elif ttype in kept:
                    tok = new_token(ttype, text[tstart:tend], tstart)
                else:
                    tok = text[tstart:tend]
                break
            # ---- feed it: reduce as long as the table says so, then shift
            while True:
                state = state_stack[-1]
                act = actions[state].get(ttype)
                if act is None:
                    if not isinstance(tok, Token):
                        tok = new_token(ttype, tok or "", tstart)
                    raise SyntaxFailure("token", tstart, tok,
                                        frozenset(s for s in actions[state] if s.isupper()))
                if act[0]:
                    state_stack.append(act[1])
                    values.append(tok)
                    starts.append(tstart)
                    ends.append(tend)
                    if len(state_stack) > MAX_DEPTH:
                        raise SyntaxFailure("depth", tstart)
                    break
                size, origin, callback, wants_span, passthrough = reductions[act[1]]
                if passthrough:
                    # ?rule: x — the value is the child itself: only the state changes.
                    goto = actions[state_stack[-2]][origin][1]
                    if goto == end_state and ttype == "$END":
                        return values[-1]
                    state_stack[-1] = goto
                    continue
                if size:
                    children = values[-size:]
                    s0 = starts[-size]
                    e0 = ends[-1]
                    if s0 is None or e0 is None:
                        s0, e0 = _outer(starts[-size:], ends[-size:])
                    del values[-size:], starts[-size:], ends[-size:], state_stack[-size:]
                else:
                    children = []
                    s0 = e0 = None
                if wants_span:
                    builder.span = (s0, e0)
                value = callback(children)
                goto = actions[state_stack[-1]][origin][1]
                if goto == end_state and ttype == "$END":
                    return value
                state_stack.append(goto)
                values.append(value)
                starts.append(s0)
                ends.append(e0)
            pos = tend

    def _keyword_or_name(self, stack: list[int], tok: Token) -> str:
        """The type of a NAME spelled like a keyword in a state that also takes a name.

        LALR merges the lookaheads of every identifier, so after ``SELECT a`` the lexer
        offers OUTPUT (a name may be followed by OUTPUT elsewhere) where only an alias fits.
        The keyword stays unless the parser would reject it right here and would take a
        name; reserved words (the NAME callback retypes them) always stay keywords."""
        if self._viable(stack, tok.type):
            return tok.type
        user = self._user_callbacks.get("NAME")
        if user is not None and user(Token("NAME", tok.value)).type != "NAME":
            return tok.type
        return "NAME" if self._viable(stack, "NAME") else tok.type

    def _insert_paren(self, stack: list[int], text: str, pos: int) -> str:
        """The type of a "(" that opens INSERT's query in parentheses where the parser
        takes one (``INSERT t OUTPUT inserted.a (SELECT …)``, where a plain "(" would call
        the column) — unless what follows its ")" continues the OUTPUT list (``OUTPUT
        dbo.f((SELECT 1)) AS o VALUES …``: a call); elsewhere — LALR merges the lookaheads
        of every expression's end, so the lexer offers it after any — the "(" it is there: a
        plain one, or one that begins a statement."""
        if self._viable(stack, INSERT_LPAR) and not (
                _continues_output(text, pos) and self._viable(stack, "LPAR")):
            return INSERT_LPAR
        return "LPAR" if self._viable(stack, "LPAR") else "_STMT_LPAR"

    def _viable(self, stack: list[int], ttype: str) -> bool:
        """Whether the parser in ``stack`` shifts ``ttype`` after the reductions it implies
        (simulated on a copy of the state stack)."""
        actions = self.actions
        rules = self.tables.rules
        states = list(stack)
        while True:
            act = actions[states[-1]].get(ttype)
            if act is None:
                return False
            if act[0]:
                return True
            size, origin = rules[act[1]][0], rules[act[1]][1]
            if size:
                del states[-size:]
            goto = actions[states[-1]].get(origin)
            if goto is None:
                return False
            states.append(goto[1])

    def _expected_of(self, stack: list[int]) -> frozenset[str]:
        """The terminals the parser in ``stack`` would shift (after reductions)."""
        return frozenset(t for t in self.actions[stack[-1]]
                         if t.isupper() and self._viable(stack, t))

    def _no_match(self, text: str, pos: int, stack: list[int]) -> None:
        """No terminal of this state matches: name the token the full lexer sees, if any."""
        expected = self._expected_of(stack)
        mres, _ignore, callbacks = self.lexers[None]
        for mre in mres:
            m = mre.match(text, pos)
            if m is not None:
                start = m.start(m.lastindex)
                tok = Token(m.lastgroup, text[start:m.end()], start)
                if tok.type in callbacks:
                    tok = callbacks[tok.type](tok)
                raise SyntaxFailure("token", pos, tok, expected, exact=True)
        raise SyntaxFailure("char", pos, None, expected, exact=True)


class _Lazy(dict):  # type: ignore[type-arg]
    """A dict that computes a missing entry with ``factory(key)`` and keeps it."""

    def __init__(self, factory: Callable[[Any], Any]) -> None:
        super().__init__()
        self._factory = factory

    def __missing__(self, key: Any) -> Any:
        value = self[key] = self._factory(key)
        return value


def _unless(keywords: Any, type_: str, user: Callable[[Token], Token] | None
            ) -> Callable[[Token], Token]:
    """Lark's UnlessCallback (+ CallChain with the user callback) over a compiled keyword
    alternation: a token that fully matches a keyword takes the keyword's type."""
    fullmatch = keywords.fullmatch

    def callback(t: Token) -> Token:
        m = fullmatch(t.value)
        if m is not None:
            t.type = m.lastgroup  # type: ignore[assignment]
        if user is not None and t.type == type_:
            return user(t)
        return t

    return callback


def _shape_factories(code: Any) -> list[Callable[..., Any]]:
    env: dict[str, Any] = {}
    exec(code, env)  # noqa: S102 — generated from the grammar, not from input
    return env["F"]  # type: ignore[no-any-return]


# What may follow a call's ")" in an OUTPUT list, but not INSERT's query in parentheses (which
# ends the statement, or goes on with a set operator, ORDER BY, OFFSET or OPTION).
_OUTPUT_GOES_ON = frozenset({"VALUES", "SELECT", "DEFAULT", "EXEC", "EXECUTE", "AS", "INTO",
                             ",", "+", "-", "*", "/", "%", "&", "|", "^", "."})
_QUERY_GOES_ON = frozenset({"UNION", "EXCEPT", "INTERSECT", "ORDER", "OPTION", "OFFSET", ";"})


def _continues_output(text: str, pos: int) -> bool:
    """Whether the "(" at ``text[pos]`` is followed, after its ")", by more of an OUTPUT
    list (an operator, AS, an alias, the next item, INTO, or the INSERT's source)."""
    depth, i, n = 0, pos, len(text)
    while i < n:
        ch = text[i]
        if ch in "'\"[":
            close = "]" if ch == "[" else ch
            i = text.find(close, i + 1)
            while i != -1 and text.startswith(close * 2, i) and close != "]":
                i = text.find(close, i + 2)
            if i == -1:
                return False
        elif ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
            if depth == 0:
                break
        i += 1
    words = _next_words(text, i + 1, 2)
    if not words:
        return False
    if words[0] in _OUTPUT_GOES_ON:
        return True
    # An alias (a name that is no keyword a query goes on with), then the source or an item.
    return (words[0][0].isalpha() or words[0][0] in "_[\"") and words[0] not in _QUERY_GOES_ON \
        and len(words) > 1 and words[1] in _OUTPUT_GOES_ON - {"AS", "."}


def _next_words(text: str, pos: int, count: int) -> list[str]:
    """The next ``count`` words or punctuation marks of ``text`` from ``pos``, upper-cased."""
    out: list[str] = []
    n = len(text)
    while len(out) < count:
        pos = _skip_blanks(text, pos)
        if pos >= n:
            break
        end = pos + 1
        if text[pos] == "[":
            end = text.find("]", pos) + 1 or n
        elif text[pos].isalnum() or text[pos] in "_@#$":
            while end < n and (text[end].isalnum() or text[end] in "_@#$"):
                end += 1
        out.append(text[pos:end].upper())
        pos = end
    return out


def _skip_blanks(text: str, pos: int) -> int:
    while pos < len(text) and text[pos].isspace():
        pos += 1
    return pos


def _outer(starts: list[Any], ends: list[Any]) -> tuple[Any, Any]:
    """The first start and last end among children, skipping empty (None) ones."""
    s0 = next((s for s in starts if s is not None), None)
    e0 = next((e for e in reversed(ends) if e is not None), None)
    return s0, e0
