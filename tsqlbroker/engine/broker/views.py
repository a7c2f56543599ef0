"""Queues and the broker's catalog views / DMVs as virtual tables of the DML layer
(``SELECT * FROM tradeEntryQueue``, ``SELECT state_desc FROM sys.conversation_endpoints``).

Each resolver answer is backend SELECT text over the broker tables with the database id
baked in; columns follow reference §2 / §4 in documented order. Queues and views are
read-only: INSERT / UPDATE / DELETE raise Msg 259. The two DMVs read in-memory state (the
activation manager's monitors and tasks, the waiters of :mod:`.waits`) and are rendered as
literal rows; so are the endpoint views and network DMVs of :mod:`.endpoint_views`.
"""

from __future__ import annotations

from typing import Any

from ...errors import BrokerError
from .. import visibility
from ..context import ExecContext, VirtualTable, register_virtual_table
from ..literal_rows import literal_rows
from ..security import Security
from ..security_tables import PREFIX as SECURITY_PREFIX
from .endpoint_views import CATALOG as ENDPOINT_CATALOG
from .endpoint_views import VIEWS as ENDPOINT_VIEWS
from .objects import Objects
from .receive import COLUMN_ALIASES, QUEUE_COLUMNS
from .schema import PREFIX
from .state import BrokerState

_UUID0 = "00000000-0000-0000-0000-000000000000"
# catalog views filtered by metadata visibility: view -> (securable class, id column, rows
# everyone sees: the built-in message types and contracts, as public's REFERENCES on them)
_FILTERED: dict[str, tuple[int, str, str | None]] = {
    "service_message_types": (visibility.MESSAGE_TYPE, "message_type_id", "is_system"),
    "service_contracts": (visibility.CONTRACT, "service_contract_id",
                          "service_contract_id < 65536"),
    "services": (visibility.SERVICE, "service_id", None),
    "service_queues": (visibility.OBJECT, "object_id", None),
    "routes": (visibility.ROUTE, "route_id", None),
    "remote_service_bindings": (visibility.BINDING, "remote_service_binding_id", None),
    # rows that belong to a service or contract are seen with it (docs/decisions.md)
    "service_contract_usages": (visibility.SERVICE, "service_id", None),
    "service_queue_usages": (visibility.SERVICE, "service_id", None),
    "service_contract_message_usages": (visibility.CONTRACT, "service_contract_id",
                                        "service_contract_id < 65536"),
    "conversation_endpoints": (visibility.SERVICE, "service_id", None),
    "conversation_groups": (visibility.SERVICE, "service_id", None),
    "service_instances": (visibility.SERVICE, "service_id", None),
    # a message waiting for transmission is seen with the local service that sent it (its
    # conversation endpoint's service)
    "transmission_queue": (visibility.SERVICE,
                           ("(SELECT s.service_id FROM {p}services s WHERE "
                            "s.database_id = {db} AND s.name = from_service_name)"), None),
}
# the filtered views whose rows carry their owner (principal_id)
_OWNED = frozenset({"service_message_types", "service_contracts", "services", "routes",
                    "remote_service_bindings"})
_UNSET = "1900-01-01 00:00:00"


def _b(col: str) -> str:
    """A boolean column as 0/1 on every backend."""
    return f"CASE WHEN {col} THEN 1 ELSE 0 END"


# sys.event_notifications and sys.server_event_notifications have the same columns.
_NOTIFICATION_COLUMNS = [
    ("name", "sysname"), ("object_id", "int"), ("parent_class", "tinyint"),
    ("parent_class_desc", "nvarchar(60)"), ("parent_id", "int"), ("create_date", "datetime"),
    ("modify_date", "datetime"), ("service_name", "nvarchar(256)"),
    ("broker_instance", "nvarchar(128)"), ("creator_sid", "varbinary(85)"),
    ("principal_id", "int")]

