"""Hand-written SQL for the hot path (SEND, delivery; RECEIVE's own statements are in
:mod:`.receive`).

SQLAlchemy Core builds and cache-keys a statement, and sets up result metadata, on every
execution, which costs several times what SQLite takes to run it. The few statements SEND
and RECEIVE run for every message are kept here as backend SQL text with positional
parameters (``?``) and executed on the session's DBAPI connection: SQLite's cursor, or on
PostgreSQL libpq itself (:mod:`tsqlbroker.storage.backends.postgres.libpq`). Values follow the
storage conventions of ``schema.py``: uniqueidentifiers as upper-case text, times as naive
UTC — on SQLite as text in SQLAlchemy's own ``DateTime`` format, so both paths read alike.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Any

from ...storage.store import GUARD_FAILED, StoreConnection
from ...storage.txn import CommitGuard, Txn
from .model import Endpoint
from .schema import PREFIX

ENDPOINT_COLUMNS = list(Endpoint.__dataclass_fields__)
_DATETIME_FIELDS = ("lifetime", "security_timestamp", "dialog_timer", "create_date")
_BOOL_FIELDS = ("encryption",)
_DATETIME_INDEXES = tuple(ENDPOINT_COLUMNS.index(f) for f in _DATETIME_FIELDS)
_BOOL_INDEXES = tuple(ENDPOINT_COLUMNS.index(f) for f in _BOOL_FIELDS)

SELECT_ENDPOINT = (f"SELECT {', '.join(ENDPOINT_COLUMNS)} FROM {PREFIX}conversation_endpoints "
                   "WHERE conversation_handle = ?")
SELECT_PEER = (f"SELECT {', '.join(ENDPOINT_COLUMNS)} FROM {PREFIX}conversation_endpoints "
               "WHERE conversation_id = ? AND is_initiator = ?")
# PostgreSQL: an endpoint read and its sequence update in one UPDATE … RETURNING (a round
# trip saved). The claims below change only a sequence number, so the row they return holds
# every old value but that one, and a claim is undone by putting the number back. Not used
# on SQLite: there (3.40, through the sqlite3 module) one UPDATE … RETURNING costs more than
# the SELECT and the UPDATE it replaces, even with the Python of a statement saved (measured:
# sender's read + claim look-up + sequence update ~26 µs as three statements, ~32 µs as one
# UPDATE … RETURNING; the peer's read + update ~22 µs against ~29 µs).
_SENDABLE = "state IN ('SO', 'SI', 'CO')"
# Delivery of an ordinary message to a local peer that expects exactly this sequence number.
CLAIM_PEER = (f"UPDATE {PREFIX}conversation_endpoints SET receive_sequence = ? "
              f"WHERE conversation_id = ? AND is_initiator = ? AND receive_sequence = ? "
              f"AND {_SENDABLE} RETURNING {', '.join(ENDPOINT_COLUMNS)}")
# SEND: the sender's next sequence number, taken only once the conversation group's row is
# locked for this transaction (FOR UPDATE SKIP LOCKED: no wait; a group held elsewhere updates
# nothing and the caller takes the waiting path). The group row is locked before the endpoint
# row, the order every other group-lock taker follows. A target endpoint first locks its
# conversation's initiator endpoint (waiting for it if need be; see LOCK_INITIATOR_PG): the
# commit delivers to the peer's endpoint row, so two transactions sending opposite ways on one
# conversation would otherwise each hold its own row and wait for the other's.
CLAIM_SEND_PG = (
    f"WITH s AS (SELECT conversation_group_id, conversation_id, is_initiator FROM "
    f"{PREFIX}conversation_endpoints WHERE conversation_handle = ? AND database_id = ? "
    f"AND {_SENDABLE}), "
    f"g AS (SELECT conversation_group_id FROM {PREFIX}conversation_groups WHERE "
    f"conversation_group_id = (SELECT conversation_group_id FROM s) FOR UPDATE SKIP LOCKED), "
    f"i AS (SELECT 1 FROM {PREFIX}conversation_endpoints WHERE conversation_id = "
    f"(SELECT conversation_id FROM s WHERE is_initiator = 0) AND is_initiator = 1 "
    f"AND EXISTS (SELECT 1 FROM g) FOR UPDATE) "
    f"UPDATE {PREFIX}conversation_endpoints e SET send_sequence = e.send_sequence + 1 "
    f"FROM g WHERE e.conversation_handle = ? AND e.database_id = ? AND e.{_SENDABLE} "
    f"AND e.conversation_group_id = g.conversation_group_id "
    f"AND (SELECT count(*) FROM i) >= 0 "
    f"RETURNING {', '.join('e.' + c for c in ENDPOINT_COLUMNS)}")
# SEND on a backend without row locks (SQLite, whose write lock the transaction holds): the
# sender's endpoint with, as the last column, the owner of a claim another process published
# on its conversation group (``group_claims``, claims.py; NULL when none), so that the group
# lock needs no look-up of its own (one statement, ~13 µs, for two, ~18 µs).
SELECT_ENDPOINT_CLAIM = (
    f"SELECT {', '.join('e.' + c for c in ENDPOINT_COLUMNS)}, (SELECT owner FROM "
    f"{PREFIX}group_claims c WHERE c.conversation_group_id = e.conversation_group_id) "
    f"FROM {PREFIX}conversation_endpoints e WHERE e.conversation_handle = ? "
    "AND e.database_id = ?")
# The conversation's initiator endpoint, locked before a target endpoint's row is changed
# (SEND, END CONVERSATION, a conversation timer): endpoint rows of one conversation are
# always locked initiator first, so they never form a cycle.
LOCK_INITIATOR_PG = (f"SELECT 1 FROM {PREFIX}conversation_endpoints WHERE conversation_id = ? "
                     "AND is_initiator = 1 FOR UPDATE")
UNCLAIM_SEND = (f"UPDATE {PREFIX}conversation_endpoints SET send_sequence = ? "
                "WHERE conversation_handle = ?")
MESSAGE_INSERT_COLUMNS = (
    "database_id", "queue_id", "status", "priority", "conversation_group_id",
    "conversation_handle", "message_sequence_number", "service_name", "service_id",
    "service_contract_name", "service_contract_id", "message_type_name", "message_type_id",
    "validation", "message_body", "message_enqueue_time", "message_id", "rank")
INSERT_MESSAGE = (f"INSERT INTO {PREFIX}messages ({', '.join(MESSAGE_INSERT_COLUMNS)}) "
                  f"VALUES ({', '.join('?' for _ in MESSAGE_INSERT_COLUMNS)})")
MESSAGE_COLUMNS = ("queuing_order",) + MESSAGE_INSERT_COLUMNS
_INSERT_CASTS = ("integer", "integer", None, None, None, None, "integer", "varchar", "integer",
                 "varchar", "integer", "varchar", "integer", "varchar", "bytea", "timestamp",
                 "varchar", "integer")
# The columns of a message that come from the receiving endpoint's row (the rest are
# parameters, in MESSAGE_INSERT_COLUMNS order; status is 1).
_FROM_PEER = {"status": "1", "priority": "p.priority",
              "conversation_group_id": "p.conversation_group_id",
              "conversation_handle": "p.conversation_handle"}
DELIVER_PARAM_INDEXES = tuple(i for i, c in enumerate(MESSAGE_INSERT_COLUMNS)
                              if c not in _FROM_PEER)
# PostgreSQL, at commit: CLAIM_PEER and INSERT_MESSAGE in one statement, sent with the COMMIT
# (``Txn.commit_guard``). The peer endpoint is the one last seen on this conversation's
# side; the claim holds only while it is still that endpoint (database, queue, service,
# contract: what the caller checked the message against) and expects exactly this sequence
# number in a conversing state. Otherwise nothing is written and the statement fails with
# the guard's marker: the caller delivers the long way. Parameters: the claim's (next
# sequence number, conversation id, side, sequence number, database, queue, service,
# contract), then the message's columns at DELIVER_PARAM_INDEXES.
def _deliver_guarded_pg(before: str = "", peer_condition: str = "") -> str:
    """The guarded delivery's text: CTEs ``before`` its own (ending in ", ") and a further
    condition on the peer's claim."""
    return (
        f"WITH {before}p AS (UPDATE {PREFIX}conversation_endpoints SET receive_sequence = "
        "?::integer WHERE conversation_id = ? AND is_initiator = ?::integer AND "
        f"receive_sequence = ?::integer AND {_SENDABLE} AND database_id = ?::integer "
        "AND queue_id = ?::integer AND service_id = ?::integer AND service_contract_id = "
        f"?::integer{peer_condition} RETURNING priority, conversation_group_id, "
        "conversation_handle), "
        f"i AS (INSERT INTO {PREFIX}messages ({', '.join(MESSAGE_INSERT_COLUMNS)}) SELECT "
        + ", ".join(_FROM_PEER.get(c) or f"?::{t}"
                    for c, t in zip(MESSAGE_INSERT_COLUMNS, _INSERT_CASTS, strict=True))
        + " FROM p RETURNING 1) "
        f"SELECT CASE WHEN n = 1 THEN 0 ELSE ('{GUARD_FAILED}:' || n)::integer END "
        "FROM (SELECT count(*) AS n FROM i) AS c")


