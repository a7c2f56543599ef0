"""The driver's parse tables as plain data, cached on disk so that start-up skips Lark.

Loading the grammar through Lark (even from Lark's own cache) rebuilds Lark's parse table,
its 500-odd contextual lexers and a tree builder the driver never uses: about half a second
of a ``tsqlbroker -Q "PRINT 1"`` run. :class:`Tables` keeps only what the driver reads — the
LALR action rows, per rule the reduction shape (as marshalled bytecode), the contextual
lexers as regex *source* (compiled lazily, per lexer, on first use) and the terminals'
display forms for error messages — in one ``marshal`` file keyed by a hash of the grammar
fragments, of the modules that derive the tables and of the Lark and Python versions.
"""

from __future__ import annotations

import hashlib
import marshal
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tsqlbroker.codecache import CACHE_ENV, cache_dir, prune, read_verified, write_signed

from .sre_image import image

FORMAT = 3
__all__ = ["CACHE_ENV", "Tables", "cache_dir", "cache_key", "from_lark", "load", "load_shipped",
           "save", "shipped_path"]

# One lexer: (alternation regex source, regex flags, ignored types, callbacks) where each
# callback is (token type, keyword-alternation source or None, its flags, has user callback).
LexerSpec = tuple[str, int, tuple[str, ...], tuple[tuple[str, str | None, int, bool], ...]]
# One rule: (expansion length, origin name, builder name, passthrough, had a builder method,
# index of its reduction shape).
RuleSpec = tuple[int, str, str, bool, bool, int]


@dataclass
class Tables:
    """Everything :class:`~tsqlbroker.grammar.driver.Driver` needs, as plain values."""

    start_state: int
    end_state: int
    # Per parser state, its row symbol -> (True, next state) | (False, rule index), as
    # marshal bytes decoded on first use (a run visits a fraction of the ~2800 states).
    actions: list[bytes]
    rules: list[RuleSpec]
    shapes: Any  # code object of a module defining ``F``: one factory per reduction shape
    kept_types: frozenset[str]
    state_lexer: dict[int, int]  # parser state -> index into lexers
    root_lexer: int
    # marshal bytes of a LexerSpec + the sre images of its regexes, decoded on first use
    lexers: list[bytes]
    terminals: dict[str, tuple[str, str]]  # name -> (pattern type "str"/"re", value)

    def to_bytes(self) -> bytes:
        return marshal.dumps((FORMAT, self.start_state, self.end_state, self.actions,
                              self.rules, self.shapes, self.kept_types, self.state_lexer,
                              self.root_lexer, self.lexers, self.terminals))

    @classmethod
    def from_bytes(cls, data: bytes) -> Tables:
        fields = marshal.loads(data)  # verified by read_verified: written by this user
        if fields[0] != FORMAT:
            raise ValueError("grammar cache format")
        return cls(*fields[1:])


def cache_key(grammar: str, lark_version: str) -> str:
    """The hash naming the cache file: grammar text, the grammar package's code, Lark and
    Python (marshal data is Python-version specific)."""
    h = hashlib.sha256()
    for part in (grammar, lark_version, sys.version, str(FORMAT)):
        h.update(part.encode("utf-8"))
        h.update(b"\0")
    # The grammar package's code too: the builder's methods decide each reduction's shape.
    for path in sorted(Path(__file__).resolve().parent.glob("*.py")):
        h.update(path.read_bytes())
    return h.hexdigest()[:32]


def load(key: str) -> Tables | None:
    """The cached tables for ``key``, or None (missing, unreadable or stale format)."""
    data = read_verified(cache_dir() / f"grammar-{key}.hmac")
    if data is None:
        return None
    try:
        return Tables.from_bytes(data)
    except (ValueError, EOFError, TypeError, IndexError):
        return None


def shipped_path(key: str, directory: Path | None = None) -> Path:
    """Where an installed package keeps the tables its build made (``setup.py``'s
    ``build_py``): beside this module, as trusted as the code itself. A first run after
    install then finds them instead of spending seconds in Lark."""
    return (directory or Path(__file__).resolve().parent) / f"tables-{key}.bin"


def load_shipped(key: str) -> Tables | None:
    """The tables shipped with the package for ``key``, or None (none built, or built for
    another grammar, Lark or Python)."""
    try:
        return Tables.from_bytes(shipped_path(key).read_bytes())
    except (OSError, ValueError, EOFError, TypeError):
        return None


def save(key: str, tables: Tables) -> None:
    """Write the cache atomically; a read-only or missing cache directory is no error."""
    directory = cache_dir()
    write_signed(directory / f"grammar-{key}.hmac", tables.to_bytes())
    # Tables of other grammars or code: the recent ones kept (another checkout or version
    # may be running), the rest must not pile up.
    prune(directory / f"grammar-{key}.hmac", "grammar-*.hmac")


