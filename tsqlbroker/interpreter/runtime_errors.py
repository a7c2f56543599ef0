"""How an error that reaches a statement boundary affects the rest of the batch.

SQL Server sorts run-time errors into a few behaviours (Erland Sommarskog, "Error and
Transaction Handling in SQL Server", part 2, lists them):

* *statement termination*: the statement is rolled back, execution continues with the next
  one (constraint violations 2627/547/515, truncation 8152, divide by zero 8134, RAISERROR …);
* *batch abortion*: the whole batch — every calling procedure included — stops (conversion
  failures 245/8114, nesting overflow 217, THROW, and every error under ``XACT_ABORT ON``);
* *scope abortion*: errors of deferred name resolution (208 missing table, 207 missing
  column) stop the current procedure or batch; a TRY…CATCH in the *same* scope does not catch
  them, a TRY in a calling scope does, and the caller then continues as after a statement
  error.

Which errors abort what is data here (sets of numbers), not code spread through handlers.
"""

from __future__ import annotations

from typing import Any

from tsqlbroker.errors import TSqlError

# Errors that end the whole batch, whatever XACT_ABORT says.
BATCH_ABORTING: frozenset[int] = frozenset({
    245,    # conversion failed when converting the varchar value … to data type int
    8114,   # error converting data type … to …
    217,    # nesting level exceeded
    3998,   # uncommittable transaction at the end of the batch
    3621,   # the statement has been terminated (cancel)
    35100,  # THROW with a bad error number
    6522,   # CLR / .NET errors (never raised here, kept for completeness)
    9420, 9436, 9400,  # XML parsing errors in conversions
    1205,   # chosen as a deadlock victim
})

# Errors after which the session's work is gone: the deadlock victim is rolled back at once
# (its locks must go for the other transaction to go on), TRY…CATCH or not — inside TRY the
# transaction stays open, doomed, until the CATCH block rolls it back (see ends_transaction).
TRANSACTION_ENDING: frozenset[int] = frozenset({1205})

# Errors that end the current scope (procedure or batch) and escape a TRY in the same scope.
SCOPE_ABORTING: frozenset[int] = frozenset({208, 207})

# Errors that XACT_ABORT ON does not turn into batch abortion (RAISERROR never aborts).
NOT_XACT_ABORTING: frozenset[int] = frozenset({266, 3902, 3903, 3930})


def aborts_batch(err: TSqlError) -> bool:
    """Whether ``err`` stops the whole batch (THROW marks its errors explicitly)."""
    flag: Any = getattr(err, "batch_abort", None)
    if flag is not None:
        return bool(flag)
    return err.number in BATCH_ABORTING


def ends_transaction(err: TSqlError) -> bool:
    """Whether ``err`` takes the session's storage transaction with it: a deadlock victim,
    or the storage connection lost."""
    return err.number in TRANSACTION_ENDING or bool(getattr(err, "storage_lost", False))


def aborts_scope(err: TSqlError) -> bool:
    """Whether ``err`` stops the current procedure / batch and escapes its own TRY."""
    return err.number in SCOPE_ABORTING and not getattr(err, "scope_done", False)


def is_raiserror(err: TSqlError) -> bool:
    """Errors raised by RAISERROR are never affected by XACT_ABORT."""
    return bool(getattr(err, "from_raiserror", False))
