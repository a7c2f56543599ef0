"""A queue's backlog as a consumer outside the broker reads it in queuing order (a Spark
stream draining the queue): how far the next read may go.

Queuing orders grow in commit order on SQLite (one writer at a time). On PostgreSQL they
come from a sequence when a commit flushes its messages, so a slower commit may show a lower
queuing order after a faster one: the horizon is only returned once the transactions that
were writing messages when it was read are over (:func:`row_locks.wait_for_enqueuers`), so that
no message below it can still appear.
"""

from __future__ import annotations

import logging

from sqlalchemy import Text, cast, func, select

from ...storage.store import StoreConnection
from . import row_locks
from .schema import BrokerTables

log = logging.getLogger(__name__)
SETTLE_TIMEOUT_S = 10.0


def ready_horizon(tables: BrokerTables, conn: StoreConnection, queue_id: int, after: int,
                  limit: int | None = None, upto: int | None = None) -> tuple[int, int]:
    """(end, count): the queuing order of the ``limit``-th ready message of the queue after
    ``after`` (of the last one without a limit), not beyond ``upto`` when given, and how many
    ready messages lie in (``after``, end]; (``after``, 0) when there are none."""
    m = tables.messages
    conds = [m.c.queue_id == queue_id, m.c.status == 1, m.c.queuing_order > after]
    if upto is not None:
        conds.append(m.c.queuing_order <= upto)
    inner = select(m.c.queuing_order).where(*conds).order_by(m.c.queuing_order)
    if limit is not None:
        inner = inner.limit(limit)
    sub = inner.subquery()
    stmt = select(func.max(sub.c.queuing_order), func.count())
    # Several processes' transactions write at once: queuing orders may commit out of order.
    pg = not conn.backend.single_writer
    if pg:      # the snapshot of this very statement: see the module docstring
        stmt = stmt.add_columns(cast(func.pg_current_snapshot(), Text))
    row = conn.execute(stmt).one()
    end, count = row[0], int(row[1])
    if end is None:
        return after, 0
    if pg and not row_locks.wait_for_enqueuers(conn, row[2], SETTLE_TIMEOUT_S):
        log.warning("transactions writing messages stayed open for %.0f s; going on with "
                    "queuing order %s", SETTLE_TIMEOUT_S, end)
    return int(end), count
