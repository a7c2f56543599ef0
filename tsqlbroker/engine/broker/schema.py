"""The Service Broker's backend tables (SQLAlchemy Core, on the store's ``MetaData``).

Everything the broker keeps lives here, keyed by ``database_id`` so that one backend holds the
broker state of every T-SQL database of the instance. Queues are catalog objects (type ``SQ``,
their ``object_id`` comes from the catalog); their settings and their messages are in these
tables. Uniqueidentifiers are stored as upper-case text (the project's convention), times as
naive UTC ``DateTime`` (SQL Server's broker columns are UTC).

The message table is the hot path: ``ix_tsqlb_sb_msg_ready`` serves "next ready message of a
queue by priority and queuing order", ``ix_tsqlb_sb_msg_receive`` serves per-conversation work
(its leading column is the conversation handle, so it also serves the DELETE / UPDATE of a
conversation's rows, and a group's rows through the group's endpoints). Every index here is
maintained by every SEND and RECEIVE — on SQLite one more WAL page per message each — so
there is none on (handle, sequence) or on the group column.
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import (
    Boolean,
    Column,
    DateTime,
    Float,
    Index,
    Integer,
    LargeBinary,
    MetaData,
    String,
    Table,
    Text,
)

PREFIX = "tsqlb_sb_"


@dataclass(frozen=True)
class BrokerTables:
    """Every broker table of one store."""

    message_types: Table
    contracts: Table
    contract_usages: Table
    queues: Table
    services: Table
    service_contracts: Table
    routes: Table
    bindings: Table
    endpoints_net: Table
    priorities: Table
    xml_schemas: Table
    dbinit: Table
    conversations: Table
    groups: Table
    messages: Table
    transmission: Table
    claims: Table
    waits: Table
    notifications: Table

    def all(self) -> list[Table]:
        """The tables in creation order."""
        return [getattr(self, f) for f in self.__dataclass_fields__]


def broker_tables(metadata: MetaData) -> BrokerTables:
    """Define (once per ``metadata``) and return the broker tables."""
    t = metadata.tables
    if PREFIX + "messages" in t:
        return BrokerTables(*(t[PREFIX + n] for n in _NAMES))
    message_types = Table(
        PREFIX + "message_types", metadata,
        Column("database_id", Integer, primary_key=True, autoincrement=False),
        Column("message_type_id", Integer, primary_key=True, autoincrement=False),
        Column("name", String(256), nullable=False),
        Column("principal_id", Integer),
        Column("validation", String(2), nullable=False),        # N / E / X
        Column("xml_collection_id", Integer),                  # VALID_XML … COLLECTION
        Column("schema_namespace", String(1024)),              # pre-release ENCODING XML WITH 'ns'
        Column("is_system", Boolean, nullable=False, default=False),
    )
    contracts = Table(
        PREFIX + "contracts", metadata,
        Column("database_id", Integer, primary_key=True, autoincrement=False),
        Column("service_contract_id", Integer, primary_key=True, autoincrement=False),
        Column("name", String(256), nullable=False),
        Column("principal_id", Integer),
    )
    contract_usages = Table(
        PREFIX + "contract_usages", metadata,
        Column("database_id", Integer, primary_key=True, autoincrement=False),
        Column("service_contract_id", Integer, primary_key=True, autoincrement=False),
        Column("message_type_id", Integer, primary_key=True, autoincrement=False),
        Column("is_sent_by_initiator", Boolean, nullable=False),
        Column("is_sent_by_target", Boolean, nullable=False),
    )
    queues = Table(
        PREFIX + "queues", metadata,
        Column("object_id", Integer, primary_key=True, autoincrement=False),
        Column("database_id", Integer, nullable=False),
        Column("schema_id", Integer, nullable=False),
        Column("schema_name", String(128), nullable=False),
        Column("name", String(128), nullable=False),
        Column("is_receive_enabled", Boolean, nullable=False),
        Column("is_enqueue_enabled", Boolean, nullable=False),
        Column("is_retention_enabled", Boolean, nullable=False),
        Column("is_activation_enabled", Boolean, nullable=False),
        Column("activation_procedure", String(776)),
        Column("max_readers", Integer, nullable=False, default=0),
        Column("execute_as", String(128)),                     # OWNER / principal id of SELF or the user (model.ActivationSettings)
        Column("is_poison_message_handling_enabled", Boolean, nullable=False),
        Column("create_date", DateTime, nullable=False),
        Column("modify_date", DateTime, nullable=False),
    )
    services = Table(
        PREFIX + "services", metadata,
        Column("database_id", Integer, primary_key=True, autoincrement=False),
        Column("service_id", Integer, primary_key=True, autoincrement=False),
        Column("name", String(256), nullable=False),
        Column("principal_id", Integer),
        Column("service_queue_id", Integer, nullable=False),
    )
    service_contracts = Table(
        PREFIX + "service_contracts", metadata,
        Column("database_id", Integer, primary_key=True, autoincrement=False),
        Column("service_id", Integer, primary_key=True, autoincrement=False),
        Column("service_contract_id", Integer, primary_key=True, autoincrement=False),
    )
    routes = Table(
        PREFIX + "routes", metadata,
        Column("database_id", Integer, primary_key=True, autoincrement=False),
        Column("route_id", Integer, primary_key=True, autoincrement=False),
        Column("name", String(128), nullable=False),
        Column("principal_id", Integer),
        Column("remote_service_name", String(256)),
        Column("broker_instance", String(128)),
        Column("lifetime", DateTime),
        Column("address", String(256)),
        Column("mirror_address", String(256)),
    )
    bindings = Table(
        PREFIX + "bindings", metadata,
        Column("database_id", Integer, primary_key=True, autoincrement=False),
        Column("remote_service_binding_id", Integer, primary_key=True, autoincrement=False),
        Column("name", String(128), nullable=False),
        Column("principal_id", Integer),
        Column("remote_service_name", String(256), nullable=False),
        Column("service_contract_id", Integer, nullable=False, default=0),
        Column("remote_principal_id", Integer),
        Column("remote_user", String(128)),
        Column("is_anonymous_on", Boolean, nullable=False, default=False),
    )
    endpoints_net = Table(
        PREFIX + "tcp_endpoints", metadata,
        Column("endpoint_id", Integer, primary_key=True, autoincrement=False),
        Column("name", String(128), nullable=False),
        Column("principal_id", Integer),
        Column("state", String(16), nullable=False),
        Column("port", Integer),
        Column("ip", String(64)),
        Column("authentication", String(256)),
        Column("encryption", String(64)),
        Column("encryption_algorithm", String(32)),
        Column("message_forwarding", Boolean, nullable=False, default=False),
        Column("message_forward_size", Integer),
    )
    priorities = Table(
        PREFIX + "priorities", metadata,
        Column("database_id", Integer, primary_key=True, autoincrement=False),
        Column("priority_id", Integer, primary_key=True, autoincrement=False),
        Column("name", String(128), nullable=False),
        Column("service_contract_id", Integer),
        Column("local_service_id", Integer),
        Column("remote_service_name", String(256)),
        Column("priority", Integer, nullable=False),
    )
    xml_schemas = Table(
        PREFIX + "xml_schemas", metadata,
        Column("id", Integer, primary_key=True, autoincrement=True),
        Column("database_id", Integer, nullable=False),
        Column("xml_collection_id", Integer, nullable=False),
        Column("schema_id", Integer, nullable=False),
        Column("schema_name", String(128), nullable=False),
        Column("name", String(128), nullable=False),
        Column("target_namespace", String(1024)),
        Column("xsd", Text, nullable=False),
        Column("create_date", DateTime, nullable=False),
    )
    # Databases whose built-in broker objects (system message types, DEFAULT contract,
    # AutoCreatedLocal route) exist.
    dbinit = Table(
        PREFIX + "dbinit", metadata,
        Column("database_id", Integer, primary_key=True, autoincrement=False),
    )
    conversations = Table(
        PREFIX + "conversation_endpoints", metadata,
        Column("conversation_handle", String(36), primary_key=True),
        Column("database_id", Integer, nullable=False),
        Column("conversation_id", String(36), nullable=False),
        Column("is_initiator", Integer, nullable=False),
        Column("service_contract_id", Integer, nullable=False),
        Column("conversation_group_id", String(36), nullable=False),
        Column("service_id", Integer, nullable=False),
        Column("queue_id", Integer, nullable=False),
        Column("lifetime", DateTime, nullable=False),
        Column("state", String(2), nullable=False),
        Column("far_service", String(256), nullable=False),
        Column("far_broker_instance", String(128)),
        # 'CURRENT DATABASE' / a broker guid given in BEGIN DIALOG: restricts routing.
        Column("target_broker", String(128)),
        Column("security_timestamp", DateTime),
        Column("dialog_timer", DateTime),
        Column("send_sequence", Integer, nullable=False, default=0),
        Column("end_dialog_sequence", Integer, nullable=False, default=-1),
        Column("receive_sequence", Integer, nullable=False, default=0),
        Column("system_sequence", Integer, nullable=False, default=0),
        Column("priority", Integer, nullable=False, default=5),
        Column("encryption", Boolean, nullable=False, default=True),
        Column("create_date", DateTime, nullable=False),
    )
    Index("ix_tsqlb_sb_conv_id", conversations.c.conversation_id, conversations.c.is_initiator)
    Index("ix_tsqlb_sb_conv_group", conversations.c.conversation_group_id)
    Index("ix_tsqlb_sb_conv_timer", conversations.c.dialog_timer)
    groups = Table(
        PREFIX + "conversation_groups", metadata,
        Column("conversation_group_id", String(36), primary_key=True),
        Column("database_id", Integer, nullable=False),
        Column("service_id", Integer, nullable=False),
        Column("queue_id", Integer, nullable=False),
    )
    messages = Table(
        PREFIX + "messages", metadata,
        # Also the queuing order: assigned in commit order, so it is monotonic per queue.
        Column("queuing_order", Integer, primary_key=True, autoincrement=True),
        Column("database_id", Integer, nullable=False),
        Column("queue_id", Integer, nullable=False),
        Column("status", Integer, nullable=False),
        Column("priority", Integer, nullable=False),
        Column("conversation_group_id", String(36), nullable=False),
        Column("conversation_handle", String(36), nullable=False),
        Column("message_sequence_number", Integer, nullable=False),
        Column("service_name", String(512), nullable=False),
        Column("service_id", Integer, nullable=False),
        Column("service_contract_name", String(256), nullable=False),
        Column("service_contract_id", Integer, nullable=False),
        Column("message_type_name", String(256), nullable=False),
        Column("message_type_id", Integer, nullable=False),
        Column("validation", String(2), nullable=False),
        Column("message_body", LargeBinary),
        Column("message_enqueue_time", DateTime, nullable=False),
        Column("message_id", String(36), nullable=False),
        # RECEIVE precedence inside a conversation: 0 DialogTimer, 1 Error, 2 the rest.
        Column("rank", Integer, nullable=False, default=2),
    )
    Index("ix_tsqlb_sb_msg_ready", messages.c.queue_id, messages.c.status,
          messages.c.priority, messages.c.queuing_order)
    # A conversation's ready rows in RECEIVE order (rank, sequence; the rowid is the
    # queuing_order): RECEIVE TOP (n) reads n index entries, not the whole conversation.
    Index("ix_tsqlb_sb_msg_receive", messages.c.conversation_handle, messages.c.status,
          messages.c.rank, messages.c.message_sequence_number)
    transmission = Table(
        PREFIX + "transmission_queue", metadata,
        Column("id", Integer, primary_key=True, autoincrement=True),
        Column("database_id", Integer, nullable=False),
        Column("conversation_handle", String(36), nullable=False),
        Column("to_service_name", String(256), nullable=False),
        Column("to_broker_instance", String(128)),
        Column("from_service_name", String(256), nullable=False),
        Column("service_contract_name", String(256), nullable=False),
        Column("enqueue_time", DateTime, nullable=False),
        Column("message_sequence_number", Integer, nullable=False),
        Column("message_type_name", String(256), nullable=False),
        Column("is_conversation_error", Boolean, nullable=False),
        Column("is_end_of_dialog", Boolean, nullable=False),
        Column("message_body", LargeBinary),
        Column("transmission_status", String(4000), nullable=False, default=""),
        Column("priority", Integer, nullable=False, default=5),
    )
    Index("ix_tsqlb_sb_tq_conv", transmission.c.conversation_handle, transmission.c.id)
    # Conversation groups owned by open transactions of processes sharing an SQLite file
    # (broker/claims.py; unused elsewhere): owner = the process's tag, txn_id its transaction.
    claims = Table(
        PREFIX + "group_claims", metadata,
        Column("conversation_group_id", String(36), primary_key=True),
        Column("database_id", Integer, nullable=False),
        Column("queue_id", Integer, nullable=False),
        Column("owner", String(64), nullable=False),
        Column("txn_id", Integer, nullable=False),
        # The group the owning transaction waits for, if it does (deadlock detection).
        Column("waiting_for", String(36)),
    )
    # Open transactions of those processes waiting for a group another process holds
    # (broker/claims.py): the others' picks pass over the group while ``since`` — the
    # waiter's last look, ``time.time()`` — is recent. One wait per transaction.
    waits = Table(
        PREFIX + "group_waits", metadata,
        Column("owner", String(64), primary_key=True),
        Column("txn_id", Integer, primary_key=True, autoincrement=False),
        Column("conversation_group_id", String(36), nullable=False),
        Column("database_id", Integer, nullable=False),
        Column("queue_id", Integer, nullable=False),
        Column("since", Float, nullable=False),
    )
    # Event notifications on queues (sys.event_notifications); ``events`` the event types,
    # comma-separated; ``conversation_handle`` the dialog their messages go on while it lasts.
    notifications = Table(
        PREFIX + "event_notifications", metadata,
        Column("object_id", Integer, primary_key=True, autoincrement=False),
        Column("database_id", Integer, nullable=False),
        Column("name", String(128), nullable=False),
        Column("parent_id", Integer, nullable=False),
        Column("events", String(1024), nullable=False),
        Column("service_name", String(256), nullable=False),
        Column("broker_instance", String(128), nullable=False),
        Column("conversation_handle", String(36)),
        Column("create_date", DateTime, nullable=False),
    )
    return BrokerTables(message_types, contracts, contract_usages, queues, services,
                        service_contracts, routes, bindings, endpoints_net, priorities,
                        xml_schemas, dbinit, conversations, groups, messages, transmission,
                        claims, waits, notifications)


_NAMES = ("message_types", "contracts", "contract_usages", "queues", "services",
          "service_contracts", "routes", "bindings", "tcp_endpoints", "priorities",
          "xml_schemas", "dbinit", "conversation_endpoints", "conversation_groups", "messages",
          "transmission_queue", "group_claims", "group_waits", "event_notifications")
