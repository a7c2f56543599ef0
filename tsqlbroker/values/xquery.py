"""Translate the XQuery subset used with the xml methods into XPath 1.0 for lxml.

Supported: prologs (``declare default element namespace "…";``, ``declare namespace p="…";``),
paths with ``/ // . .. @ * [predicates]``, axes, ``text() node() data() string() count()
sum() local-name() …``, value comparisons (``eq ne lt le gt ge``) and general comparisons,
``and or not()``, arithmetic, ``sql:variable("@v")`` and ``sql:column("c")`` (bound as XPath
variables and resolved per evaluation). Absolute paths start at the xml value's own root,
which is bound as ``$__r`` because a value may be a fragment with several top-level nodes.

Also decides, as SQL Server's static typing does, whether an expression is a singleton — the
rule behind Msg 2389 for ``value()``.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from functools import lru_cache

from tsqlbroker.errors import tsql_error

DEFAULT_PREFIX = "__d"
ROOT_VAR = "__r"

_TOKEN = re.compile(
    r"""\s*(?:
        (?P<comment>\(:.*?:\))
      | (?P<string>"(?:[^"]++|"")*+"|'(?:[^']++|'')*+')
      | (?P<number>\d+(?:\.\d*)?(?:[eE][+-]?\d+)?|\.\d+)
      | (?P<name_wild>\*:[A-Za-z_][\w.\-]*)
      | (?P<op>//|::|\.\.|!=|<=|>=|:=|[/\[\]()@,=<>|+\-*.$;{}])
      | (?P<name>(?:[A-Za-z_][\w.\-]*:)?(?:[A-Za-z_][\w.\-]*|\*))
    )""",
    re.VERBOSE | re.DOTALL,
)
_KEYWORD_OPS = {"and": "and", "or": "or", "div": "div", "mod": "mod", "idiv": "div",
                "eq": "=", "ne": "!=", "lt": "<", "le": "<=", "gt": ">", "ge": ">="}
_NODE_TESTS = frozenset({"text", "node", "comment", "processing-instruction"})
_AXES = frozenset({"child", "descendant", "descendant-or-self", "self", "parent", "ancestor",
                   "ancestor-or-self", "attribute", "following-sibling", "preceding-sibling",
                   "following", "preceding"})
# XQuery functions → XPath 1.0 text (None: drop the function name, keep the parentheses)
_FUNCTIONS: dict[str, str | None] = {
    "data": None, "string": "string", "count": "count", "sum": "sum",
    "local-name": "local-name", "name": "name", "namespace-uri": "namespace-uri",
    "number": "number", "concat": "concat", "contains": "contains",
    "starts-with": "starts-with", "substring": "substring", "string-length": "string-length",
    "normalize-space": "normalize-space", "not": "not", "true": "true", "false": "false",
    "position": "position", "last": "last", "floor": "floor", "ceiling": "ceiling",
    "round": "round", "boolean": "boolean", "exists": "boolean", "empty": "not",
    "translate": "translate", "substring-before": "substring-before",
    "substring-after": "substring-after", "lang": "lang", "id": "id",
    "xs:string": "string", "xs:int": "number", "xs:integer": "number", "xs:decimal": "number",
    "xs:double": "number", "xs:float": "number", "xs:boolean": "boolean",
    "avg": None, "max": None, "min": None, "distinct-values": None, "upper-case": None,
    "lower-case": None,
}
# Functions whose result is one atomic value whatever their argument.
_ATOMIC = frozenset({"string", "count", "sum", "local-name", "name", "namespace-uri",
                     "number", "concat", "contains", "starts-with", "substring",
                     "string-length", "normalize-space", "not", "true", "false", "boolean",
                     "exists", "empty", "floor", "ceiling", "round", "translate",
                     "substring-before", "substring-after", "avg", "max", "min",
                     "upper-case", "lower-case", "position", "last", "xs:string", "xs:int",
                     "xs:integer", "xs:decimal", "xs:double", "xs:float", "xs:boolean"})
_UPPER = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
_LOWER = "abcdefghijklmnopqrstuvwxyz"


@dataclass(frozen=True)
class Translated:
    """An XQuery turned into XPath: the text, its namespaces, the sql:variable/sql:column
    references (bound as ``$__v0``, ``$__v1`` …) and whether it is statically a singleton."""

    xpath: str
    namespaces: tuple[tuple[str, str], ...]
    externals: tuple[tuple[str, str], ...]
    singleton: bool
    aggregate: str | None = None  # avg/max/min over the node-set, done in Python
    atomize: bool = False  # data(…): the result is atomic values, not nodes


@dataclass
class _Tok:
    kind: str
    text: str
    as_name: bool = False  # a name used as a name test (so 'and', 'div' … are names here)


def _tokenize(query: str, method: str) -> list[_Tok]:
    toks: list[_Tok] = []
    pos = 0
    q = query.rstrip()
    while pos < len(q):
        m = _TOKEN.match(q, pos)
        if not m or m.end() == pos:
            raise tsql_error(2209, method, q[pos:pos + 10].strip() or q[pos:])
        pos = m.end()
        kind = m.lastgroup or ""
        if kind == "comment":
            continue
        text = m.group(kind)
        toks.append(_Tok("name" if kind == "name_wild" else kind, text))
    return toks


def _unquote(s: str) -> str:
    return s[1:-1].replace(s[0] * 2, s[0])


def _prolog(toks: list[_Tok], ns: dict[str, str], method: str) -> list[_Tok]:
    """Consume ``declare … ;`` declarations, filling ``ns``."""
    i = 0
    while i < len(toks) and toks[i].kind == "name" and toks[i].text == "declare":
        j = i + 1
        words = []
        while j < len(toks) and toks[j].text != ";":
            words.append(toks[j])
            j += 1
        if j >= len(toks):
            raise tsql_error(2209, method, "declare")
        texts = [w.text for w in words]
        if texts[:3] == ["default", "element", "namespace"] and len(words) == 4:
            ns[""] = _unquote(words[3].text)
        elif texts[:1] == ["namespace"] and len(words) == 4 and texts[2] == "=":
            ns[texts[1]] = _unquote(words[3].text)
        else:
            raise tsql_error(2209, method, " ".join(texts[:2]))
        i = j + 1
    return toks[i:]


def _ends_operand(prev: _Tok | None) -> bool:
    if prev is None:
        return False
    if prev.kind in ("string", "number"):
        return True
    if prev.kind == "op":
        return prev.text in (")", "]", ".", "..")
    if prev.kind == "name":
        return prev.text not in _KEYWORD_OPS or prev.as_name
    return False


def _translate_tokens(toks: list[_Tok], ns: dict[str, str], method: str
                      ) -> tuple[str, list[tuple[str, str]]]:
    out: list[str] = []
    externals: list[tuple[str, str]] = []
    prev: _Tok | None = None
    after_attr = False
    i = 0
    closers: list[str] = []  # what to emit at each ')' (for rewritten functions)
    while i < len(toks):
        t = toks[i]
        nxt = toks[i + 1] if i + 1 < len(toks) else None
        if t.kind == "op":
            if t.text in ("/", "//") and not _ends_operand(prev):
                out.append("$" + ROOT_VAR)  # absolute path: from the value's own root
                if nxt is None or (nxt.kind == "op" and nxt.text in (")", "]", ",")):
                    prev = _Tok("op", ")")
                    i += 1
                    continue
            if t.text == "*" and not _ends_operand(prev):
                out.append(f"{DEFAULT_PREFIX}:*" if "" in ns and not after_attr else "*")
                after_attr = False
                prev = _Tok("op", ")")
                i += 1
                continue
            if t.text == "(":
                closers.append(")")
            if t.text == ")":
                out.append(closers.pop() if closers else ")")
                prev = t
                i += 1
                continue
            after_attr = t.text == "@"
            if t.text == "::":
                after_attr = prev is not None and prev.text == "attribute"
            out.append(t.text if t.text not in ("=", "!=", "<", ">", "<=", ">=", "|") else
                       f" {t.text} ")
            prev = t
            i += 1
            continue
        if t.kind in ("string",):
            s = _unquote(t.text)
            out.append("'" + s + "'" if "'" not in s else '"' + s + '"')
            prev = t
            i += 1
            continue
        if t.kind == "number":
            out.append(t.text)
            prev = t
            i += 1
            continue
        name = t.text
        if name in _KEYWORD_OPS and _ends_operand(prev):
            out.append(f" {_KEYWORD_OPS[name]} ")
            prev = _Tok("op", "=")
            i += 1
            continue
        if nxt is not None and nxt.kind == "op" and nxt.text == "(":
            fname = name.removeprefix("fn:")
            if fname in ("sql:variable", "sql:column"):
                if i + 3 >= len(toks) or toks[i + 2].kind != "string" or toks[i + 3].text != ")":
                    raise tsql_error(2209, method, name)
                externals.append((fname[4:], _unquote(toks[i + 2].text)))
                out.append(f"$__v{len(externals) - 1}")
                prev = _Tok("name", "v")
                i += 4
                continue
            if fname in _NODE_TESTS:
                out.append(fname + "(")
                closers.append(")")
                prev = _Tok("op", "(")
                i += 2
                continue
            if fname in ("upper-case", "lower-case"):
                src, dst = (_LOWER, _UPPER) if fname == "upper-case" else (_UPPER, _LOWER)
                out.append("translate(")
                closers.append(f", '{src}', '{dst}')")
                prev = _Tok("op", "(")
                i += 2
                continue
            if fname not in _FUNCTIONS:
                raise tsql_error(2395, method, fname)
            mapped = _FUNCTIONS[fname]
            out.append((mapped or "") + "(")
            closers.append(")")
            prev = _Tok("op", "(")
            i += 2
            continue
        if nxt is not None and nxt.kind == "op" and nxt.text == "::" and name in _AXES:
            out.append(name)
            prev = _Tok("op", "::")
            after_attr = name == "attribute"
            i += 1
            continue
        if prev is not None and prev.text == "$":
            out.append(name)
            prev = t
            i += 1
            continue
        # a name test
        if name.startswith("*:"):  # any namespace: XPath 1.0 spells it with local-name()
            out.append(f"*[local-name()='{name[2:]}']")
        elif ":" not in name and "" in ns and not after_attr:
            out.append(f"{DEFAULT_PREFIX}:{name}")
        else:
            out.append(name)
        after_attr = False
        prev = _Tok("name", name, as_name=True)
        i += 1
    return "".join(out).strip(), externals


def _split_top(toks: list[_Tok], sep: set[str]) -> list[list[_Tok]]:
    parts: list[list[_Tok]] = [[]]
    depth = 0
    for t in toks:
        if t.kind == "op" and t.text in ("(", "["):
            depth += 1
        elif t.kind == "op" and t.text in (")", "]"):
            depth -= 1
        if depth == 0 and t.kind == "op" and t.text in sep:
            parts.append([t])
            parts.append([])
            continue
        parts[-1].append(t)
    return parts


def _is_singleton(toks: list[_Tok]) -> bool:
    """SQL Server's static check: may this expression yield more than one item?"""
    if not toks:
        return True
    if len(toks) == 1 and toks[0].kind in ("string", "number"):
        return True
    # a top-level comparison or arithmetic yields one value
    depth = 0
    for t in toks:
        if t.kind == "op" and t.text in ("(", "["):
            depth += 1
        elif t.kind == "op" and t.text in (")", "]"):
            depth -= 1
        elif depth == 0 and (t.kind == "op" and t.text in ("=", "!=", "<", ">", "<=", ">=",
                                                            "+", "-") or
                             t.kind == "name" and t.text in _KEYWORD_OPS):
            return True
    first = toks[0]
    fname = first.text.removeprefix("fn:")
    if first.kind == "name" and len(toks) > 1 and toks[1].text == "(" and _closes_at_end(toks, 1):
        if fname in _ATOMIC or fname in ("sql:variable", "sql:column"):
            return True
        if fname == "data":
            return _is_singleton(toks[2:-1])
    steps = _split_top(toks, {"/", "//"})
    single = True
    for idx, step in enumerate(steps):
        if not step:
            continue
        if step[0].kind == "op" and step[0].text == "//":
            single = False
            continue
        if step[0].kind == "op" and step[0].text == "/":
            continue
        if _ends_with_position(step):
            single = True
            continue
        if step[0].kind == "op" and step[0].text == "(" and _closes_at_end(step, 0):
            single = single and _is_singleton(step[1:-1])
            continue
        if len(step) == 1 and step[0].text in (".", ".."):
            continue
        if step[0].text == "@" or (step[0].text == "attribute" and len(step) > 1
                                   and step[1].text == "::"):
            continue
        single = False
    return single