# name → (columns, SQL template with {db} and {p} (table prefix))
# the owners ALTER AUTHORIZATION recorded (engine/owners.py)
OWNERS_TABLE = SECURITY_PREFIX + "owners"
_VIEWS: dict[str, tuple[list[tuple[str, str]], str]] = {
    "service_message_types": (
        [("name", "sysname"), ("message_type_id", "int"), ("principal_id", "int"),
         ("validation", "char(2)"), ("validation_desc", "nvarchar(60)"),
         ("xml_collection_id", "int")],
        ("SELECT name, message_type_id, principal_id, validation, CASE validation WHEN 'N' "
        "THEN 'BINARY' WHEN 'E' THEN 'EMPTY' ELSE 'XML' END AS validation_desc, "
        "xml_collection_id FROM {p}message_types WHERE database_id = {db}")),
    "service_contracts": (
        [("name", "sysname"), ("service_contract_id", "int"), ("principal_id", "int")],
        ("SELECT name, service_contract_id, principal_id FROM {p}contracts "
        "WHERE database_id = {db}")),
    "service_contract_message_usages": (
        [("service_contract_id", "int"), ("message_type_id", "int"),
         ("is_sent_by_initiator", "bit"), ("is_sent_by_target", "bit")],
        "SELECT service_contract_id, message_type_id, "
        + _b("is_sent_by_initiator") + " AS is_sent_by_initiator, "
        + _b("is_sent_by_target") + " AS is_sent_by_target FROM {p}contract_usages "
        "WHERE database_id = {db}"),
    "services": (
        [("name", "sysname"), ("service_id", "int"), ("principal_id", "int"),
         ("service_queue_id", "int")],
        ("SELECT name, service_id, principal_id, service_queue_id FROM {p}services "
        "WHERE database_id = {db}")),
    "service_contract_usages": (
        [("service_id", "int"), ("service_contract_id", "int")],
        ("SELECT service_id, service_contract_id FROM {p}service_contracts "
        "WHERE database_id = {db}")),
    "service_queue_usages": (
        [("service_id", "int"), ("service_queue_id", "int")],
        "SELECT service_id, service_queue_id FROM {p}services WHERE database_id = {db}"),
    "service_queues": (
        [("name", "sysname"), ("object_id", "int"), ("principal_id", "int"),
         ("schema_id", "int"), ("parent_object_id", "int"), ("type", "char(2)"),
         ("type_desc", "nvarchar(60)"), ("create_date", "datetime"),
         ("modify_date", "datetime"), ("is_ms_shipped", "bit"), ("is_published", "bit"),
         ("is_schema_published", "bit"), ("max_readers", "smallint"),
         ("activation_procedure", "nvarchar(776)"), ("execute_as_principal_id", "int"),
         ("is_activation_enabled", "bit"), ("is_receive_enabled", "bit"),
         ("is_enqueue_enabled", "bit"), ("is_retention_enabled", "bit"),
         ("is_poison_message_handling_enabled", "bit")],
        "SELECT name, object_id, NULL AS principal_id, schema_id, 0 AS parent_object_id, "
        "'SQ' AS type, 'SERVICE_QUEUE' AS type_desc, create_date, modify_date, "
        "0 AS is_ms_shipped, 0 AS is_published, 0 AS is_schema_published, max_readers, "
        "activation_procedure, CASE WHEN execute_as IS NULL THEN NULL "
        "WHEN UPPER(execute_as) = 'OWNER' THEN -2 "
        # the principal id the interpreter resolved SELF or the user to (older stores kept
        # the name: shown as dbo's)
        "WHEN SUBSTR(execute_as, 1, 1) IN ('0','1','2','3','4','5','6','7','8','9') "
        "THEN CAST(execute_as AS INTEGER) ELSE 1 END AS execute_as_principal_id, "
        + _b("is_activation_enabled") + " AS is_activation_enabled, "
        + _b("is_receive_enabled") + " AS is_receive_enabled, "
        + _b("is_enqueue_enabled") + " AS is_enqueue_enabled, "
        + _b("is_retention_enabled") + " AS is_retention_enabled, "
        + _b("is_poison_message_handling_enabled") + " AS is_poison_message_handling_enabled"
        " FROM {p}queues WHERE database_id = {db}"),
    "conversation_endpoints": (
        [("conversation_handle", "uniqueidentifier"), ("conversation_id", "uniqueidentifier"),
         ("is_initiator", "tinyint"), ("service_contract_id", "int"),
         ("conversation_group_id", "uniqueidentifier"), ("service_id", "int"),
         ("lifetime", "datetime"), ("state", "char(2)"), ("state_desc", "nvarchar(60)"),
         ("far_service", "nvarchar(256)"), ("far_broker_instance", "nvarchar(128)"),
         ("principal_id", "int"), ("far_principal_id", "int"),
         ("outbound_session_key_identifier", "uniqueidentifier"),
         ("inbound_session_key_identifier", "uniqueidentifier"),
         ("security_timestamp", "datetime"), ("dialog_timer", "datetime"),
         ("send_sequence", "bigint"), ("last_send_tran_id", "binary(6)"),
         ("end_dialog_sequence", "bigint"), ("receive_sequence", "bigint"),
         ("receive_sequence_frag", "int"), ("system_sequence", "bigint"),
         ("first_out_of_order_sequence", "bigint"), ("last_out_of_order_sequence", "bigint"),
         ("last_out_of_order_frag", "int"), ("is_system", "bit"), ("priority", "tinyint")],
        ("SELECT conversation_handle, conversation_id, is_initiator, service_contract_id, "
        "conversation_group_id, service_id, lifetime, state, CASE state "
        "WHEN 'SO' THEN 'STARTED_OUTBOUND' WHEN 'SI' THEN 'STARTED_INBOUND' "
        "WHEN 'CO' THEN 'CONVERSING' WHEN 'DI' THEN 'DISCONNECTED_INBOUND' "
        "WHEN 'DO' THEN 'DISCONNECTED_OUTBOUND' WHEN 'ER' THEN 'ERROR' "
        "ELSE 'CLOSED' END AS state_desc, far_service, "
        # BEGIN DIALOG … TO SERVICE 's', 'guid' | 'CURRENT DATABASE' names the far broker
        # at once; otherwise it is known when the far endpoint is (on the first message).
        "COALESCE(far_broker_instance, CASE WHEN UPPER(TRIM(target_broker)) = "
        "'CURRENT DATABASE' THEN (SELECT service_broker_guid FROM tsqlb_databases "
        "WHERE database_id = {db}) ELSE target_broker END) AS far_broker_instance, "
        "1 AS principal_id, 1 AS far_principal_id, "
        f"'{_UUID0}' AS outbound_session_key_identifier, "
        f"'{_UUID0}' AS inbound_session_key_identifier, "
        f"COALESCE(security_timestamp, '{_UNSET}') AS security_timestamp, "
        f"COALESCE(dialog_timer, '{_UNSET}') AS dialog_timer, send_sequence, "
        "NULL AS last_send_tran_id, end_dialog_sequence, receive_sequence, "
        "0 AS receive_sequence_frag, system_sequence, -1 AS first_out_of_order_sequence, "
        "-1 AS last_out_of_order_sequence, 0 AS last_out_of_order_frag, 0 AS is_system, "
        "priority FROM {p}conversation_endpoints WHERE database_id = {db}")),
    "event_notifications": (
        _NOTIFICATION_COLUMNS,
        ("SELECT name, object_id, CASE WHEN parent_id = 0 THEN 0 ELSE 1 END AS parent_class, "
         "CASE WHEN parent_id = 0 THEN 'DATABASE' ELSE 'OBJECT_OR_COLUMN' END "
         "AS parent_class_desc, "
         "parent_id, create_date, create_date AS modify_date, service_name, broker_instance, "
         "NULL AS creator_sid, NULL AS principal_id "
         "FROM {p}event_notifications WHERE database_id = {db} AND parent_id >= 0")),
    # Notifications ON SERVER (parent_id -1), whatever the database they were made in.
    "server_event_notifications": (
        _NOTIFICATION_COLUMNS,
        ("SELECT name, object_id, 100 AS parent_class, 'SERVER' AS parent_class_desc, "
         "0 AS parent_id, create_date, create_date AS modify_date, service_name, "
         "broker_instance, NULL AS creator_sid, NULL AS principal_id "
         "FROM {p}event_notifications WHERE parent_id = -1")),
    "conversation_groups": (
        [("conversation_group_id", "uniqueidentifier"), ("service_id", "int"),
         ("is_system", "bit")],
        ("SELECT conversation_group_id, service_id, 0 AS is_system "
        "FROM {p}conversation_groups WHERE database_id = {db}")),
    # The pre-release name of sys.conversation_groups (the seed chapter queries it).
    "service_instances": (
        [("service_instance_id", "uniqueidentifier"), ("service_id", "int"),
         ("is_system", "bit")],
        ("SELECT conversation_group_id AS service_instance_id, service_id, 0 AS is_system "
        "FROM {p}conversation_groups WHERE database_id = {db}")),
    "transmission_queue": (
        [("conversation_handle", "uniqueidentifier"), ("to_service_name", "nvarchar(256)"),
         ("to_broker_instance", "nvarchar(128)"), ("from_service_name", "nvarchar(256)"),
         ("service_contract_name", "nvarchar(256)"), ("enqueue_time", "datetime"),
         ("message_sequence_number", "bigint"), ("message_type_name", "nvarchar(256)"),
         ("is_conversation_error", "bit"), ("is_end_of_dialog", "bit"),
         ("message_body", "varbinary(max)"), ("transmission_status", "nvarchar(4000)"),
         ("priority", "tinyint")],
        "SELECT conversation_handle, to_service_name, to_broker_instance, from_service_name, "
        "service_contract_name, enqueue_time, message_sequence_number, message_type_name, "
        + _b("is_conversation_error") + " AS is_conversation_error, "
        + _b("is_end_of_dialog") + " AS is_end_of_dialog, message_body, "
        "transmission_status, priority FROM {p}transmission_queue WHERE database_id = {db}"),
    "routes": (
        [("name", "sysname"), ("route_id", "int"), ("principal_id", "int"),
         ("remote_service_name", "nvarchar(256)"), ("broker_instance", "nvarchar(128)"),
         ("lifetime", "datetime"), ("address", "nvarchar(256)"),
         ("mirror_address", "nvarchar(256)")],
        ("SELECT name, route_id, principal_id, remote_service_name, broker_instance, "
        "lifetime, address, mirror_address FROM {p}routes WHERE database_id = {db}")),
    "remote_service_bindings": (
        [("name", "sysname"), ("remote_service_binding_id", "int"), ("principal_id", "int"),
         ("remote_service_name", "nvarchar(256)"), ("service_contract_id", "int"),
         ("remote_principal_id", "int"), ("is_anonymous_on", "bit")],
        "SELECT name, remote_service_binding_id, principal_id, remote_service_name, "
        "service_contract_id, remote_principal_id, " + _b("is_anonymous_on")
        + " AS is_anonymous_on FROM {p}bindings WHERE database_id = {db}"),
    "conversation_priorities": (
        [("priority_id", "int"), ("name", "sysname"), ("service_contract_id", "int"),
         ("local_service_id", "int"), ("remote_service_name", "nvarchar(256)"),
         ("priority", "tinyint")],
        ("SELECT priority_id, name, service_contract_id, local_service_id, "
        "remote_service_name, priority FROM {p}priorities WHERE database_id = {db}")),
    "xml_schema_collections": (
        [("xml_collection_id", "int"), ("schema_id", "int"), ("principal_id", "int"),
         ("name", "sysname"), ("create_date", "datetime"), ("modify_date", "datetime")],
        # principal_id: the owner ALTER AUTHORIZATION gave it (NULL: its schema's owner)
        ("SELECT xml_collection_id, MIN(schema_id) AS schema_id, (SELECT o.principal_id FROM "
        + OWNERS_TABLE + " o WHERE o.database_id = {db} AND o.major_id = xml_collection_id "
        "AND o.\"class\" = 10) AS principal_id, "
        "MIN(name) AS name, MIN(create_date) AS create_date, MAX(create_date) AS modify_date "
        "FROM {p}xml_schemas WHERE database_id = {db} GROUP BY xml_collection_id")),
}