DELIVER_GUARDED_PG = _deliver_guarded_pg()
# PostgreSQL, a SEND the COMMIT follows directly (Delivery.send_with_commit): the sender's
# claim too, in the same statement, checked against the sender endpoint the previous SEND
# on it left (same group, database, queue, service, contract, state and next sequence
# number). The locks in the usual order: the group's row (SKIP LOCKED: a group held
# elsewhere fails the check and the SEND runs again the long way, which waits), the
# conversation's initiator endpoint when the sender is the target, the sender's row, the
# peer's. Parameters: group, conversation id, sender's side, next sequence number, handle,
# database, sequence number, state, queue, service, contract; then DELIVER_GUARDED_PG's.
SEND_DELIVER_GUARDED_PG = _deliver_guarded_pg(
    f"g AS (SELECT conversation_group_id FROM {PREFIX}conversation_groups WHERE "
    "conversation_group_id = ? FOR UPDATE SKIP LOCKED), "
    f"li AS (SELECT 1 FROM {PREFIX}conversation_endpoints WHERE conversation_id = ? "
    "AND is_initiator = 1 AND ?::integer = 0 AND EXISTS (SELECT 1 FROM g) FOR UPDATE), "
    f"s AS (UPDATE {PREFIX}conversation_endpoints e SET send_sequence = ?::integer FROM g "
    "WHERE e.conversation_handle = ? AND e.database_id = ?::integer AND e.send_sequence = "
    "?::integer AND e.state = ? AND e.conversation_group_id = g.conversation_group_id "
    "AND e.queue_id = ?::integer AND e.service_id = ?::integer AND e.service_contract_id = "
    "?::integer AND (SELECT count(*) FROM li) >= 0 RETURNING 1), ",
    " AND EXISTS (SELECT 1 FROM s)")


