"""Control of flow: BEGIN…END, IF, WHILE, BREAK, CONTINUE, RETURN, GOTO, TRY…CATCH.

BREAK / CONTINUE / RETURN / GOTO are :class:`~.compiler.Signal` exceptions (never errors, so
TRY…CATCH ignores them). IF and WHILE reset ``@@ROWCOUNT`` and ``@@ERROR`` after evaluating
their condition, as SQL Server does. TRY…CATCH catches errors of severity > 10 raised in the
TRY block or anything it calls, except errors that abort the scope they occur in (deferred
name resolution) when that scope is this one, and cancellation.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from tsqlbroker.errors import CancelledError, TSqlError
from tsqlbroker.grammar import ast

from ..values import types as T
from .compiler import (
    BREAK,
    CONTINUE,
    BreakSignal,
    Compiler,
    ContinueSignal,
    GotoSignal,
    ReturnSignal,
    StmtFn,
    handler,
    self_wrapped,
    touches_storage,
    walk,
)
from .expressions import coerce
from .fastloop import compile_fast_while
from .runtime_errors import aborts_scope

if TYPE_CHECKING:
    from .frames import Frame


@handler(ast.Block, compound=True)
def compile_block(c: Compiler, node: ast.Block) -> StmtFn:
    # BEGIN…END has no bookkeeping of its own: its statements are wrapped one by one.
    if not node.body:
        return self_wrapped(lambda _f: None)
    return self_wrapped(c.block(node.body))





@handler(ast.If, compound=True)
def compile_if(c: Compiler, node: ast.If) -> StmtFn:
    if touches_storage(node.cond):
        return _compile_if(c, node, c.predicate(node.cond))
    cond = c.predicate(node.cond)
    line = c.current_line
    then = c.stmt(node.then)
    else_ = c.stmt(node.else_) if node.else_ is not None else None

    # Self-wrapped: the condition's errors are reported here (no extra wrapper call).
    def run_if(f: Frame) -> None:
        try:
            r = cond(f)
        except TSqlError as e:
            f.session.statement_error(e, f, line)
            r = None
        s = f.session
        s.rowcount = 0
        s.error = 0
        if r:
            then(f)
        elif else_ is not None:
            else_(f)
    return self_wrapped(run_if)


def _compile_if(c: Compiler, node: ast.If, cond: Any) -> StmtFn:
    """IF whose condition reads storage: the condition's implicit transaction ends before
    the branch runs (the compound wrapper reports the condition's errors)."""
    then = c.stmt(node.then)
    else_ = c.stmt(node.else_) if node.else_ is not None else None

    def run_if_storage(f: Frame) -> None:
        r = cond(f)
        s = f.session
        if s.stmt_txn is not None:
            s.end_statement()
        s.rowcount = 0
        s.error = 0
        if r:
            then(f)
        elif else_ is not None:
            else_(f)
    return run_if_storage


def _has_loop_signals(node: ast.Stmt) -> bool:
    """Whether ``node`` holds a BREAK / CONTINUE for this loop (nested loops excluded)."""
    stack: list[Any] = [node]
    while stack:
        cur = stack.pop()
        if isinstance(cur, (ast.Break, ast.Continue)):
            return True
        if isinstance(cur, ast.While):
            continue
        if isinstance(cur, ast.Block):
            stack.extend(cur.body)
        elif isinstance(cur, ast.If):
            stack.append(cur.then)
            if cur.else_ is not None:
                stack.append(cur.else_)
        elif isinstance(cur, ast.TryCatch):
            stack.extend(cur.try_body)
            stack.extend(cur.catch_body)
    return False


@handler(ast.While, compound=True)
def compile_while(c: Compiler, node: ast.While) -> StmtFn:
    cond = c.predicate(node.cond)
    line = c.current_line
    storage = touches_storage(node.cond)
    c.loop_depth += 1
    try:
        body = c.stmt(node.body)
    finally:
        c.loop_depth -= 1
    signals = _has_loop_signals(node.body)

    def test(f: Frame) -> bool | None:
        # The condition is a statement of its own for error handling (and for the implicit
        # transaction of a subquery in it).
        s = f.session
        try:
            r = cond(f)
            if storage and s.stmt_txn is not None:
                s.end_statement()
        except TSqlError as e:
            s.statement_error(e, f, line)
            return None
        s.rowcount = 0
        s.error = 0
        return r

    if storage or signals:
        def run_general(f: Frame) -> None:
            s = f.session
            while test(f):
                if s._cancel:
                    s.check_cancel()
                try:
                    body(f)
                except BreakSignal:
                    break
                except ContinueSignal:
                    continue
        return self_wrapped(run_general)

    # The hot loop: condition, cancel check and body inline, no signal handling needed.
    def run_while(f: Frame) -> None:
        s = f.session
        while True:
            try:
                r = cond(f)
            except TSqlError as e:
                s.statement_error(e, f, line)
                r = None
            s.rowcount = 0
            s.error = 0
            if not r:
                return
            if s._cancel:
                s.check_cancel()
            body(f)
    # Integer loops become Python code (falling back on the closures above where needed).
    fast = compile_fast_while(c, node, run_while)
    return self_wrapped(fast if fast is not None else run_while)


@handler(ast.Break)
def compile_break(c: Compiler, node: ast.Break) -> StmtFn:
    if c.loop_depth == 0:
        raise c.bind_error(135, node)

    def run(_f: Frame) -> None:
        raise BREAK
    return run


@handler(ast.Continue)
def compile_continue(c: Compiler, node: ast.Continue) -> StmtFn:
    if c.loop_depth == 0:
        raise c.bind_error(136, node)

    def run(_f: Frame) -> None:
        raise CONTINUE
    return run


@handler(ast.Return)
def compile_return(c: Compiler, node: ast.Return) -> StmtFn:
    if node.expr is None:
        def run_plain(_f: Frame) -> None:
            raise ReturnSignal(None)
        return run_plain
    if c.kind == "batch" or c.kind == "dynamic":
        raise c.bind_error(178, node)
    e = c.expr(node.expr)
    target = c.return_type if c.kind == "function" and c.return_type else T.INT
    ef = coerce(e, target)

    def run(f: Frame) -> None:
        raise ReturnSignal(ef(f))
    return run


@handler(ast.Goto)
def compile_goto(c: Compiler, node: ast.Goto) -> StmtFn:
    label = node.label.lower()
    if c.labels and label not in c.labels:
        raise c.bind_error(133, node, node.label)
    def run(f: Frame) -> None:
        f.session.check_cancel()
        raise GotoSignal(label)
    return run


@handler(ast.Label)
def compile_label(c: Compiler, node: ast.Label) -> StmtFn:
    # Labels are positions in their statement list (Compiler.block); a label reached as a
    # statement (the body of an IF, say) does nothing.
    return lambda _f: None


def collect_labels(c: Compiler, statements: tuple[ast.Stmt, ...] | list[ast.Stmt]) -> None:
    """Record every label of a batch / body before compiling (Msg 132 for duplicates)."""
    for node in walk(list(statements)):
        if isinstance(node, ast.Label):
            key = node.name.lower()
            if key in c.labels:
                raise c.bind_error(132, node, node.name)
            c.labels.add(key)


@handler(ast.TryCatch, compound=True)
def compile_try_catch(c: Compiler, node: ast.TryCatch) -> StmtFn:
    try_body = c.block(node.try_body) if node.try_body else (lambda _f: None)
    catch_body = c.block(node.catch_body) if node.catch_body else (lambda _f: None)

    def run(f: Frame) -> None:
        s = f.session
        depth = s.try_depth
        s.try_depth = depth + 1
        try:
            try_body(f)
        except CancelledError:
            raise
        except TSqlError as e:
            if aborts_scope(e) and getattr(e, "scope_frame", None) is f:
                raise
            s.try_depth = depth
            s.rollback_statement()
            s.caught.append(e)
            try:
                catch_body(f)
            finally:
                s.caught.pop()
        finally:
            # Leaving the TRY…CATCH by any path (error, signal or normally).
            s.try_depth = depth
    return run
