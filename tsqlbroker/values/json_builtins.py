"""JSON built-ins: ISJSON, JSON_VALUE, JSON_QUERY, JSON_MODIFY.

JSON text stays text (nvarchar), as in SQL Server. A small parser keeps the source span of
every value so that JSON_QUERY returns fragments exactly as written and JSON_MODIFY edits the
text in place, leaving the rest of the document untouched. Paths: ``$``, ``.key``,
``."quoted key"``, ``[n]``, with an optional ``lax`` (default) or ``strict`` prefix.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from tsqlbroker.errors import tsql_error
from tsqlbroker.values.string_builtins import as_string
from tsqlbroker.values.types import INT, NVARCHAR_MAX, SqlType, nvarchar

Bound = tuple[SqlType, Callable[..., Any]]
Types = list[SqlType]
Consts = list[Any]


@dataclass
class Node:
    """A parsed JSON value with its span in the source text."""

    kind: str  # object | array | string | number | true | false | null
    start: int
    end: int
    value: Any = None  # str for string/number text; dict for object; list for array
    members: list[tuple[str, Node, int]] = field(default_factory=list)  # (key, value, key start)


_WS = " \t\r\n"
_NUMBER = re.compile(r"-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?")
_STRING = re.compile(r'"(?:[^"\\\x00-\x1f]++|\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4}))*+"')


class _Bad(Exception):
    def __init__(self, pos: int, ch: str) -> None:
        super().__init__(pos)
        self.pos, self.ch = pos, ch


def _skip(text: str, i: int) -> int:
    while i < len(text) and text[i] in _WS:
        i += 1
    return i


def _value(text: str, i: int) -> Node:
    i = _skip(text, i)
    if i >= len(text):
        raise _Bad(i, "")
    c = text[i]
    if c == "{":
        node = Node("object", i, i, {})
        i = _skip(text, i + 1)
        if i < len(text) and text[i] == "}":
            node.end = i + 1
            return node
        while True:
            i = _skip(text, i)
            m = _STRING.match(text, i)
            if not m:
                raise _Bad(i, text[i:i + 1])
            key = json.loads(m.group(0))
            key_start = i
            i = _skip(text, m.end())
            if i >= len(text) or text[i] != ":":
                raise _Bad(i, text[i:i + 1])
            child = _value(text, i + 1)
            node.members.append((key, child, key_start))
            node.value.setdefault(key, child)
            i = _skip(text, child.end)
            if i < len(text) and text[i] == ",":
                i += 1
                continue
            if i < len(text) and text[i] == "}":
                node.end = i + 1
                return node
            raise _Bad(i, text[i:i + 1])
    if c == "[":
        node = Node("array", i, i, [])
        i = _skip(text, i + 1)
        if i < len(text) and text[i] == "]":
            node.end = i + 1
            return node
        while True:
            child = _value(text, i)
            node.value.append(child)
            i = _skip(text, child.end)
            if i < len(text) and text[i] == ",":
                i += 1
                continue
            if i < len(text) and text[i] == "]":
                node.end = i + 1
                return node
            raise _Bad(i, text[i:i + 1])
    if c == '"':
        m = _STRING.match(text, i)
        if not m:
            raise _Bad(i, c)
        return Node("string", i, m.end(), json.loads(m.group(0)))
    for word in ("true", "false", "null"):
        if text.startswith(word, i):
            return Node(word, i, i + len(word), word)
    m = _NUMBER.match(text, i)
    if m and m.end() > i:
        return Node("number", i, m.end(), m.group(0))
    raise _Bad(i, c)


def parse(text: str) -> Node:
    """Parse JSON text (Msg 13609 when malformed)."""
    try:
        node = _value(text, 0)
        end = _skip(text, node.end)
        if end != len(text):
            raise _Bad(end, text[end:end + 1])
        return node
    except _Bad as e:
        raise tsql_error(13609, e.ch, e.pos) from None


def is_json(text: str, kind: str = "OBJECT_OR_ARRAY") -> bool:
    """ISJSON(text[, VALUE|OBJECT|ARRAY|SCALAR]): valid JSON of that kind (by default an
    object or an array)."""
    try:
        node = _value(text, 0)
    except _Bad:
        return False
    if _skip(text, node.end) != len(text):
        return False
    wanted = {"OBJECT_OR_ARRAY": ("object", "array"), "OBJECT": ("object",),
              "ARRAY": ("array",), "SCALAR": ("string", "number")}.get(kind)
    return wanted is None or node.kind in wanted


_STEP = re.compile(r'\.(?:"((?:[^"\\]|\\.)*)"|([A-Za-z_$][\w$]*))|\[\s*(\d+)\s*\]')


def parse_path(path: str) -> tuple[bool, list[str | int]]:
    """``[lax|strict] $.a."b c"[0]`` → (strict, ['a', 'b c', 0]) (Msg 13607 when malformed)."""
    p = path.strip()
    strict = False
    low = p.lower()
    if low.startswith("strict "):
        strict, p = True, p[7:].lstrip()
    elif low.startswith("lax "):
        p = p[4:].lstrip()
    if not p.startswith("$"):
        raise tsql_error(13607, p[:1], 1)
    steps: list[str | int] = []
    i = 1
    while i < len(p):
        m = _STEP.match(p, i)
        if not m:
            raise tsql_error(13607, p[i:i + 1], i + 1)
        if m.group(3) is not None:
            steps.append(int(m.group(3)))
        else:
            steps.append(json.loads(f'"{m.group(1)}"') if m.group(1) is not None
                         else m.group(2))
        i = m.end()
    return strict, steps


def _walk(node: Node, steps: list[str | int]) -> Node | None:
    cur: Node | None = node
    for s in steps:
        if cur is None:
            return None
        if isinstance(s, int):
            cur = cur.value[s] if cur.kind == "array" and s < len(cur.value) else None
        else:
            cur = cur.value.get(s) if cur.kind == "object" else None
    return cur


def json_value(text: str, path: str) -> str | None:
    """JSON_VALUE: the scalar at ``path`` as text; NULL (lax) or an error (strict) otherwise."""
    strict, steps = parse_path(path)
    node = _walk(parse(text), steps)
    if node is None:
        if strict:
            raise tsql_error(13608)
        return None
    if node.kind in ("object", "array"):
        if strict:
            raise tsql_error(13623)
        return None
    if node.kind == "null":
        return None
    if len(str(node.value)) > 4000:
        if strict:
            raise tsql_error(13625)
        return None
    return str(node.value)


def json_query(text: str, path: str = "$") -> str | None:
    """JSON_QUERY: the object or array at ``path``, as written in the source."""
    strict, steps = parse_path(path)
    node = _walk(parse(text), steps)
    if node is None or node.kind not in ("object", "array"):
        if strict:
            raise tsql_error(13608 if node is None else 13624)
        return None
    return text[node.start:node.end]


def _literal(value: Any, as_json: bool) -> str:
    if value is None:
        return "null"
    if as_json:
        return str(value)
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)) or type(value).__name__ == "Decimal":
        return str(value)
    return json.dumps(str(value), ensure_ascii=False).replace("/", "\\/")


def json_modify(text: str, path: str, new: Any, new_is_json: bool = False) -> str:
    """JSON_MODIFY: set, add, append (``append $.a``) or, with NULL in lax mode, delete."""
    p = path.strip()
    append = False
    low = p.lower()
    for prefix in ("append ", "lax append ", "strict append "):
        if low.startswith(prefix):
            append = True
            p = p[:len(prefix) - 7] + p[len(prefix):]
            break
    strict, steps = parse_path(p)
    root = parse(text)
    if not steps:
        return _literal(new, new_is_json) if new is not None else text
    parent = _walk(root, steps[:-1])
    last = steps[-1]
    target = _walk(root, steps)
    lit = _literal(new, new_is_json)
    if append:
        if target is None or target.kind != "array":
            if strict:
                raise tsql_error(13608)
            return text
        close = target.end - 1
        sep = "," if target.value else ""
        return text[:close] + sep + lit + text[close:]
    if target is not None:
        if new is None and not strict and parent is not None and parent.kind == "object":
            return _delete_member(text, parent, last)
        return text[:target.start] + lit + text[target.end:]
    if strict or parent is None:
        if strict:
            raise tsql_error(13608)
        return text
    if new is None:
        return text
    if parent.kind == "object" and isinstance(last, str):
        close = parent.end - 1
        sep = "," if parent.members else ""
        return text[:close] + sep + json.dumps(last, ensure_ascii=False) + ":" + lit + \
            text[close:]
    return text


def _delete_member(text: str, obj: Node, key: Any) -> str:
    idx = next(i for i, (k, _v, _s) in enumerate(obj.members) if k == key)
    _k, value, key_start = obj.members[idx]
    if idx + 1 < len(obj.members):  # remove "key": value, up to the next key
        return text[:key_start] + text[obj.members[idx + 1][2]:]
    if idx > 0:  # last member: remove from the end of the previous value
        prev_end = obj.members[idx - 1][1].end
        return text[:prev_end] + text[value.end:]
    return text[:obj.start + 1] + text[obj.end - 1:]


# ------------------------------------------------------------------------------- binders
def _bind_isjson(types: Types, consts: Consts) -> Bound:
    s = as_string(types[0])
    k = as_string(types[1]) if len(types) > 1 else None

    def isjson(v: Any, kind: Any = "OBJECT_OR_ARRAY") -> Any:
        if v is None or kind is None:
            return None
        return int(is_json(s(v), (k(kind) if k else kind).upper()))
    return INT, isjson


def _bind_json_value(types: Types, consts: Consts) -> Bound:
    s, p = as_string(types[0]), as_string(types[1])
    return nvarchar(4000), lambda v, path: None if v is None or path is None else \
        json_value(s(v), p(path))


def _bind_json_query(types: Types, consts: Consts) -> Bound:
    s = as_string(types[0])
    p = as_string(types[1]) if len(types) > 1 else None

    def query(v: Any, path: Any = "$") -> Any:
        if v is None or path is None:
            return None
        return json_query(s(v), p(path) if p else "$")
    return NVARCHAR_MAX, query


def _bind_json_modify(types: Types, consts: Consts) -> Bound:
    s, p = as_string(types[0]), as_string(types[1])
    nt = types[2]
    conv = (lambda v: v) if (nt.is_numeric or nt.is_string or nt.is_null) else as_string(nt)

    def modify(v: Any, path: Any, new: Any) -> Any:
        if v is None or path is None:
            return None
        value = conv(new)
        if nt.name == "bit" and value is not None:
            value = bool(value)  # bit values are written as true / false
        return json_modify(s(v), p(path), value)
    return NVARCHAR_MAX, modify


def json_build(flags: str, values: list[Any], keys: list[Any] | None = None) -> str:
    """JSON_OBJECT (with ``keys``) / JSON_ARRAY text. ``flags`` (from the parser): ``a`` or
    ``n`` for ABSENT / NULL ON NULL, then ``j`` per value that is JSON already, else ``v``."""
    parts = []
    for i, value in enumerate(values):
        if value is None and flags[0] == "a":
            continue
        text = _literal(value, flags[i + 1] == "j")
        if keys is not None:
            text = _literal(str(keys[i]), False) + ":" + text
        parts.append(text)
    return ("{%s}" if keys is not None else "[%s]") % ",".join(parts)


# OPENJSON's type column: SQL Server's codes for each JSON kind.
_OPENJSON_TYPES = {"null": 0, "string": 1, "number": 2, "true": 3, "false": 3, "array": 4,
                   "object": 5}


def _scalar_text(text: str, node: Node) -> str | None:
    if node.kind == "null":
        return None
    if node.kind in ("object", "array"):
        return text[node.start:node.end]
    return str(node.value)


def openjson_column_path(name: str, path: str | None) -> str:
    """The path an OPENJSON WITH column reads: its own, else ``$.name``."""
    if path is not None:
        return path
    return "$." + (name if re.fullmatch(r"[A-Za-z_$][\w$]*", name) else json.dumps(name))


def openjson_rows(text: str | None, path: str | None = "$",
                  schema: list[tuple[str, str | None, bool]] | None = None) -> list[tuple]:
    """OPENJSON's rows. Without ``schema``: (key, value, type) per member of the object or
    element of the array at ``path``; with it (name, path or None for ``$.name``, AS JSON):
    one row per element (or the one object), each column JSON_VALUE / JSON_QUERY of it.
    Lax paths that lead nowhere give no rows; strict ones Msg 13608."""
    if text is None or path is None:
        return []
    strict, steps = parse_path(path)
    node = _walk(parse(text), steps)
    if node is None:
        if strict:
            raise tsql_error(13608)
        return []
    if schema is None:
        if node.kind == "object":
            items = [(k, v) for k, v, _ in node.members]
        elif node.kind == "array":
            items = [(str(i), v) for i, v in enumerate(node.value)]
        else:
            raise tsql_error(13611)
        return [(k, _scalar_text(text, v), _OPENJSON_TYPES[v.kind]) for k, v in items]
    elements = node.value if node.kind == "array" else [node]
    rows = []
    for element in elements:
        source = text[element.start:element.end]
        row = []
        for name, col_path, as_json in schema:
            p = openjson_column_path(name, col_path)
            row.append(json_query(source, p) if as_json else json_value(source, p)
                       if element.kind in ("object", "array") else None)
        rows.append(tuple(row))
    return rows


def _scalar_conv(t: SqlType) -> Callable[[Any], Any]:
    if t.name == "bit":
        return lambda v: None if v is None else bool(v)
    if t.is_numeric or t.is_string or t.is_null:
        return lambda v: v
    text = as_string(t)
    return lambda v: None if v is None else text(v)


def _check_flags(name: str, types: Types, consts: Consts) -> None:
    """The parser's flags (first argument): a constant ``a``/``n`` and one ``j``/``v`` per
    value; anything else did not come from JSON_OBJECT / JSON_ARRAY's syntax."""
    flags, values = consts[0], len(types) - 1
    if name == "JSON_OBJECT":
        values //= 2
    if not (isinstance(flags, str) and len(flags) == values + 1 and flags[:1] in ("a", "n")
            and set(flags[1:]) <= {"j", "v"}) or (name == "JSON_OBJECT" and len(types) % 2 == 0):
        raise tsql_error(174, name, len(types) - 1)


def _bind_json_object(types: Types, consts: Consts) -> Bound:
    _check_flags("JSON_OBJECT", types, consts)
    convs = [_scalar_conv(t) for t in types[1:]]

    def build(flags: str, *args: Any) -> str:
        vals = [c(a) for c, a in zip(convs, args, strict=True)]
        return json_build(flags, vals[1::2], vals[0::2])
    return NVARCHAR_MAX, build


def _bind_json_array(types: Types, consts: Consts) -> Bound:
    _check_flags("JSON_ARRAY", types, consts)
    convs = [_scalar_conv(t) for t in types[1:]]
    return NVARCHAR_MAX, lambda flags, *args: json_build(
        flags, [c(a) for c, a in zip(convs, args, strict=True)])


JSON_FUNCTIONS: dict[str, tuple[int, int, Callable[[Types, Consts], Bound], bool]] = {
    "isjson": (1, 2, _bind_isjson, True), "json_value": (2, 2, _bind_json_value, True),
    "json_query": (1, 2, _bind_json_query, True), "json_modify": (3, 3, _bind_json_modify, True),
    "json_object": (1, 2049, _bind_json_object, True),
    "json_array": (1, 2049, _bind_json_array, True),
}
