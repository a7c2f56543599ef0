"""T-SQL transactions mapped onto :class:`tsqlbroker.storage.txn.Txn`.

``BEGIN TRAN`` nests a count (``@@TRANCOUNT``); only the outermost COMMIT commits; ROLLBACK
without a savepoint name undoes everything and sets the count to 0; ``ROLLBACK TRAN name``
naming a ``SAVE TRAN`` point undoes back to it and leaves the count alone. Outside an explicit
transaction every statement that touches storage runs in its own Txn, committed when the
statement ends (see :meth:`Session.txn_for_statement`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol

from tsqlbroker.errors import TSqlError, tsql_error
from tsqlbroker.grammar import ast
from tsqlbroker.storage.txn import CommitRetreat, Txn

from .compiler import PAIRS, Compiler, StmtFn, handler

if TYPE_CHECKING:
    from .frames import Frame


class TransactionHolder(Protocol):
    """What this module reads and sets on a :class:`~.session.Session` (declared here: the
    session module calls these functions, so importing it would close an import cycle)."""

    trancount: int
    txn: Any
    stmt_txn: Any
    tran_name: str | None
    doomed: bool
    extensions: dict[str, Any]

    def new_txn(self) -> Any: ...


def begin(s: TransactionHolder, name: str | None = None) -> None:
    """``BEGIN TRAN [name]``."""
    if s.trancount == 0:
        if s.stmt_txn is not None:
            # The implicit transaction of the statement running so far becomes the explicit
            # one (BEGIN TRAN inside a statement does not happen; keep the work anyway).
            s.txn, s.stmt_txn = s.stmt_txn, None
        else:
            s.txn = s.new_txn()
        # Transaction and savepoint names are case-sensitive (BEGIN / SAVE TRANSACTION).
        s.tran_name = name or None
        s.doomed = False
    s.trancount += 1


def commit(s: TransactionHolder) -> None:
    """``COMMIT [TRAN]``: Msg 3902 without a transaction, 3930 when it is doomed."""
    if s.trancount == 0:
        raise tsql_error(3902)
    if s.doomed:
        raise tsql_error(3930)
    if s.trancount == 1:
        txn = s.txn
        s.trancount = 0
        s.txn = None
        if txn is not None:
            try:
                txn.commit()
            except CommitRetreat:
                s.trancount, s.txn = 1, txn      # still open (see send_then_commit)
                raise
    else:
        s.trancount -= 1


def rollback(s: TransactionHolder, name: str | None = None) -> None:
    """``ROLLBACK [TRAN [name]]``: to a savepoint, or everything (Msg 3903 / 6401)."""
    if s.trancount == 0:
        raise tsql_error(3903)
    txn = s.txn
    if name and txn is not None and txn.has_savepoint(name) and name != s.tran_name:
        if s.doomed:
            raise tsql_error(3931)
        _keeping_table_variables(s, txn, lambda: txn.rollback_to(name))
        return
    if name and name != s.tran_name and not (
            txn is not None and txn.has_savepoint(name)):
        raise tsql_error(6401, name)
    rollback_all(s)


def rollback_all(s: TransactionHolder) -> None:
    """Undo the whole transaction (if any) and set ``@@TRANCOUNT`` to 0."""
    txn = s.txn
    s.trancount = 0
    s.txn = None
    s.doomed = False
    s.tran_name = None
    if txn is not None:
        _keeping_table_variables(s, txn, txn.rollback)


def _keeping_table_variables(s: TransactionHolder, txn: Any, undo: Any) -> None:
    """Roll back leaving the session's table variables as they are
    (``dml_stmts.TableVariables``, kept in the session's extensions so that this module needs
    no DML engine)."""
    keeper = s.extensions.get("table_variables")
    if keeper is None:
        undo()
    else:
        keeper.around(s, txn, undo)


def doom_rolled_back(s: TransactionHolder) -> None:
    """A deadlock victim inside TRY (Msg 1205): its work is undone and its locks released at
    once — the other transaction must go on — but, as in SQL Server, the transaction stays
    open and doomed (``@@TRANCOUNT`` unchanged, ``XACT_STATE()`` = -1) until the CATCH block
    rolls it back (or the batch ends: Msg 3998)."""
    txn = s.txn
    if txn is not None:
        txn.rollback()
    s.txn = s.new_txn()
    s.doomed = True


def save(s: TransactionHolder, name: str) -> None:
    """``SAVE TRAN name``: Msg 628 outside a transaction, 3931 when doomed."""
    if s.trancount == 0 or s.txn is None:
        raise tsql_error(628)
    if s.doomed:
        raise tsql_error(3931)
    s.txn.save(name)


def xact_state(s: TransactionHolder) -> int:
    """``XACT_STATE()``: 1 committable, 0 none, -1 doomed."""
    if s.trancount == 0:
        return 0
    return -1 if s.doomed else 1


# --------------------------------------------------------------------------------------------
# Statement handlers
# --------------------------------------------------------------------------------------------
def _name_fn(c: Compiler, name: str | ast.Variable | None) -> Any:
    """``fn(frame) -> str | None`` for a transaction / savepoint name (maybe a variable)."""
    if name is None:
        return lambda _f: None
    if isinstance(name, ast.Variable):
        slot = c.var(name.name, name).slot
        return lambda f: None if f.v[slot] is None else str(f.v[slot]).strip()
    return lambda _f, _n=name: _n


@handler(ast.BeginTran)
def compile_begin_tran(c: Compiler, node: ast.BeginTran) -> StmtFn:
    name = _name_fn(c, node.name)

    def run(f: Frame) -> None:
        s = f.session
        begin(s, name(f))
        s.rowcount = 0
    return run


@handler(ast.CommitTran)
def compile_commit(c: Compiler, node: ast.CommitTran) -> StmtFn:
    def run(f: Frame) -> None:
        s = f.session
        commit(s)
        s.rowcount = 0
    return run


def _may_travel_with_commit(s: Any, txn: Txn) -> bool:
    """Whether the statement before a COMMIT may leave its work to that COMMIT's round trip:
    the COMMIT ends a committable transaction with nothing deferred yet, and no SET
    STATISTICS report waits for the statement's own end."""
    return s.trancount == 1 and not s.doomed and not txn.ops and s.statistics is None


