"""The layer rules of docs/ARCHITECTURE.md, checked on the syntax trees of tsqlbroker/.

Imports point down: errors ← values ← storage ← engine ← interpreter ← repl, the grammar
beside the engine (errors, values, codecache only), spark on the interpreter and below; no import
cycles (``if TYPE_CHECKING:`` imports included); no ``_private`` name imported from another
module; every import inside a function says ``start-up laziness`` in a comment on its line or
above the run of imports it belongs to; no backend name (``"sqlite"``, ``"postgresql"``, ``"postgres"``) as a string
outside ``storage/backends/``.

What today's tree still breaks is listed in the ``KNOWN_*`` tables below, each entry with why.
The test fails on a violation not listed and on a listed one that is gone (delete its entry:
the lists only shrink). ``python tests/test_layers.py`` prints the violations found, in the
tables' form.
"""

from __future__ import annotations

import ast
import functools
import sys
from collections import defaultdict
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PKG = "tsqlbroker"

# Layer of a module: its first package under tsqlbroker/ (top-level modules by name).
LAYER_OF_TOP = {"__main__": "repl", "codecache": "codecache",
                "lazy": "lazy", "startup": "startup"}
# What each layer may import (itself included).
MAY_IMPORT = {
    "errors": {"errors"},
    "values": {"values", "errors"},
    "storage": {"storage", "values", "errors", "lazy"},
    "engine": {"engine", "storage", "values", "errors", "lazy"},
    "grammar": {"grammar", "values", "errors", "codecache"},
    "interpreter": {"interpreter", "engine", "storage", "grammar", "values", "errors", "lazy",
                    "codecache"},
    "spark": {"spark", "interpreter", "engine", "storage", "grammar", "values", "errors",
              "lazy", "codecache"},
    "repl": {"repl", "interpreter", "engine", "storage", "grammar", "values", "errors", "lazy",
             "codecache", "startup"},
    "codecache": {"codecache"},
    "lazy": {"lazy"},
    "startup": {"startup", "codecache"},
    "package": {"package"},
}
BACKEND_NAMES = {"sqlite", "postgresql", "postgres"}
BACKEND_HOME = PKG + ".storage.backends"
LAZY_MARK = "start-up laziness"

# --- known exceptions (each shrinks to nothing as issue 15 P5 lands) -----------------------
# Modules are named without the leading "tsqlbroker."; libraries by their top-level name.


def because(why: str, *rows: tuple[str, ...]) -> dict[tuple[str, ...], str]:
    return dict.fromkeys(rows, why)


# (importer, imported) → why. Layer-rule breaks, wherever the import sits.
KNOWN_LAYER_BREAKS: dict[tuple[str, ...], str] = {
}

# Import cycles, as the sorted tuple of their modules → why.
KNOWN_CYCLES: dict[tuple[str, ...], str] = {
}

# (importer, imported module, name) → why.
KNOWN_PRIVATE_IMPORTS: dict[tuple[str, ...], str] = {
}

# Imports inside functions without a start-up laziness comment: (importer, imported) → why.
# One entry covers every such import of that module in that file.
KNOWN_LOCAL_IMPORTS: dict[tuple[str, str], str] = {
}

# Backend names as strings outside storage/backends/: (module, the string) → why.
KNOWN_BACKEND_NAMES: dict[tuple[str, ...], str] = {
}


@dataclass(frozen=True)
class Import:
    importer: str
    target: str  # the imported tsqlbroker module (or the external top name)
    names: tuple[str, ...]
    line: int
    in_function: bool
    internal: bool


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def layer(mod: str) -> str:
    parts = mod.split(".")
    if len(parts) == 1:
        return "package"  # tsqlbroker/__init__.py: ``__version__`` only, for every layer
    if len(parts) == 2 and parts[1] in LAYER_OF_TOP:
        return LAYER_OF_TOP[parts[1]]
    return parts[1]


@dataclass(frozen=True)
class Parsed:
    text: str
    imports: list[tuple[ast.Import | ast.ImportFrom, bool]]  # (node, inside a function)
    strings: list[str]  # string constants that are not docstrings
    is_pkg: bool


def scan(text: str, filename: str) -> Parsed:
    """One pass over the tree: the imports (inside a function or not) and the strings."""
    found = Parsed(text, [], [], filename.endswith("__init__.py"))
    docstrings: set[int] = set()
    stack: list[tuple[ast.AST, bool]] = [(ast.parse(text, filename), False)]
    while stack:
        node, in_function = stack.pop()
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            found.imports.append((node, in_function))
            continue
        if isinstance(node, ast.Constant):
            if isinstance(node.value, str) and id(node) not in docstrings:
                found.strings.append(node.value)
            continue
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            first = node.body[0] if node.body else None
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                docstrings.add(id(first.value))
        inner = in_function or isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef,
                                                 ast.Lambda))
        stack.extend((child, inner) for child in ast.iter_child_nodes(node))
    return found


@functools.cache
def sources() -> dict[str, Parsed]:
    return {module_name(path): scan(path.read_text(encoding="utf-8"), str(path))
            for path in sorted((ROOT / PKG).rglob("*.py"))}


def resolve(mod: str, is_pkg: bool, node: ast.ImportFrom) -> str:
    if not node.level:
        return node.module or ""
    base = mod.split(".") if is_pkg else mod.split(".")[:-1]
    base = base[: len(base) - (node.level - 1)]
    return ".".join(base + ([node.module] if node.module else []))


def known_module(name: str, mods: dict) -> str | None:
    while name not in mods and "." in name:
        name = name.rsplit(".", 1)[0]
    return name if name in mods else None


