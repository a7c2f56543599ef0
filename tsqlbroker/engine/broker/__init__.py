"""SQL Server Service Broker for tsqlbroker: one :class:`Broker` per store.

Modules: ``schema`` (tables), ``model`` (rows, constants), ``meta`` (metadata cache),
``state`` (what every part shares: tables, lookups, per-transaction state, signals,
listeners), ``group_locks`` (conversation-group locks), and one part per statement family:
``objects`` (message types, schema collections, contracts, queues, services), ``delivery``
(SEND, routing, validation, transmission queue), ``conversations`` (BEGIN DIALOG, END, timers,
MOVE), ``network`` (routes, bindings, endpoint, priorities, ALTER DATABASE), ``receive``
(RECEIVE, GET CONVERSATION GROUP, WAITFOR), ``clock`` (tick), ``views`` (queues and catalog
views for the DML layer), ``notifications`` (event notifications on queues: external
activation), ``activation_link`` (the activation manager's view of the broker).

:class:`Broker` is a front: it builds the state and the parts (each given what it uses) and
binds their public methods as its own, so callers write ``broker.send(…)``.
Every statement method takes the caller's :class:`~tsqlbroker.storage.txn.Txn` and joins its
transaction; the engine never imports the grammar or the interpreter.
"""

from __future__ import annotations

from ...storage.store import Store
from .activation_link import ActivationLink
from .clock import Clock
from .conversations import Conversations
from .delivery import Delivery
from .group_locks import GroupLocks
from .model import ActivationSettings, QueueRow
from .network import Routing
from .notifications import Notifications
from .objects import Objects
from .receive import COLUMN_ALIASES, QUEUE_COLUMNS, Receiving
from .state import BrokerState
from .views import Views

__all__ = ["COLUMN_ALIASES", "QUEUE_COLUMNS", "ActivationSettings", "Broker", "QueueRow"]


def _shared(name: str, doc: str) -> property:
    """A read-only view of the state's attribute ``name`` on the front."""
    return property(lambda self: getattr(self.state, name), doc=doc)


