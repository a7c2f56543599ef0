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

import re
import threading
from collections.abc import Callable
from typing import Any

from lark import Lark, Token, Tree
from lark.lexer import CallChain, _create_unless
from lark.parsers.lalr_analysis import Shift

# Nesting deeper than this many parser states is refused (Msg 191) rather than handing
# consumers an AST deep enough to exhaust Python's recursion limit.
MAX_DEPTH = 3000


class SyntaxFailure(Exception):
    """Where and why the driver stopped: an unexpected token, character or nesting."""

    def __init__(self, kind: str, pos: int, token: Token | None = None,
                 expected: frozenset[str] = frozenset()) -> None:
        super().__init__(kind)
        self.kind = kind  # token | char | depth
        self.pos = pos
        self.token = token
        self.expected = expected


class Driver:
    """Parses text with the tables of ``lark`` into the values built by ``builder_factory()``
    instances (one per thread: builders keep per-parse state)."""

    def __init__(self, lark: Lark, builder_factory: Callable[[], Any],
                 span_rules: frozenset[str]) -> None:
        frontend = lark.parser
        table = frontend.parser._parse_table
        self.start_state = table.start_states["start"]
        self.end_state = table.end_states["start"]
        self._rules = lark.rules
        self._factory = builder_factory
        self._span_rules = span_rules
        self._local = threading.local()

        # Lexer and action tables are converted per parser state on first use: a script
        # visits a fraction of the states, and startup matters for a command-line tool.
        self.lexers = _Lazy(self._lexer_entry)
        self._basic = frontend.lexer.lexers
        self._root = frontend.lexer.root_lexer
        self._by_lexer: dict[int, tuple[Any, ...]] = {}
        self._states = table.states
        self._rule_index = {rule: i for i, rule in enumerate(self._rules)}
        self.actions = _Lazy(self._action_row)
        # Terminals some rule keeps as a child (names, numbers, strings, operators, "!rule"
        # keywords …); every other token (keywords, punctuation) is pushed as a plain string.
        self.kept_types = frozenset(
            sym.name for rule in self._rules for sym in rule.expansion
            if sym.is_term and (rule.options.keep_all_tokens or not sym.filter_out))

    def _lexer_entry(self, state: Any) -> tuple[Any, ...]:
        basic = self._basic[state] if state is not None else self._root
        entry = self._by_lexer.get(id(basic))
        if entry is None:
            entry = self._by_lexer[id(basic)] = _compile_lexer(basic)
        return entry

    def _action_row(self, state: int) -> dict[str, tuple[bool, Any]]:
        """state -> symbol -> (True, next state) | (False, rule index); the gotos of
        nonterminals are the shifts on their names, as in Lark's table."""
        index = self._rule_index
        return {sym: (True, arg) if action is Shift else (False, index[arg])
                for sym, (action, arg) in self._states[state].items()}

    def _thread_tables(self) -> tuple[Any, list[tuple[int, str, Callable[..., Any], bool,
                                                        bool]]]:
        """The builder and reduction table of the calling thread (built on first use)."""
        local = self._local
        tables = getattr(local, "tables", None)
        if tables is None:
            builder = self._factory()
            reductions = []
            for rule in self._rules:
                name = rule.alias or rule.options.template_source or rule.origin.name
                method = None if name.startswith("_") else getattr(builder, name, None)
                reductions.append((len(rule.expansion), rule.origin.name,
                                   _reduction_callback(rule, name, method),
                                   name in self._span_rules, _passthrough(rule)))
            tables = local.tables = (builder, reductions)
        return tables

    def parse(self, text: str, builder_setup: Callable[[Any], None]) -> Any:
        """Parse ``text``; ``builder_setup(builder)`` primes the builder for this text."""
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
                    self._no_match(text, _skip_blanks(text, pos), state)
                ttype = m.lastgroup
                tend = m.end()
                if ttype in ignore:
                    pos = tend
                    continue
                tstart = m.start(m.lastindex)
                if ttype in callbacks:
                    tok = callbacks[ttype](new_token(ttype, text[tstart:tend], tstart))
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

    def _no_match(self, text: str, pos: int, state: int) -> None:
        """No terminal of this state matches: name the token the full lexer sees, if any."""
        mres, _ignore, callbacks = self.lexers[None]
        for mre in mres:
            m = mre.match(text, pos)
            if m is not None:
                start = m.start(m.lastindex)
                tok = Token(m.lastgroup, text[start:m.end()], start)
                if tok.type in callbacks:
                    tok = callbacks[tok.type](tok)
                raise SyntaxFailure("token", pos, tok,
                                    frozenset(s for s in self.actions[state] if s.isupper()))
        raise SyntaxFailure("char", pos, None,
                            frozenset(s for s in self.actions[state] if s.isupper()))