@functools.cache
def imports() -> tuple[Import, ...]:
    mods = sources()
    out: list[Import] = []
    for mod, parsed in mods.items():
        for node, local in parsed.imports:
            if isinstance(node, ast.Import):
                for a in node.names:
                    target = known_module(a.name, mods) if a.name.startswith(PKG) else None
                    out.append(Import(mod, target or a.name.split(".")[0], (), node.lineno,
                                      local, target is not None))
                continue
            base = resolve(mod, parsed.is_pkg, node)
            if not base.startswith(PKG):
                out.append(Import(mod, base.split(".")[0], (), node.lineno, local, False))
                continue
            by_target: dict[str, list[str]] = defaultdict(list)
            for a in node.names:
                sub = f"{base}.{a.name}"
                target = sub if sub in mods else known_module(base, mods)
                by_target[target or base].append(a.name if target != sub else "")
            for target, names in by_target.items():
                out.append(Import(mod, target, tuple(n for n in names if n), node.lineno,
                                  local, True))
    return tuple(out)


def layer_breaks() -> Iterator[tuple[str, str]]:
    for imp in imports():
        if imp.internal and imp.target != imp.importer:
            allowed = MAY_IMPORT[layer(imp.importer)] | {"package"}
            if layer(imp.target) not in allowed:
                yield imp.importer, imp.target


def cycles() -> list[tuple[str, ...]]:
    """Strongly connected groups of the module-level import graph (TYPE_CHECKING included);
    a module importing its own package (an ``__init__`` gathering its children) is no cycle.
    Importing ``a.b.c`` runs the package files ``a.b`` and ``a`` first: those are edges too
    (but for the importer's own packages, already running when it is imported)."""
    mods = sources()
    graph: dict[str, set[str]] = defaultdict(set)
    for imp in imports():
        if not imp.internal or imp.in_function:
            continue
        targets = [imp.target]
        parts = imp.target.split(".")
        targets += [".".join(parts[:n]) for n in range(1, len(parts))]
        for target in targets:
            if target in mods and target != imp.importer \
                    and not imp.importer.startswith(target + "."):
                graph[imp.importer].add(target)
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[tuple[str, ...]] = []

    def visit(v: str) -> None:  # Tarjan; the graph is shallow enough for recursion
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                group.append(w)
                if w == v:
                    break
            if len(group) > 1:
                found.append(tuple(sorted(group)))

    for v in sorted(sources()):
        if v not in index:
            visit(v)
    return found


def private_imports() -> Iterator[tuple[str, str, str]]:
    for imp in imports():
        if imp.internal and imp.target != imp.importer:
            for name in imp.names:
                if name.startswith("_") and not name.startswith("__"):
                    yield imp.importer, imp.target, name


def uncommented_local_imports() -> Iterator[tuple[str, str]]:
    for imp in imports():
        if not imp.in_function:
            continue
        lines = sources()[imp.importer].text.splitlines()
        here = lines[imp.line - 1]
        # The comment stands on the import's line or above the run of imports it opens.
        i = imp.line - 2
        while i >= 0 and lines[i].lstrip().startswith(("from ", "import ")):
            i -= 1
        above = lines[i] if i >= 0 else ""
        if LAZY_MARK not in here and not (above.lstrip().startswith("#") and LAZY_MARK in above):
            yield imp.importer, imp.target


def backend_names() -> Iterator[tuple[str, str]]:
    for mod, parsed in sources().items():
        if mod == BACKEND_HOME or mod.startswith(BACKEND_HOME + "."):
            continue
        for value in parsed.strings:
            if value.lower() in BACKEND_NAMES:
                yield mod, value


def short(row: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(x[len(PKG) + 1:] if x.startswith(PKG + ".") else x for x in row)


def compare(found: set, known: dict, what: str) -> None:
    found = {short(row) for row in found}
    new = sorted(found - set(known))
    gone = sorted(set(known) - found)
    problems = [f"new {what}: {x!r}" for x in new]
    problems += [f"{what} listed in tests/test_layers.py but gone (delete its entry): {x!r}"
                 for x in gone]
    assert not problems, "\n".join(problems)


def test_imports_point_down() -> None:
    compare(set(layer_breaks()), KNOWN_LAYER_BREAKS, "layer break")


def test_no_import_cycles() -> None:
    compare(set(cycles()), KNOWN_CYCLES, "import cycle")


def test_no_private_names_across_modules() -> None:
    compare(set(private_imports()), KNOWN_PRIVATE_IMPORTS, "private import")


def test_imports_inside_functions_say_why() -> None:
    compare(set(uncommented_local_imports()), KNOWN_LOCAL_IMPORTS,
            f"import inside a function without a '# {LAZY_MARK}: …' comment")


def test_backend_names_only_in_backends() -> None:
    compare(set(backend_names()), KNOWN_BACKEND_NAMES, "backend name outside storage/backends")


def test_rules_see_the_tree() -> None:
    """The checks above look at real code: the graph has the layers' known edges."""
    edges = {(i.importer, i.target) for i in imports() if i.internal}
    assert (PKG + ".interpreter.session", PKG + ".storage.txn") in edges
    assert layer(PKG + ".storage.backends.sqlite.backend") == "storage"
    assert len(sources()) > 150


if __name__ == "__main__":
    for title, rows in (("KNOWN_LAYER_BREAKS", sorted(set(layer_breaks()))),
                        ("KNOWN_CYCLES", sorted(set(cycles()))),
                        ("KNOWN_PRIVATE_IMPORTS", sorted(set(private_imports()))),
                        ("KNOWN_LOCAL_IMPORTS", sorted(set(uncommented_local_imports()))),
                        ("KNOWN_BACKEND_NAMES", sorted(set(backend_names())))):
        print(f"{title} ({len(rows)})")
        for row in rows:
            print(f"    {short(row)!r},")
    sys.exit(0)
