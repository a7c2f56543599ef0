"""``tsqlbroker parse FILE… [--ast]``: syntax-check scripts batch by batch.

Every syntax error of every batch is reported (a batch stops at its first error, as SQL
Server's does, but the following batches are still checked), each prefixed ``file:line:``.
"""

from __future__ import annotations

import dataclasses
from typing import Any, TextIO

from tsqlbroker.errors import ParseError
from tsqlbroker.grammar import ast
from tsqlbroker.grammar.parser import parse_batch, split_batches
from tsqlbroker.grammar.scriptfile import ScriptEncodingError, read_script


def check_files(paths: list[str], show_ast: bool, out: TextIO, err: TextIO) -> int:
    """Parse each file; report errors on ``err`` and (with ``show_ast``) ASTs on ``out``.

    Returns 0 when every batch of every file parses, else 1."""
    status = 0
    for path in paths:
        try:
            text = read_script(path)
        except OSError as e:
            err.write(f"{path}: cannot read file: {e.strerror or e}\n")
            status = 1
            continue
        except ScriptEncodingError as e:
            err.write(f"{path}: cannot read file: {e.reason}\n")
            status = 1
            continue
        try:
            batches = split_batches(text)
        except ParseError as e:  # defensive: splitting does not raise today
            err.write(f"{path}:{e.line}: {e.render()}\n")
            status = 1
            continue
        for number, b in enumerate(batches, 1):
            try:
                batch = parse_batch(b.text, b.start_line, b.repeat)
            except ParseError as e:
                err.write(f"{path}:{e.line}: {e.render()}\n")
                status = 1
                continue
            if show_ast:
                out.write(f"-- {path}: batch {number} (line {b.start_line}"
                          f"{', GO ' + str(b.repeat) if b.repeat != 1 else ''})\n")
                out.writelines(format_node(stmt) + "\n" for stmt in batch.statements)
    return status


def format_node(node: Any, indent: int = 0) -> str:
    """An indented, readable rendering of an AST node (fields with default values omitted)."""
    pad = "  " * indent
    if isinstance(node, ast.Node):
        fields = []
        for f in dataclasses.fields(node):
            if f.name in ("span", "sql", "source"):
                continue
            value = getattr(node, f.name)
            if value == f.default or (value == () and f.default is dataclasses.MISSING):
                continue
            fields.append((f.name, value))
        line = f"{type(node).__name__}"
        if getattr(node, "span", None) is not None and isinstance(node, ast.Stmt):
            line += f"  @line {node.span.line}"
        simple = [(k, v) for k, v in fields if not _complex(v)]
        nested = [(k, v) for k, v in fields if _complex(v)]
        if simple:
            line += "(" + ", ".join(f"{k}={_short(v)}" for k, v in simple) + ")"
        parts = [pad + line]
        for k, v in nested:
            parts.append(f"{pad}  {k}:")
            items = v if isinstance(v, tuple) else (v,)
            for item in items:
                parts.append(format_node(item, indent + 2))
        return "\n".join(parts)
    if isinstance(node, tuple):
        return "\n".join(format_node(x, indent) for x in node)
    return pad + _short(node)


def _complex(v: Any) -> bool:
    if isinstance(v, ast.Node) and not isinstance(v, (ast.ObjectName, ast.DataType)):
        return True
    return isinstance(v, tuple) and any(_complex(x) or isinstance(x, tuple) for x in v)


def _short(v: Any) -> str:
    if isinstance(v, ast.ObjectName):
        return ".".join(p if p is not None else "" for p in v.parts() if p is not None) \
            if v.database is None or v.schema is not None else f"{v.database}..{v.name}"
    if isinstance(v, ast.DataType):
        args = f"({', '.join(str(a) for a in v.args)})" if v.args else ""
        return v.name + args
    if isinstance(v, tuple):
        return "(" + ", ".join(_short(x) for x in v) + ("," if len(v) == 1 else "") + ")"
    return repr(v)
