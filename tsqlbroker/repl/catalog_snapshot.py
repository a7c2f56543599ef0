"""What the completer knows of the catalog: a :class:`CatalogSnapshot` of the current
database, built by the REPL's helper session (:mod:`tsqlbroker.repl.side_session`) and read by
the completer (:mod:`tsqlbroker.repl.completer`). Apart from both: the completer offers the
special commands, whose ``:queues`` / ``:peek`` run through the helper session."""

from __future__ import annotations

from dataclasses import dataclass, field

# The columns every queue has (RECEIVE * / SELECT * FROM queue), in the documented order.
QUEUE_COLUMNS: tuple[str, ...] = (
    "status", "priority", "queuing_order", "conversation_group_id", "conversation_handle",
    "message_sequence_number", "service_name", "service_id", "service_contract_name",
    "service_contract_id", "message_type_name", "message_type_id", "validation",
    "message_body", "message_enqueue_time",
)


@dataclass(frozen=True)
class CatalogSnapshot:
    """The objects of the current database (and the database list) at one moment."""

    database: str = "master"
    databases: tuple[str, ...] = ()
    tables: tuple[str, ...] = ()
    columns: dict[str, tuple[str, ...]] = field(default_factory=dict)
    procedures: tuple[str, ...] = ()
    queues: tuple[str, ...] = ()
    services: tuple[str, ...] = ()
    contracts: tuple[str, ...] = ()
    message_types: tuple[str, ...] = ()

    def all_columns(self) -> tuple[str, ...]:
        """Every column name of every table, once, plus the queue columns."""
        names = {c for cols in self.columns.values() for c in cols}
        return tuple(sorted(names | set(QUEUE_COLUMNS), key=str.lower))