def _with_images(spec: LexerSpec) -> tuple[Any, ...]:
    """A lexer spec plus the compiled images of its regexes (main, then per callback)."""
    pattern, flags, _ignore, callbacks = spec
    return (*spec, image(pattern, flags),
            tuple(None if kw is None else image(kw, kw_flags)
                  for _type, kw, kw_flags, _user in callbacks))


def from_lark(lark: Any, builder_factory: Any) -> Tables:
    """Derive the tables from a built Lark LALR parser with a contextual lexer."""
    # start-up laziness: Lark loads only when the tables are derived
    from lark.parsers.lalr_analysis import Shift

    frontend = lark.parser
    table = frontend.parser._parse_table
    rules = lark.rules
    rule_index = {rule: i for i, rule in enumerate(rules)}
    actions = [marshal.dumps({}) for _ in range(max(table.states) + 1)]
    for state, row in table.states.items():
        actions[state] = marshal.dumps({sym: (True, arg) if action is Shift
                                        else (False, rule_index[arg])
                                        for sym, (action, arg) in row.items()})
    builder = builder_factory()
    bodies: dict[str, int] = {}
    specs: list[RuleSpec] = []
    for rule in rules:
        name = builder_name(rule)
        has_method = not name.startswith("_") and getattr(builder, name, None) is not None
        body = reduction_source(rule, has_method)
        shape = bodies.setdefault(body, len(bodies))
        # str(): a freshly built Lark names rules with Token (a str subclass marshal refuses);
        # only a Lark loaded from its own cache has plain strings there.
        specs.append((len(rule.expansion), str(rule.origin.name), str(name),
                      is_passthrough(rule), has_method, shape))
    source = ["F = []"]
    for body in bodies:  # insertion order = shape index
        source.append("def _f(m, T, name):\n" + body.replace("\n", "\n    ").join(
            ["    ", "\n    return cb"]))
        source.append("F.append(_f)")
    shapes = compile("\n".join(source), "<tsqlbroker reduction shapes>", "exec")
    kept = frozenset(sym.name for rule in rules for sym in rule.expansion
                     if sym.is_term and (rule.options.keep_all_tokens or not sym.filter_out))
    lexers: list[bytes] = []
    by_id: dict[int, int] = {}

    def index_of(basic: Any) -> int:
        if id(basic) not in by_id:
            by_id[id(basic)] = len(lexers)
            lexers.append(marshal.dumps(_with_images(lexer_spec(basic))))
        return by_id[id(basic)]

    state_lexer = {state: index_of(basic) for state, basic in frontend.lexer.lexers.items()}
    root = index_of(frontend.lexer.root_lexer)
    terminals = {t.name: (t.pattern.type, t.pattern.value) for t in lark.terminals}
    return Tables(table.start_states["start"], table.end_states["start"], actions, specs,
                  shapes, kept, state_lexer, root, lexers, terminals)


def lexer_spec(basic: Any) -> LexerSpec:
    """The spec of one of Lark's per-state lexers: its scanner as one alternation that also
    skips the blanks before the token (one regex call per token), and its callbacks.

    Built as Lark builds its scanner: string terminals that the NAME-like regex terminals
    also match become "unless" callbacks (a NAME spelled as a keyword becomes the keyword),
    and a user callback runs after one that left the type alone."""
    # start-up laziness: Lark loads only when the tables are derived
    from lark.lexer import _create_unless

    terminals, unless = _create_unless(basic.terminals, basic.g_regex_flags, basic.re,
                                       basic.use_bytes)
    alternation = "|".join(f"(?P<{t.name}>{t.pattern.to_regexp()})" for t in terminals)
    callbacks = []
    for type_ in sorted(set(unless) | set(basic.user_callbacks)):
        has_user = type_ in basic.user_callbacks
        if type_ in unless:
            scanner = unless[type_].scanner
            keywords = "|".join(f"(?P<{t.name}>{t.pattern.to_regexp()})"
                                for t in scanner.terminals)
            callbacks.append((type_, keywords, int(scanner.g_regex_flags), has_user))
        else:
            callbacks.append((type_, None, 0, has_user))
    return (r"\s*(?:" + alternation + ")", int(basic.g_regex_flags),
            tuple(sorted(basic.ignore_types)), tuple(callbacks))


def builder_name(rule: Any) -> str:
    """The name of the builder method that ``rule`` reduces through."""
    return rule.alias or rule.options.template_source or rule.origin.name  # type: ignore


def reduction_source(rule: Any, has_method: bool) -> str:
    """The source of ``cb(c)``, the function run when ``rule`` is reduced (it calls ``m``,
    the builder method, or builds ``T(name, …)`` for rules without one).

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
    lines = ["def cb(c):"]
    if not any(kind == "splice" for kind, _ in parts):
        args = []
        for kind, v in parts:
            args.extend(["None"] * v if kind == "none" else [f"c[{v}]"])
        if expand1 and len(args) == 1:
            lines.append(f"    return {args[0]}")
        elif has_method:
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
        lines.append("    return m(*f)" if has_method else "    return T(name, f)")
    return "\n".join(lines)


def is_passthrough(rule: Any) -> bool:
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
