"""Plain data of the broker: rows of its metadata, constants and small pure helpers."""

from __future__ import annotations

import os
import random
import re
import uuid
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from functools import lru_cache
from typing import Literal

SB = "http://schemas.microsoft.com/SQL/ServiceBroker/"
END_DIALOG = SB + "EndDialog"
ERROR = SB + "Error"
DIALOG_TIMER = SB + "DialogTimer"
ERROR_NS = SB + "Error"
NOTIFICATIONS = "http://schemas.microsoft.com/SQL/Notifications/"
EVENT_NOTIFICATION = NOTIFICATIONS + "EventNotification"
POST_EVENT_NOTIFICATION = NOTIFICATIONS + "PostEventNotification"
EVENT_NOTIFICATION_SERVICE = NOTIFICATIONS + "EventNotificationService"

# Built-in message types of every database: (id, name, validation), ids as SQL Server shows
# them (DEFAULT = 14). User objects get ids from USER_ID_BASE upwards.
SYSTEM_MESSAGE_TYPES: tuple[tuple[int, str, str], ...] = (
    (1, SB + "BrokerConfigurationNotice/MissingRoute", "X"),
    (2, SB + "BrokerConfigurationNotice/FailedRoute", "X"),
    (3, SB + "BrokerConfigurationNotice/MissingRemoteServiceBinding", "X"),
    (4, SB + "BrokerConfigurationNotice/FailedRemoteServiceBinding", "X"),
    (5, SB + "ServiceEcho/Echo", "N"),
    (6, DIALOG_TIMER, "E"),
    (7, END_DIALOG, "E"),
    (8, ERROR, "X"),
    (9, SB + "ServiceDiagnostic/Query", "X"),
    (10, SB + "ServiceDiagnostic/Status", "X"),
    (11, SB + "ServiceDiagnostic/Description", "N"),
    (13, EVENT_NOTIFICATION, "X"),
    (14, "DEFAULT", "N"),
)
SYSTEM_TYPE_IDS = {name: mid for mid, name, _v in SYSTEM_MESSAGE_TYPES}
# The types every conversation may carry whatever its contract says.
ALWAYS_ALLOWED = frozenset({END_DIALOG, ERROR, DIALOG_TIMER})
DEFAULT_CONTRACT_ID = 6
USER_ID_BASE = 65536

VALIDATION_CODES = {"NONE": "N", "EMPTY": "E", "WELL_FORMED_XML": "X", "VALID_XML": "X"}
VALIDATION_DESC = {"N": "BINARY", "E": "EMPTY", "X": "XML"}

STATE_DESC = {
    "SO": "STARTED_OUTBOUND", "SI": "STARTED_INBOUND", "CO": "CONVERSING",
    "DI": "DISCONNECTED_INBOUND", "DO": "DISCONNECTED_OUTBOUND", "ER": "ERROR", "CD": "CLOSED",
}
SENDABLE_STATES = frozenset({"SO", "SI", "CO"})

MAX_LIFETIME = 2_147_483_647
UNSET_TIMESTAMP = datetime(1900, 1, 1)
# How long a closed target endpoint is kept for replay protection (Remus: 30 minutes).
CLOSED_KEEP = timedelta(minutes=30)


def utcnow() -> datetime:
    """Naive UTC now (the broker's catalog columns are UTC)."""
    return datetime.now(UTC).replace(tzinfo=None)


def lifetime_expiry(start: datetime, seconds: int) -> datetime:
    """``start + seconds``, clamped to what ``datetime`` can hold."""
    try:
        return start + timedelta(seconds=seconds)
    except OverflowError:
        return datetime(9999, 12, 31, 23, 59, 59)


def uid(value: object) -> str:
    """A uniqueidentifier as stored: upper-case text. Accepts UUID, str or bytes."""
    if isinstance(value, str) and _CANONICAL_UID.fullmatch(value):
        return value.upper()      # already in the stored form but for case (the usual input)
    if isinstance(value, uuid.UUID):
        return _uuid_text(value)
    if isinstance(value, bytes) and len(value) == 16:
        return str(uuid.UUID(bytes_le=value)).upper()
    return str(uuid.UUID(str(value).strip("{}"))).upper()


@lru_cache(maxsize=4096)
def _uuid_text(value: uuid.UUID) -> str:
    # The same few handles come back statement after statement (a session's @handle).
    return str(value).upper()


_CANONICAL_UID = re.compile(
    r"[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}")
# New identifiers come from a private generator seeded from os.urandom (reseeded in a forked
# child, so two processes never share a sequence) rather than uuid4(): one os.urandom call
# per identifier cost a third of a SEND's identifier work, and these identify broker rows —
# they need to be unique, not secret.
_uid_random = random.Random()
os.register_at_fork(after_in_child=_uid_random.seed)
_VERSION_4_MASK = ~((0xF000 << 64) | (0xC000 << 48)) & ((1 << 128) - 1)
_VERSION_4_BITS = (0x4000 << 64) | (0x8000 << 48)