class Broker:
    """The Service Broker of one store (all its databases): a front over its parts."""

    store = _shared("store", "The store the broker keeps its tables in.")
    t = _shared("t", "The broker's tables (:class:`~.schema.BrokerTables`).")
    catalog = _shared("catalog", "The store's catalog.")
    meta = _shared("meta", "The broker metadata cache.")
    locks = _shared("locks", "The store's lock manager (conversation-group locks).")
    signals = _shared("signals", "Queue signals (waiters of WAITFOR, activation).")
    interest = _shared("interest", "PostgreSQL: the queues this process declared interest in.")
    listener = _shared("listener", "PostgreSQL: the listener of other processes' NOTIFYs.")
    filewake = _shared("filewake", "Shared SQLite file: wake-ups between processes.")
    lockdir = _shared("lockdir", "Shared SQLite file: the lock directory beside it.")
    claims = _shared("claims", "Shared SQLite file: conversation-group claims.")
    store_hosting = _shared("store_hosting", "Who hosts the background work of the store.")
    activation = _shared("activation", "The attached activation manager, if any.")

    def __init__(self, store: Store) -> None:
        self.state = state = BrokerState(store)
        self.group_locks = group_locks = GroupLocks(state)
        self.delivery = delivery = Delivery(state, group_locks)
        self.conversations = conversations = Conversations(state, group_locks, delivery)
        self.routing = routing = Routing(state, conversations, delivery)
        self.objects = objects = Objects(state, conversations, delivery)
        self.receiving = receiving = Receiving(state, group_locks)
        self.clock = clock = Clock(state, delivery)
        self.views = views = Views(state, objects)
        self.notifications = notifications = Notifications(state, objects, conversations,
                                                           delivery)
        self.activation_link = link = ActivationLink(state, receiving, objects, notifications)
        # -- state
        self.ensure_schema = state.ensure_schema
        self.add_queue_listener = state.add_queue_listener
        # -- objects (ALTER / DROP QUEUE go through the notifications part: it checks and
        # drops the queue's event notifications around them)
        self.create_message_type = objects.create_message_type
        self.alter_message_type = objects.alter_message_type
        self.drop_message_type = objects.drop_message_type
        self.alter_owner = objects.alter_owner
        self.securable_owner = objects.securable_owner
        self.owned_by = objects.owned_by
        self.create_xml_schema_collection = objects.create_xml_schema_collection
        self.alter_xml_schema_collection = objects.alter_xml_schema_collection
        self.drop_xml_schema_collection = objects.drop_xml_schema_collection
        self.create_contract = objects.create_contract
        self.drop_contract = objects.drop_contract
        self.create_queue = objects.create_queue
        self.alter_queue = notifications.alter_queue
        self.drop_queue = notifications.drop_queue
        self.queue_info = objects.queue_info
        self.queues = objects.queues
        self.create_service = objects.create_service
        self.alter_service = objects.alter_service
        self.drop_service = objects.drop_service
        # -- delivery
        self.send = delivery.send
        self.get_transmission_status = delivery.get_transmission_status
        # -- conversations
        self.begin_dialog = conversations.begin_dialog
        self.end_conversation = conversations.end_conversation
        self.begin_conversation_timer = conversations.begin_conversation_timer
        self.move_conversation = conversations.move_conversation
        self.endpoint_create_dates = conversations.endpoint_create_dates
        # -- routing
        self.create_route = routing.create_route
        self.alter_route = routing.alter_route
        self.drop_route = routing.drop_route
        self.create_remote_service_binding = routing.create_remote_service_binding
        self.alter_remote_service_binding = routing.alter_remote_service_binding
        self.drop_remote_service_binding = routing.drop_remote_service_binding
        self.create_endpoint = routing.create_endpoint
        self.alter_endpoint = routing.alter_endpoint
        self.drop_endpoint = routing.drop_endpoint
        self.endpoint_owner = routing.endpoint_owner
        self.endpoints_owned_by = routing.endpoints_owned_by
        self.create_broker_priority = routing.create_broker_priority
        self.alter_broker_priority = routing.alter_broker_priority
        self.drop_broker_priority = routing.drop_broker_priority
        self.set_database_broker_option = routing.set_database_broker_option
        # -- receiving
        self.receive = receiving.receive
        self.receive_statement = receiving.statement
        self.get_conversation_group = receiving.get_conversation_group
        self.queue_has_ready_messages = receiving.queue_has_ready_messages
        self.wait_for_message = receiving.wait_for_message
        # -- clock
        self.tick = clock.tick
        # -- views
        self.register_views = views.register_views
        self.resolve_virtual = views.resolve_virtual
        # -- event notifications
        self.create_event_notification = notifications.create_event_notification
        self.drop_event_notification = notifications.drop_event_notification
        self.queue_notified = notifications.queue_notified
        self.notified_queues = notifications.notified_queues
        self.post_queue_event = notifications.post_queue_event
        self.create_database_event_notification = \
            notifications.create_database_event_notification
        self.drop_database_event_notification = notifications.drop_database_event_notification
        self.database_notified = notifications.database_notified
        self.create_server_event_notification = notifications.create_server_event_notification
        self.drop_server_event_notification = notifications.drop_server_event_notification
        self.server_notified = notifications.server_notified
        self.post_server_event = notifications.post_server_event
        self.post_database_event = notifications.post_database_event
        # -- activation
        self.attach_activation = link.attach_activation
        self.activation_queue_settings = link.activation_queue_settings
        self.watch_queue = link.watch_queue
        self.activation_queues = link.activation_queues
        self.queue_ready = link.queue_ready
        self.disable_queue = link.disable_queue
        views.register_views()

    @classmethod
    def get(cls, store: Store) -> Broker:
        """The one broker of ``store``."""
        broker: Broker = store.extension("broker", cls)
        return broker

    @property
    def server_name(self) -> str:
        """@@SERVERNAME as EVENT_INSTANCE documents show it (set by the hosting interpreter)."""
        return self.notifications.server_name

    @server_name.setter
    def server_name(self, value: str) -> None:
        self.notifications.server_name = value