def _closes_at_end(toks: list[_Tok], open_idx: int) -> bool:
    depth = 0
    for k in range(open_idx, len(toks)):
        if toks[k].text == "(" and toks[k].kind == "op":
            depth += 1
        elif toks[k].text == ")" and toks[k].kind == "op":
            depth -= 1
            if depth == 0:
                return k == len(toks) - 1
    return False


def _ends_with_position(step: list[_Tok]) -> bool:
    """``x[1]``, ``(…)[2]``, ``x[last()]``: a positional last predicate."""
    if len(step) >= 3 and step[-1].text == "]":
        if step[-2].kind == "number" and step[-3].text == "[":
            return True
        if len(step) >= 5 and [t.text for t in step[-5:]] == ["[", "last", "(", ")", "]"]:
            return True
    return False


@lru_cache(maxsize=512)
def translate(query: str, namespaces: tuple[tuple[str, str], ...] = (),
              method: str = "value()") -> Translated:
    """Translate ``query`` (with WITH XMLNAMESPACES pairs, '' = default) to XPath 1.0."""
    ns = dict(namespaces)
    toks = _prolog(_tokenize(query, method), ns, method)
    if not toks:
        raise tsql_error(2209, method, query.strip() or ")")
    if toks[0].kind == "name" and toks[0].text in ("for", "let") and len(toks) > 1 \
            and toks[1].text == "$":
        raise tsql_error(2209, method, toks[0].text)
    aggregate = None
    first = toks[0].text.removeprefix("fn:")
    if first in ("avg", "max", "min", "distinct-values") and len(toks) > 2 \
            and toks[1].text == "(" and _closes_at_end(toks, 1):
        aggregate = first
    atomize = first == "data" and len(toks) > 2 and toks[1].text == "(" and \
        _closes_at_end(toks, 1)
    xpath, externals = _translate_tokens(toks, ns, method)
    xp_ns = tuple((DEFAULT_PREFIX if p == "" else p, u) for p, u in sorted(ns.items()))
    return Translated(xpath, xp_ns, tuple(externals), _is_singleton(toks), aggregate, atomize)


