"""The options of the ``servicebroker`` data source, parsed and checked once.

Spark hands a data source its options as a case-insensitive map of strings; every option
this source knows is listed here with its meaning, and an unknown one is refused (a misspelt
``endDialogs`` must not silently keep dialogs open). docs/spark.md has the table for users.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from .stores import split_name

_VIEWS = ("transmission_queue", "conversation_endpoints", "conversation_groups")
_BODY_AS = ("binary", "text", "xml")

# Option name as documented → field of SourceOptions (matched case-insensitively).
_OPTIONS = {
    "url": "url", "database": "database", "queue": "queue", "view": "view",
    "numPartitions": "partitions", "bodyAs": "body_as",
    "maxMessagesPerTrigger": "max_messages", "startingPosition": "starting",
    "failOnDataLoss": "fail_on_data_loss", "lockTimeout": "lock_timeout",
    "fromService": "from_service", "toService": "to_service", "contract": "contract",
    "messageType": "message_type", "messageTypeColumn": "message_type_column",
    "bodyColumn": "body_column", "keyColumn": "key_column",
    "conversationColumn": "conversation_column", "endDialogs": "end_dialogs",
    "writeId": "write_id", "table": "table", "replyMessageType": "reply_message_type",
    "replyBodyColumn": "reply_body_column", "endConversation": "end_conversation",
    "testFailAfterCommit": "test_fail_after_commit",
}
_NAMES = {k.lower(): v for k, v in _OPTIONS.items()}
# Options Spark itself passes along to a source (a stream's checkpoint, a load path).
_SPARKS_OWN = frozenset({"checkpointlocation", "path"})


class OptionError(ValueError):
    """An option of the ``servicebroker`` source is missing, unknown or malformed."""


def _bool(name: str, value: str) -> bool:
    v = value.strip().lower()
    if v in ("true", "1", "yes", "on"):
        return True
    if v in ("false", "0", "no", "off"):
        return False
    raise OptionError(f"option {name}: expected true or false, got {value!r}")


def _int(name: str, value: str, low: int) -> int:
    try:
        n = int(value)
    except ValueError:
        raise OptionError(f"option {name}: expected a whole number, got {value!r}") from None
    if n < low:
        raise OptionError(f"option {name}: must be at least {low}, got {n}")
    return n


@dataclass(frozen=True)
class SourceOptions:
    """Every option, typed (None where not given)."""

    url: str = ""
    database: str = "master"
    queue: str | None = None
    view: str | None = None
    partitions: int = 4
    body_as: str = "binary"
    max_messages: int | None = None
    starting: str = "earliest"
    fail_on_data_loss: bool = True
    lock_timeout: float = 30.0
    from_service: str | None = None
    to_service: str | None = None
    contract: str | None = None
    message_type: str | None = None
    message_type_column: str | None = None
    body_column: str = "message_body"
    key_column: str | None = None
    conversation_column: str | None = None
    end_dialogs: bool = False
    write_id: str | None = None
    table: str | None = None
    reply_message_type: str | None = None
    reply_body_column: str | None = None
    end_conversation: bool = False
    test_fail_after_commit: bool = False

    @classmethod
    def parse(cls, options: Mapping[str, str]) -> SourceOptions:
        """Parse Spark's option map (keys in any case)."""
        values: dict[str, object] = {}
        for key, raw in options.items():
            if key.lower() in _SPARKS_OWN:
                continue
            name = _NAMES.get(key.lower())
            if name is None:
                known = ", ".join(sorted(_OPTIONS, key=str.lower))
                raise OptionError(f"unknown option {key!r} for servicebroker (known: {known})")
            values[name] = _convert(key, name, str(raw))
        opts = cls(**values)  # type: ignore[arg-type]
        if not opts.url:
            raise OptionError("option url is required (a SQLAlchemy URL of the store)")
        if opts.queue is not None and opts.view is not None:
            raise OptionError("give option queue or option view, not both")
        return opts

    # -- what each use needs ------------------------------------------------------------------
    def queue_name(self) -> tuple[str | None, str]:
        """(schema, name) of the queue; OptionError when no queue is given."""
        if self.queue is None:
            raise OptionError("option queue is required here")
        try:
            return split_name(self.queue)
        except ValueError as exc:
            raise OptionError(f"option queue: {exc}") from None

    def view_name(self) -> str:
        """The catalog view to read (without ``sys.``)."""
        assert self.view is not None
        name = self.view.lower().removeprefix("sys.").strip("[]")
        if name not in _VIEWS:
            raise OptionError(f"option view: one of {', '.join('sys.' + v for v in _VIEWS)}")
        return name

    def source_object(self) -> str:
        """The T-SQL name a batch read selects from."""
        if self.view is not None:
            return f"sys.{self.view_name()}"
        if self.queue is None:
            raise OptionError("give option queue (a queue) or option view (sys.transmission_"
                              "queue, sys.conversation_endpoints, sys.conversation_groups)")
        schema, name = self.queue_name()
        return ".".join(_bracket(p) for p in (schema or "dbo", name))


def _bracket(name: str) -> str:
    return "[" + name.replace("]", "]]") + "]"


def _convert(key: str, name: str, raw: str) -> object:
    if name in ("fail_on_data_loss", "end_dialogs", "end_conversation",
                "test_fail_after_commit"):
        return _bool(key, raw)
    if name == "partitions":
        return _int(key, raw, 1)
    if name == "max_messages":
        return _int(key, raw, 1)
    if name == "lock_timeout":
        try:
            return float(raw)
        except ValueError:
            raise OptionError(f"option {key}: expected seconds, got {raw!r}") from None
    if name == "body_as":
        v = raw.strip().lower()
        if v not in _BODY_AS:
            raise OptionError(f"option {key}: one of {', '.join(_BODY_AS)}")
        return v
    if name == "starting":
        v = raw.strip().lower()
        if v not in ("earliest", "latest"):
            raise OptionError(f"option {key}: earliest or latest")
        return v
    return raw