_DM_MONITORS = [("database_id", "int"), ("queue_id", "int"), ("state", "nvarchar(32)"),
                ("last_empty_rowset_time", "datetime"), ("last_activated_time", "datetime"),
                ("tasks_waiting", "int")]
_DM_TASKS = [("spid", "int"), ("database_id", "smallint"), ("queue_id", "int"),
             ("procedure_name", "nvarchar(650)"), ("execute_as", "int")]


def _refuse(what: str) -> BrokerError:
    return BrokerError(259, f"Ad hoc updates to system catalogs are not allowed. ('{what}' "
                            "is changed only by Service Broker statements.)")


class Views:
    """Resolver of queue names and broker catalog views for the DML layer (a part of
    :class:`~tsqlbroker.engine.broker.Broker`)."""

    def __init__(self, state: BrokerState, objects: Objects) -> None:
        self.state = state
        self.objects = objects
        self._views_registered = False

    def register_views(self) -> None:
        """Register the resolver with the store's virtual-table registry (idempotent)."""
        if not self._views_registered:
            register_virtual_table(self.state.store, self.resolve_virtual)
            self._views_registered = True

    def resolve_virtual(self, ctx: ExecContext, database: str | None, schema: str | None,
                        name: str) -> VirtualTable | None:
        """``resolver(ctx, database, schema, name)`` of :mod:`tsqlbroker.engine.context`."""
        db_id = ctx.db_id
        key = name.lower()
        if schema is not None and schema.lower() == "sys":
            return self._view(ctx, db_id, key)
        meta = self.state.db(ctx.conn, db_id)
        q = meta.queues_by_name.get(((schema or "dbo").lower(), key))
        if q is None:
            return None
        cols = ", ".join(c for c, _t in QUEUE_COLUMNS)
        return VirtualTable(
            f"SELECT {cols} FROM {PREFIX}messages WHERE queue_id = {int(q.object_id)}",
            list(QUEUE_COLUMNS), False, _refuse(q.name), column_aliases=dict(COLUMN_ALIASES))

    def _view(self, ctx: ExecContext, db_id: int, key: str) -> VirtualTable | None:
        if key in _VIEWS:
            self.state.db(ctx.conn, db_id)
            if OWNERS_TABLE in _VIEWS[key][1]:
                Security.get(ctx.conn.store).ensure(ctx.conn)
            columns, template = _VIEWS[key]
            sql = template.format(p=PREFIX, db=int(db_id))
            if key in _FILTERED and (principals := visibility.viewer(ctx, db_id)) is not None:
                class_, id_col, shown = _FILTERED[key]
                id_col = id_col.format(p=PREFIX, db=int(db_id))
                seen = visibility.visible(Security.get(ctx.conn.store), ctx.conn, db_id,
                                          principals, class_)
                text = visibility.condition_text(seen, id_col, "schema_id", "'SQ'")
                if shown:
                    text = f"({text} OR {shown})"
                if key in _OWNED:
                    # an owner sees what it owns
                    owners = ", ".join(str(int(p)) for p in sorted(principals))
                    text = f"({text} OR principal_id IN ({owners}))"
                sql += f" AND {text}"
            return VirtualTable(sql, list(columns), False, _refuse(f"sys.{key}"))
        if key.startswith("dm_"):
            visibility.require_server_state(ctx)
        if key in ENDPOINT_VIEWS:
            columns, rows = ENDPOINT_VIEWS[key](self.state, ctx.conn)
            seen = visibility.endpoint_filter(ctx) if key in ENDPOINT_CATALOG else None
            if seen is not None:
                rows = [r for r in rows if seen(int(r[1]), r[2])]
            return VirtualTable(literal_rows(columns, rows, ctx.conn.backend), list(columns), False,
                                _refuse(f"sys.{key}"))
        if key == "dm_broker_queue_monitors":
            return VirtualTable(literal_rows(_DM_MONITORS, self._monitor_rows(ctx), ctx.conn.backend),
                                list(_DM_MONITORS), False, _refuse(f"sys.{key}"))
        if key == "dm_broker_activated_tasks":
            return VirtualTable(literal_rows(_DM_TASKS, self._task_rows(), ctx.conn.backend), list(_DM_TASKS),
                                False, _refuse(f"sys.{key}"))
        return None

    def _monitor_rows(self, ctx: ExecContext) -> list[tuple[Any, ...]]:
        """One row per queue with activation enabled (SQL Server keeps a monitor for those
        only): the activation manager's monitor, or INACTIVE if it has not seen the queue
        yet. A monitor whose activated tasks still run after ACTIVATION (STATUS = OFF) or
        (DROP) is shown until they end."""
        rows: list[tuple[Any, ...]] = []
        enabled = {(q.database_id, q.object_id) for q in self.objects.queues(ctx.conn)
                   if q.is_activation_enabled}
        seen: set[tuple[int, int]] = set()
        manager = self.state.activation
        if manager is not None and hasattr(manager, "monitors"):
            for mon in manager.monitors():
                key = (mon.db_id, mon.queue_id)
                if key not in enabled and not getattr(mon, "tasks", None):
                    continue  # a queue without activation (or dropped): no monitor
                waiting = max(int(getattr(mon, "tasks_waiting", 0) or 0),
                              self.state.signals.tasks_waiting(key))
                rows.append((mon.db_id, mon.queue_id, mon.state, mon.last_empty_rowset_time,
                             mon.last_activated_time, waiting))
                seen.add(key)
        for key in sorted(enabled - seen):
            rows.append((key[0], key[1], "INACTIVE",
                         self.state.signals.last_empty_rowset_time.get(key), None,
                         self.state.signals.tasks_waiting(key)))
        return rows

    def _task_rows(self) -> list[tuple[Any, ...]]:
        manager = self.state.activation
        if manager is None or not hasattr(manager, "activated_tasks"):
            return []
        return [(t.spid, t.db_id, t.queue_id, t.procedure,
                 -2 if (t.execute_as or "").upper() == "OWNER" else None)
                for t in manager.activated_tasks()]
