"""Integer loops compiled to Python code: the interpreter's hottest path (issue 18 item 5).

A ``WHILE`` loop whose condition and body do nothing but integer work on ``int`` / ``bigint``
variables — ``SET`` with ``+ - * / %`` (and their ``+=`` forms) on variables and integer
constants, ``IF … ELSE`` on comparisons joined by ``AND`` / ``OR`` / ``NOT``, ``BEGIN … END``
and nested such loops — is turned into the source of one Python function, compiled with
:func:`compile`: the variables live in Python locals while it runs, and each statement is a
few Python operations instead of a tree of closures.

The meaning is the closures' meaning, because they are kept and used whenever the fast code
could differ from them:

* the loop runs the closures instead when one of its variables is NULL as it starts (with
  non-NULL integers and no NULL constant, no statement of the subset makes a NULL);
* every intermediate result is checked against its type's range and every divisor against
  zero; a statement (or condition) that would overflow or divide by zero is handed to its
  closure, with the locals written back to the frame first and read again after, so the
  error is raised, reported or caught exactly as the closure does it (Msg 8115, 8134 …);
* T-SQL's ``/`` truncates toward zero and its ``%`` takes the sign of the dividend (Python
  floors): the generated code says so;
* a cancel is looked for once per iteration, as the closures' loop does; nothing in the
  subset reads ``@@ROWCOUNT`` / ``@@ERROR``, and the loop leaves them as the closures'
  loop does (0, set by its last condition). ``BREAK`` and ``CONTINUE`` are outside the
  subset (what they leave in ``@@ROWCOUNT`` depends on the statement before them).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from tsqlbroker.errors import TSqlError
from tsqlbroker.grammar import ast

if TYPE_CHECKING:
    from .compiler import Compiler, StmtFn
    from .frames import Frame

# Off: every loop keeps its closures (tests compare the two).
ENABLED = True
_RANGES = {"int": (-2**31, 2**31 - 1), "bigint": (-2**63, 2**63 - 1)}
_ARITH = {"+", "-", "*", "/", "%"}
_COMPARE = {"=": "==", "<>": "!=", "!=": "!=", "<": "<", ">": ">", "<=": "<=", ">=": ">="}
_COMPOUND = {"+=": "+", "-=": "-", "*=": "*", "/=": "/", "%=": "%"}


# Markers in the generated lines: write every local to the frame / read every one back.
_STORE = "#store"
_LOAD = "#load"


class _Fallback(Exception):
    """Raised by generated code: this statement must run through its closure."""


def _tdiv(a: int, b: int) -> int:
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b > 0) else -q


def _tmod(a: int, b: int) -> int:
    r = abs(a) % abs(b)
    return r if a >= 0 else -r


class _Unsupported(Exception):
    """The loop is outside the subset: it keeps its closures."""


class _Generator:
    """Writes the Python source of one loop; collects the closures it falls back on."""

    def __init__(self, c: Compiler) -> None:
        self.c = c
        self.lines: list[str] = []
        self.slots: dict[int, str] = {}     # frame slot -> local name
        self.types: dict[int, str] = {}     # frame slot -> "int" | "bigint"
        self.env: dict[str, Any] = {"_Fallback": _Fallback, "_tdiv": _tdiv, "_tmod": _tmod}
        self.temps = 0

    # -- names --------------------------------------------------------------------------------
    def _local(self, name: str, node: ast.Node) -> tuple[str, str]:
        info = self.c.scope.vars.get(name.lower())
        if info is None or info.type.name not in _RANGES:
            raise _Unsupported
        self.types[info.slot] = info.type.name
        return self.slots.setdefault(info.slot, f"x{info.slot}"), info.type.name

    def _temp(self) -> str:
        self.temps += 1
        return f"t{self.temps}"

    def _closure(self, fn: Any) -> str:
        name = f"g{len(self.env)}"
        self.env[name] = fn
        return name

    def emit(self, depth: int, line: str) -> None:
        self.lines.append("    " * depth + line)

    # -- expressions: (python expression, type); checks go to ``out`` as lines ----------------
    def value(self, node: ast.Expr, out: list[str]) -> tuple[str, str]:
        if isinstance(node, ast.Variable):
            return self._local(node.name, node)
        if isinstance(node, ast.Literal):
            lo, hi = _RANGES["int"]
            if node.kind != "int" or type(node.value) is not int or not lo <= node.value <= hi:
                raise _Unsupported
            return repr(node.value), "int"
        if isinstance(node, ast.Unary) and node.op in ("-", "+"):
            src, t = self.value(node.operand, out)
            if node.op == "+":
                return src, t
            return self._checked(f"-{src}", t, out), t
        if isinstance(node, ast.Binary) and node.op in _ARITH:
            return self.arith(node.op, node.left, node.right, out)
        raise _Unsupported

    def arith(self, op: str, left: ast.Expr, right: ast.Expr, out: list[str]) -> tuple[str, str]:
        a, ta = self.value(left, out)
        b, tb = self.value(right, out)
        t = "bigint" if "bigint" in (ta, tb) else "int"
        if op in ("+", "-") and isinstance(right, ast.Literal):
            # Adding a positive constant can only overflow upwards (and so on).
            up = (op == "+") == (right.value >= 0)
            return self._checked(f"{a} {op} {b}", t, out, "up" if up else "down"), t
        if op in ("+", "-", "*"):
            return self._checked(f"{a} {op} {b}", t, out), t
        const = int(b) if isinstance(right, ast.Literal) else None
        if const == 0:
            raise _Unsupported          # always Msg 8134: the closure says so
        if const is None:
            out.append(f"if {b} == 0: raise _Fallback")
        if op == "%":                   # never out of range
            if const is not None and const > 0:
                return f"({a} % {b} if {a} >= 0 else -(-{a} % {b}))", t
            return f"_tmod({a}, {b})", t
        if const is not None and const > 0:
            return f"({a} // {b} if {a} >= 0 else -(-{a} // {b}))", t
        return self._checked(f"_tdiv({a}, {b})", t, out), t

    def _checked(self, expr: str, t: str, out: list[str], side: str = "both") -> str:
        """``expr`` in a temporary, with the check that it is in the range of type ``t``
        (``side``: only its upper / lower end can be crossed)."""
        tmp = self._temp()
        lo, hi = _RANGES[t]
        out.append(f"{tmp} = {expr}")
        test = {"up": f"{tmp} > {hi}", "down": f"{tmp} < {lo}"}.get(
            side, f"not {lo} <= {tmp} <= {hi}")
        out.append(f"if {test}: raise _Fallback")
        return tmp

    def predicate(self, node: ast.Expr, out: list[str]) -> str:
        if isinstance(node, ast.Binary) and node.op in ("and", "or"):
            # Both sides are evaluated first: no side effects, and a side that would fail
            # sends the whole condition to its closure anyway.
            return (f"({self.predicate(node.left, out)} {node.op} "
                    f"{self.predicate(node.right, out)})")
        if isinstance(node, ast.Unary) and node.op == "not":
            return f"(not {self.predicate(node.operand, out)})"
        if isinstance(node, ast.Binary) and node.op in _COMPARE:
            a, _ta = self.value(node.left, out)
            b, _tb = self.value(node.right, out)
            return f"({a} {_COMPARE[node.op]} {b})"
        raise _Unsupported

    # -- statements ---------------------------------------------------------------------------
    def statement(self, node: ast.Stmt, depth: int) -> None:
        if isinstance(node, ast.Block):
            if not node.body:
                self.emit(depth, "pass")
            for inner in node.body:
                self.statement(inner, depth)
        elif isinstance(node, ast.SetVariable):
            self.assignment(node, depth)
        elif isinstance(node, ast.If):
            r = self.condition(node, depth, self._if_closure(node))
            self.emit(depth, f"if {r}:")
            self.statement(node.then, depth + 1)
            if node.else_ is not None:
                self.emit(depth, "else:")
                self.statement(node.else_, depth + 1)
        elif isinstance(node, ast.While):
            self.loop(node, depth)
        else:
            raise _Unsupported

    def assignment(self, node: ast.SetVariable, depth: int) -> None:
        target, t = self._local(node.name, node)
        out: list[str] = []
        if node.op == "=":
            src, st = self.value(node.expr, out)
        elif node.op in _COMPOUND:
            src, st = self.arith(_COMPOUND[node.op], ast.Variable(node.name), node.expr, out)
        else:
            raise _Unsupported
        if st == "bigint" and t == "int":
            src = self._checked(src, "int", out)
        if not any(line.startswith("if ") for line in out):   # cannot fail
            for line in out:
                self.emit(depth, line)
            self.emit(depth, f"{target} = {src}")
            return
        general = self._closure(self.c.stmt(node))
        self._attempt(depth, out, f"{target} = {src}", f"{general}(f)")

    def condition(self, node: ast.If | ast.While, depth: int, general: str) -> str:
        """The condition as a Python expression (lines computing it emitted first)."""
        out: list[str] = []
        expr = self.predicate(node.cond, out)
        if not out:
            return expr
        r = self._temp()
        self._attempt(depth, out, f"{r} = {expr}", f"{r} = {general}(f)")
        return r

    def _attempt(self, depth: int, out: list[str], last: str, fallback: str) -> None:
        """``out`` then ``last`` in a ``try`` whose :class:`_Fallback` runs ``fallback``
        (a call of a closure) through the frame instead."""
        self.emit(depth, "try:")
        for line in out + [last]:
            self.emit(depth + 1, line)
        self.emit(depth, "except _Fallback:")
        self._through(depth + 1, fallback)

    def _through(self, depth: int, call: str) -> None:
        """Run a closure with the frame holding the locals' values, then read them back
        (every local of the loop: markers filled in by :meth:`source`, when all are known)."""
        self.emit(depth, _STORE)
        self.emit(depth, call)
        self.emit(depth, _LOAD)

    def source(self, general_name: str) -> str:
        """The whole function ``run(f)``."""
        slots = list(self.slots.items())
        stores = [f"v[{slot}] = {name}" for slot, name in slots]
        loads = [f"{name} = v[{slot}]" for slot, name in slots]
        out = ["def run(f):", "    v = f.v", "    s = f.session"]
        out += ["    " + line for line in loads]
        if slots:
            nulls = " or ".join(f"{name} is None" for _slot, name in slots)
            out.append(f"    if {nulls}: return {general_name}(f)")
        for line in self.lines:
            stripped = line.lstrip()
            if stripped in (_STORE, _LOAD):
                indent = line[:len(line) - len(stripped)]
                out += [indent + x for x in (stores if stripped == _STORE else loads)]
            else:
                out.append(line)
        out += ["    " + line for line in stores]
        out += ["    s.rowcount = 0", "    s.error = 0"]
        return "\n".join(out) + "\n"

    def _if_closure(self, node: ast.If) -> str:
        return self._closure(_guarded(self.c.predicate(node.cond), self.c.line(node)))

    def loop(self, node: ast.While, depth: int) -> None:
        general = self._closure(_guarded(self.c.predicate(node.cond), self.c.line(node)))
        self.emit(depth, "while True:")
        r = self.condition(node, depth + 1, general)
        self.emit(depth + 1, f"if not {r}: break")
        self.emit(depth + 1, "if s._cancel:")
        self._through(depth + 2, "s.check_cancel()")
        self.statement(node.body, depth + 1)


def _guarded(cond: Callable[[Frame], Any], line: int) -> Callable[[Frame], Any]:
    """A condition as the closures' IF / WHILE evaluate it: an error is the statement's
    (reported, or raised on by ``statement_error``) and makes the condition UNKNOWN."""

    def run(f: Frame) -> Any:
        try:
            return cond(f)
        except TSqlError as e:
            f.session.statement_error(e, f, line)
            return None
    return run


def compile_fast_while(c: Compiler, node: ast.While, general: StmtFn) -> StmtFn | None:
    """The loop as generated Python code, or None when it is outside the subset."""
    if c.loop_depth or not ENABLED:
        return None                     # an inner loop: the outer loop's code holds it
    gen = _Generator(c)
    try:
        gen.loop(node, 1)
        code = compile(gen.source("general"), f"<T-SQL WHILE at line {c.line(node)}>", "exec")
    except (_Unsupported, RecursionError, SyntaxError, MemoryError):
        # Outside the subset, or beyond what Python compiles (an expression nested deeper
        # than its recursion limit, loops nested deeper than its 20 blocks): the closures.
        return None
    env = dict(gen.env, general=general)
    exec(code, env)  # noqa: S102 - our own generated code
    return env["run"]  # type: ignore[no-any-return]