def send_then_commit(send: StmtFn, commit_: StmtFn) -> StmtFn:
    """SEND directly followed by a COMMIT that ends the transaction: the SEND may leave its
    work to the COMMIT's round trip (``Txn.commit_follows``, PostgreSQL: one round trip for
    both). Should that work find at commit that it cannot apply, the COMMIT retreats with
    nothing of the SEND done and the transaction still open; the two statements then run
    again the ordinary way, so the SEND reports its own errors as SEND did."""
    def run(f: Frame) -> None:
        s = f.session
        txn = s.txn
        if txn is None or not _may_travel_with_commit(s, txn):
            send(f)
            commit_(f)
            return
        txn.commit_follows = True
        try:
            send(f)
            commit_(f)
        except CommitRetreat:
            txn.commit_follows = False
            send(f)
            commit_(f)
        finally:
            txn.commit_follows = False
    return run


PAIRS[(ast.Send, ast.CommitTran)] = send_then_commit


def receive_then_commit(receive: StmtFn, commit_: StmtFn) -> StmtFn:
    """RECEIVE (or WAITFOR (RECEIVE …)) directly followed by a COMMIT that ends the
    transaction: the RECEIVE may take its rows and commit in one round trip
    (``Txn.commit_returning``; it decides, see ``Receiving.receive``'s ``with_commit``) —
    then the COMMIT only finishes the transaction, as the COMMIT statement would have: a
    cancel arriving in between finds the work committed, as after a COMMIT. Otherwise the
    two run the ordinary way."""
    def run(f: Frame) -> None:
        s = f.session
        txn = s.txn
        if txn is None or not _may_travel_with_commit(s, txn):
            receive(f)
            commit_(f)
            return
        txn.commit_follows = True
        try:
            receive(f)
        finally:
            txn.commit_follows = False
            stored = txn.stored and s.txn is txn
            if stored:
                # Nothing of the transaction can be undone any more: it ends committed.
                s.trancount, s.txn, s.doomed, s.tran_name = 0, None, False, None
                txn.commit()
        if stored:
            s.rowcount = 0
            s.error = 0         # the COMMIT's, which succeeded (a RECEIVE error before it too)
        else:
            commit_(f)
    return run


PAIRS[(ast.Receive, ast.CommitTran)] = receive_then_commit
PAIRS[(ast.Waitfor, ast.CommitTran)] = receive_then_commit


@handler(ast.RollbackTran)
def compile_rollback(c: Compiler, node: ast.RollbackTran) -> StmtFn:
    name = _name_fn(c, node.name)

    def run(f: Frame) -> None:
        s = f.session
        rollback(s, name(f))
        s.rowcount = 0
    return run


@handler(ast.SaveTran)
def compile_save(c: Compiler, node: ast.SaveTran) -> StmtFn:
    name = _name_fn(c, node.name)

    def run(f: Frame) -> None:
        n = name(f)
        if not n:
            raise TSqlError(628, "Cannot issue SAVE TRANSACTION when there is no active "
                                 "transaction.")
        save(f.session, n)
    return run