def new_uid() -> str:
    """A fresh uniqueidentifier as stored (a random RFC 4122 version-4 value)."""
    h = "%032X" % (_uid_random.getrandbits(128) & _VERSION_4_MASK | _VERSION_4_BITS)
    return f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:]}"


def error_body(code: int, description: str) -> bytes:
    """The body of an ``…/ServiceBroker/Error`` message (reference §5.15), as UTF-16LE so that
    both ``CAST(message_body AS XML)`` and ``CAST(message_body AS NVARCHAR(MAX))`` read it."""
    desc = (description.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;"))
    text = (f'<?xml version="1.0"?><Error xmlns="{ERROR_NS}"><Code>{code}</Code>'
            f"<Description>{desc}</Description></Error>")
    return text.encode("utf-16-le")


@dataclass(frozen=True)
class ActivationSettings:
    """A queue's ``ACTIVATION (…)`` clause. ``None`` fields are "not given" (ALTER keeps the
    current value; CREATE uses the default)."""

    status: bool | None = None
    procedure_name: str | None = None
    max_queue_readers: int | None = None
    # 'OWNER', or the principal id (as text) of SELF or the user named, as the interpreter
    # resolved it; 'SELF' or a user name as given (older stores, direct engine calls)
    execute_as: str | None = None


@dataclass(frozen=True)
class MessageTypeRow:
    """A message type of one database."""

    database_id: int
    message_type_id: int
    name: str
    validation: str                    # N / E / X
    xml_collection_id: int | None
    schema_namespace: str | None
    is_system: bool


@dataclass(frozen=True)
class ContractRow:
    """A contract and its message usages: type id → (sent by initiator, sent by target)."""

    database_id: int
    service_contract_id: int
    name: str
    usages: dict[int, tuple[bool, bool]] = field(default_factory=dict)


@dataclass(frozen=True)
class QueueRow:
    """A service queue's settings (``sys.service_queues``)."""

    database_id: int
    object_id: int
    schema_id: int
    schema_name: str
    name: str
    is_receive_enabled: bool
    is_enqueue_enabled: bool
    is_retention_enabled: bool
    is_activation_enabled: bool
    activation_procedure: str | None
    max_readers: int
    execute_as: str | None
    is_poison_message_handling_enabled: bool
    create_date: datetime
    modify_date: datetime

    @property
    def activation(self) -> ActivationSettings:
        """The activation settings as given to CREATE/ALTER QUEUE."""
        return ActivationSettings(self.is_activation_enabled, self.activation_procedure,
                                  self.max_readers, self.execute_as)


@dataclass(frozen=True)
class ServiceRow:
    """A service: its queue and the contracts it accepts as a target."""

    database_id: int
    service_id: int
    name: str
    service_queue_id: int
    contract_ids: frozenset[int]
    principal_id: int = 1         # its owner (CREATE SERVICE … AUTHORIZATION), dbo by default


@dataclass
class Endpoint:
    """One side of a conversation (a ``sys.conversation_endpoints`` row)."""

    conversation_handle: str
    database_id: int
    conversation_id: str
    is_initiator: int
    service_contract_id: int
    conversation_group_id: str
    service_id: int
    queue_id: int
    lifetime: datetime
    state: str
    far_service: str
    far_broker_instance: str | None
    target_broker: str | None
    security_timestamp: datetime | None
    dialog_timer: datetime | None
    send_sequence: int
    end_dialog_sequence: int
    receive_sequence: int
    system_sequence: int
    priority: int
    encryption: bool
    create_date: datetime

    @classmethod
    def from_row(cls, row: object) -> Endpoint:
        """Build from a SQLAlchemy mapping row."""
        m = dict(row)  # type: ignore[call-overload]
        return cls(**{k: m[k] for k in cls.__dataclass_fields__})


@dataclass(slots=True)
class Outgoing:
    """One message on its way from a conversation endpoint to its peer."""

    db_id: int
    handle: str
    conversation_id: str
    is_initiator: int
    from_service: str
    to_service: str
    target_broker: str | None
    contract_name: str
    seq: int
    message_type: str
    body: bytes | None
    priority: int
    lifetime: datetime
    enqueue_time: datetime = field(default_factory=utcnow)

    @property
    def is_end(self) -> bool:
        return self.message_type == END_DIALOG

    @property
    def is_error(self) -> bool:
        return self.message_type == ERROR


@dataclass(frozen=True)
class Acceptance:
    """What the target side did with one message that came from another broker (the
    transport's receiver turns it into the answer frame)."""

    outcome: Literal["ack", "nack", "error"]
    status: str | None = None          # nack: the transmission status (the sender retries)
    code: int | None = None            # error: the Error message's code and text
    text: str | None = None
    broker: str | None = None          # the broker instance of the target's database
    duplicate: bool = False            # ack of a message committed before (a resend)
    created: Endpoint | None = None    # target endpoint made by this message
    closed: Endpoint | None = None     # endpoint this message closed (forget the dialog)
    expect: int | None = None          # nack of a message after a gap: the one awaited