class _Lazy(dict):  # type: ignore[type-arg]
    """A dict that computes a missing entry with ``factory(key)`` and keeps it."""

    def __init__(self, factory: Callable[[Any], Any]) -> None:
        super().__init__()
        self._factory = factory

    def __missing__(self, key: Any) -> Any:
        value = self[key] = self._factory(key)
        return value


def _compile_lexer(basic: Any) -> tuple[Any, ...]:
    """(patterns, ignored types, callbacks) of one of Lark's per-state lexers.

    Built as Lark builds its scanner (keywords matched by NAME become keywords through the
    "unless" callbacks, user callbacks chained after them), as one alternation that also
    skips the blanks before the token: one regex call per token."""
    terminals, callbacks = _create_unless(basic.terminals, basic.g_regex_flags, basic.re,
                                          basic.use_bytes)
    for type_, fn in basic.user_callbacks.items():
        if type_ in callbacks:
            callbacks[type_] = CallChain(callbacks[type_], fn,
                                         lambda t, type_=type_: t.type == type_)
        else:
            callbacks[type_] = fn
    alternation = "|".join(f"(?P<{t.name}>{t.pattern.to_regexp()})" for t in terminals)
    mre = re.compile(r"\s*(?:" + alternation + ")", basic.g_regex_flags)
    return (mre,), frozenset(basic.ignore_types), callbacks


def _skip_blanks(text: str, pos: int) -> int:
    while pos < len(text) and text[pos].isspace():
        pos += 1
    return pos


def _reduction_callback(rule: Any, name: str, method: Callable[..., Any] | None
                        ) -> Callable[[list[Any]], Any]:
    """The function run when ``rule`` is reduced, generated for the rule.

    It does what Lark's ChildFilter + ExpandSingleChild + transformer call do for LALR with
    placeholders: drop filtered tokens, splice the children of inlined ``_rules``, insert
    ``None`` for missing ``[optional]`` parts, return a lone child of a ``?rule``, and call
    the builder method (or build a Tree for rules without one) — in one Python call."""
    opts = rule.options
    expansion = rule.expansion
    if opts.empty_indices:
        flags = "".join(str(int(b)) for b in opts.empty_indices)
        nones_at = [len(ones) for ones in flags.split("0")]
    else:
        nones_at = [0] * (len(expansion) + 1)
    parts: list[tuple[str, int]] = []  # ("none", k) | ("child", i) | ("splice", i)
    for i, sym in enumerate(expansion):
        if nones_at[i]:
            parts.append(("none", nones_at[i]))
        if opts.keep_all_tokens or not (sym.is_term and sym.filter_out):
            splice = not sym.is_term and sym.name.startswith("_")
            parts.append(("splice" if splice else "child", i))
    if nones_at[len(expansion)]:
        parts.append(("none", nones_at[len(expansion)]))
    expand1 = opts.expand1 and not rule.alias
    env: dict[str, Any] = {"m": method, "T": Tree, "name": name}
    lines = ["def cb(c):"]
    if not any(kind == "splice" for kind, _ in parts):
        args = []
        for kind, v in parts:
            args.extend(["None"] * v if kind == "none" else [f"c[{v}]"])
        if expand1 and len(args) == 1:
            lines.append(f"    return {args[0]}")
        elif method is not None:
            lines.append(f"    return m({', '.join(args)})")
        else:
            lines.append(f"    return T(name, [{', '.join(args)}])")
    else:
        first = True
        for kind, v in parts:
            if kind == "none":
                lines.append(("    f = " if first else "    f += ") + f"[None] * {v}")
            elif kind == "splice":
                # Reusing the first spliced list keeps left-recursive repetitions linear.
                lines.append(f"    f = c[{v}].children" if first else f"    f += c[{v}].children")
            else:
                lines.append(f"    f = [c[{v}]]" if first else f"    f.append(c[{v}])")
            first = False
        if first:
            lines.append("    f = []")
        if expand1:
            lines.append("    if len(f) == 1:\n        return f[0]")
        lines.append("    return m(*f)" if method is not None else "    return T(name, f)")
    exec("\n".join(lines), env)  # noqa: S102 — generated from the grammar, not from input
    return env["cb"]  # type: ignore[no-any-return]


def _passthrough(rule: Any) -> bool:
    """Whether reducing ``rule`` leaves its single child as the value (a ``?rule`` unit
    production whose child is kept): most reductions of an expression grammar."""
    opts = rule.options
    if not opts.expand1 or rule.alias or len(rule.expansion) != 1 or opts.keep_all_tokens:
        return False
    if any(opts.empty_indices or ()):
        return False
    sym = rule.expansion[0]
    if sym.is_term:
        return not sym.filter_out
    return not sym.name.startswith("_")


def _outer(starts: list[Any], ends: list[Any]) -> tuple[Any, Any]:
    """The first start and last end among children, skipping empty (None) ones."""
    s0 = next((s for s in starts if s is not None), None)
    e0 = next((e for e in reversed(ends) if e is not None), None)
    return s0, e0