def namespace_pairs(spec: str | None) -> tuple[tuple[str, str], ...]:
    """A statement's ``WITH XMLNAMESPACES`` declarations as the XML methods receive them
    (``'p=urn:a;=urn:default'``, see engine/parsing.py) → (prefix, uri) pairs, '' = default."""
    out: dict[str, str] = {}
    for part in (spec or "").split(";"):
        if "=" in part:
            k, _, v = part.partition("=")
            out[k.strip()] = v.strip()
    return tuple(out.items())


def translation_json(query: str, method: str,
                     namespaces: tuple[tuple[str, str], ...] = ()) -> str:
    """:func:`translate` of an xml method's query (with the statement's WITH XMLNAMESPACES
    pairs) as JSON (``xpath``, ``namespaces``, ``externals``, ``singleton``, ``aggregate``):
    PostgreSQL runs the XPath with ``xpath()`` (storage/backends/postgres/xml_methods.py);
    raises the XQuery errors (Msg 2209, 2395 …)."""
    tr = translate(query, tuple(sorted(namespaces)), method)
    return json.dumps({"xpath": tr.xpath, "namespaces": [list(p) for p in tr.namespaces],
                       "externals": [list(e) for e in tr.externals],
                       "singleton": tr.singleton, "aggregate": tr.aggregate})