def run(conn: StoreConnection, sql: str, params: tuple[Any, ...] = ()) -> Any:
    """Execute hot-path SQL with positional parameters on the connection's DBAPI connection
    (hence in the same storage transaction as every other statement of the session);
    returns a cursor-like object (``fetchone`` / ``fetchall`` / iteration). On PostgreSQL
    through libpq directly (:mod:`.pgexec`; its failures are SQLAlchemy's ``DBAPIError`` as
    on every other PostgreSQL path)."""
    return conn.backend.execute_fast(conn, sql, params)


def run_with_commit(txn: Txn, sql: str, params: tuple[Any, ...] = ()) -> bool:
    """PostgreSQL, while the last deferred operation of ``txn`` flushes: send this final
    statement of the transaction (no result wanted) together with the COMMIT, one round trip
    for both — the parameters merged in client-side (:func:`.pgexec.merged`). True when so
    arranged (the statement runs at commit, after any other statement); False: the caller
    runs it."""
    return txn.conn.backend.execute_with_commit(txn, sql, params)


def guarded_with_commit(txn: Txn, sql: str, params: tuple[Any, ...],
                        fallback: Callable[[StoreConnection], None]) -> bool:
    """PostgreSQL, while the last deferred operation of ``txn`` flushes: like
    :func:`run_with_commit`, for a statement whose check may fail at commit (see
    ``Txn.commit_guard``); ``fallback(conn)`` then does its work the long way. True when so
    arranged; False: the caller does the work now."""
    conn = txn.conn
    if not txn.flushing_last or not conn.sends_with_commit or txn.commit_guard is not None:
        return False
    txn.commit_guard = CommitGuard(conn.backend.merged_text(conn, sql, params),
                                   fallback)
    return True


def db_time(conn: StoreConnection, value: datetime | None) -> Any:
    """A naive UTC time as the backend stores it."""
    return conn.backend.time_param(value)


def py_time(value: Any) -> datetime | None:
    """A stored time back as ``datetime``."""
    if value is None or isinstance(value, datetime):
        return value
    return datetime.fromisoformat(str(value))


def endpoint_from(row: Any) -> Endpoint:
    """An :class:`Endpoint` from a row of :data:`SELECT_ENDPOINT` (columns in field order;
    positional, as this runs several times per message)."""
    values = list(row)
    if len(values) != len(ENDPOINT_COLUMNS):
        raise ValueError(f"endpoint row of {len(values)} columns")
    for i in _DATETIME_INDEXES:
        values[i] = py_time(values[i])
    for i in _BOOL_INDEXES:
        values[i] = bool(values[i])
    return Endpoint(*values)


def fetch_endpoint(conn: StoreConnection, handle: str) -> Endpoint | None:
    """The endpoint with conversation handle ``handle`` (stored form), or None."""
    row = run(conn, SELECT_ENDPOINT, (handle,)).fetchone()
    return None if row is None else endpoint_from(row)


def fetch_peer(conn: StoreConnection, conversation_id: str, is_initiator: int
               ) -> Endpoint | None:
    """The endpoint of ``conversation_id`` on the given side, or None."""
    row = run(conn, SELECT_PEER, (conversation_id, is_initiator)).fetchone()
    return None if row is None else endpoint_from(row)
