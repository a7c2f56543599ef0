"""The REPL's Service Broker views: ``:queues``, ``:conversations``, ``:services``,
``:activation``, ``:transmission``.

Each view runs ordinary T-SQL against the catalog views and DMVs (through a ``query`` callable,
the REPL's helper session) and joins the answers into one result set, so the views show
exactly what ``sys.service_queues``, ``sys.conversation_endpoints``,
``sys.dm_broker_activated_tasks`` and friends hold. A view whose optional parts are missing
(a DMV an older store lacks) shows ``?`` there rather than failing.
"""

from __future__ import annotations

import datetime as _dt
from collections.abc import Callable
from typing import Any

from tsqlbroker.engine.results import ResultSet
from tsqlbroker.errors import TSqlError
from tsqlbroker.repl.side_session import bracket

Query = Callable[[str], list[ResultSet]]


def _rows(query: Query, sql: str) -> list[dict[str, Any]]:
    """Rows of the first result set of ``sql`` as dicts keyed by lower-case column name."""
    sets = query(sql)
    if not sets:
        return []
    names = [c.lower() for c in sets[0].columns]
    return [dict(zip(names, row)) for row in sets[0].rows]


def _optional(query: Query, sql: str) -> list[dict[str, Any]] | None:
    try:
        return _rows(query, sql)
    except TSqlError:
        return None


def _on_off(value: Any) -> str:
    return "?" if value is None else ("ON" if int(value) else "OFF")


SYSTEM_PREFIX = "http://schemas.microsoft.com/SQL/"


def queues_view(query: Query, include_system: bool = False) -> ResultSet:
    """Per queue: status, messages ready and in total, activation, readers, monitor state.

    System queues (``is_ms_shipped``) are left out unless ``include_system``."""
    queues = [q for q in _rows(query, "SELECT * FROM sys.service_queues")
              if include_system or not q.get("is_ms_shipped")]
    schemas = {r["schema_id"]: r["name"] for r in
               _optional(query, "SELECT schema_id, name FROM sys.schemas") or []}
    tasks = _optional(query, "SELECT queue_id FROM sys.dm_broker_activated_tasks")
    monitors = _optional(query, "SELECT queue_id, state FROM sys.dm_broker_queue_monitors")
    rows: list[tuple[Any, ...]] = []
    for q in sorted(queues, key=lambda r: str(r["name"]).lower()):
        schema = schemas.get(q["schema_id"], "dbo")
        ready = total = "?"
        counts = _optional(query, "SELECT COUNT(*) AS total, "
                                  "SUM(CASE WHEN status = 1 THEN 1 ELSE 0 END) AS ready "
                                  f"FROM {bracket(schema)}.{bracket(q['name'])}")
        if counts:
            total, ready = counts[0]["total"], counts[0]["ready"] or 0
        readers = "?" if tasks is None else sum(1 for t in tasks
                                                if t["queue_id"] == q["object_id"])
        monitor = "" if monitors is None else next(
            (str(m["state"]) for m in monitors if m["queue_id"] == q["object_id"]), "")
        activation = str(q.get("activation_procedure") or "")
        status = "ON" if q.get("is_receive_enabled") and q.get("is_enqueue_enabled") else "OFF"
        rows.append((f"{schema}.{q['name']}", status, ready, total,
                     _on_off(q.get("is_activation_enabled")) if activation else "OFF",
                     activation or None, f"{readers}/{q.get('max_readers', '?')}",
                     monitor or None))
    return ResultSet(["queue", "status", "ready", "messages", "activation", "procedure",
                      "readers", "monitor"],
                     ["sysname", None, "int", "int", None, "nvarchar(776)", None, None], rows)


def _age(value: Any, now: _dt.datetime) -> str:
    """A short ``1h02m`` / ``15s`` form of the time since (or until) ``value``."""
    if not isinstance(value, _dt.datetime):
        return ""
    if value.tzinfo is not None:
        value = value.astimezone().replace(tzinfo=None)
    seconds = int(abs((now - value).total_seconds()))
    if seconds >= 86400 * 365:
        return "never"
    days, rest = divmod(seconds, 86400)
    hours, rest = divmod(rest, 3600)
    minutes, secs = divmod(rest, 60)
    if days:
        return f"{days}d{hours:02d}h"
    if hours:
        return f"{hours}h{minutes:02d}m"
    return f"{minutes}m{secs:02d}s" if minutes else f"{secs}s"


def conversations_view(query: Query, now: _dt.datetime | None = None,
                       created: Callable[[], dict[Any, _dt.datetime]] | None = None
                       ) -> ResultSet:
    """Open conversation endpoints (state not CD): handle, side, services, state, clocks,
    and how many of its messages ``sys.transmission_queue`` holds (``:transmission`` says
    why).

    ``sys.conversation_endpoints`` has no creation time: ``created()`` gives the endpoints'
    creation times (UTC) by handle from the broker; without it (or a ``create_date`` column)
    the ``age`` column is left out. The remaining lifetime is always shown."""
    now = now or _dt.datetime.now()
    endpoints = [e for e in _rows(query, "SELECT * FROM sys.conversation_endpoints")
                 if str(e.get("state", "")).strip().upper() != "CD"]
    if created is not None:
        times = created()
        utc_offset = now - _dt.datetime.now(_dt.UTC).replace(tzinfo=None)
        for e in endpoints:
            when = times.get(e.get("conversation_handle"))
            if when is not None and e.get("create_date") is None:
                e["create_date"] = when + utc_offset
    services = {r["service_id"]: r["name"] for r in
                _optional(query, "SELECT service_id, name FROM sys.services") or []}
    held: dict[Any, int] = {}
    for r in _optional(query, "SELECT conversation_handle FROM sys.transmission_queue") or []:
        held[r["conversation_handle"]] = held.get(r["conversation_handle"], 0) + 1
    has_age = any(e.get("create_date") is not None for e in endpoints)
    rows: list[tuple[Any, ...]] = []
    for e in endpoints:
        timer = e.get("dialog_timer")
        timer_set = isinstance(timer, _dt.datetime) and timer.year > 1900
        row = [
            e.get("conversation_handle"),
            "initiator" if e.get("is_initiator") else "target",
            services.get(e.get("service_id"), e.get("service_id")),
            e.get("far_service"),
            e.get("state_desc") or e.get("state"),
            held.get(e.get("conversation_handle"), 0),
            _age(e.get("lifetime"), now) or None,
            _age(timer, now) if timer_set else None,
        ]
        if has_age:
            row.insert(6, _age(e.get("create_date"), now) or None)
        rows.append(tuple(row))
    columns = ["conversation_handle", "side", "service", "far_service", "state", "held",
               "expires_in", "timer_in"]
    types: list[str | None] = ["uniqueidentifier", None, "sysname", "nvarchar(256)", None,
                               "int", None, None]
    if has_age:
        columns.insert(6, "age")
        types.insert(6, None)
    return ResultSet(columns, types, rows)


def services_view(query: Query, include_system: bool = False) -> ResultSet:
    """Services with their queue and contracts (system services only with
    ``include_system``)."""
    services = [s for s in _rows(query, "SELECT service_id, name, service_queue_id "
                                        "FROM sys.services")
                if include_system or not str(s["name"]).startswith(SYSTEM_PREFIX)]
    queues = {r["object_id"]: r["name"] for r in
              _optional(query, "SELECT object_id, name FROM sys.service_queues") or []}
    contracts = {r["service_contract_id"]: r["name"] for r in
                 _optional(query, "SELECT service_contract_id, name "
                                  "FROM sys.service_contracts") or []}
    usages = _optional(query, "SELECT service_id, service_contract_id "
                              "FROM sys.service_contract_usages") or []
    rows = []
    for s in sorted(services, key=lambda r: str(r["name"])):
        names = sorted(str(contracts.get(u["service_contract_id"], u["service_contract_id"]))
                       for u in usages if u["service_id"] == s["service_id"])
        rows.append((s["name"], queues.get(s["service_queue_id"], s["service_queue_id"]),
                     ", ".join(names) or None))
    return ResultSet(["service", "queue", "contracts"], ["sysname", "sysname", None], rows)


def _queue_names(query: Query, db_ids: set[Any]) -> dict[tuple[Any, Any], str]:
    """(database_id, queue object_id) → queue name, for queues in any of ``db_ids``
    (activation runs in every database, not only the current one)."""
    names = {r["database_id"]: r["name"] for r in
             _optional(query, "SELECT database_id, name FROM sys.databases") or []}
    out: dict[tuple[Any, Any], str] = {}
    for db_id in db_ids:
        name = names.get(db_id)
        if name is None:
            continue
        for r in _optional(query, "SELECT object_id, name FROM "
                                  f"{bracket(str(name))}.sys.service_queues") or []:
            out[(db_id, r["object_id"])] = r["name"]
    return out


def activation_view(query: Query) -> list[ResultSet]:
    """Queue monitors (state, waiting readers, last activation) and running activated tasks,
    of every database, with database and queue names."""
    monitors = _rows(query, "SELECT * FROM sys.dm_broker_queue_monitors")
    tasks = _rows(query, "SELECT * FROM sys.dm_broker_activated_tasks")
    db_names = {r["database_id"]: r["name"] for r in
                _optional(query, "SELECT database_id, name FROM sys.databases") or []}
    queues = _queue_names(query, {r.get("database_id") for r in monitors + tasks})

    def where(r: dict[str, Any]) -> tuple[Any, Any]:
        db_id, queue_id = r.get("database_id"), r.get("queue_id")
        return db_names.get(db_id, db_id), queues.get((db_id, queue_id), queue_id)

    mon = ResultSet(
        ["database", "queue", "state", "tasks_waiting", "last_activated_time",
         "last_empty_rowset_time"],
        ["sysname", "sysname", None, "int", "datetime", "datetime"],
        [(*where(m), m.get("state"), m.get("tasks_waiting"), m.get("last_activated_time"),
          m.get("last_empty_rowset_time")) for m in monitors])
    task = ResultSet(["spid", "database", "queue", "procedure_name"],
                     ["int", "sysname", "sysname", "nvarchar(650)"],
                     [(t.get("spid"), *where(t), t.get("procedure_name")) for t in tasks])
    return [mon, task]


def transmission_view(query: Query, now: _dt.datetime | None = None) -> ResultSet:
    """Messages held in ``sys.transmission_queue`` (not delivered yet) and why: the
    ``transmission_status`` SQL Server gives (broker disabled, service not found …)."""
    now = now or _dt.datetime.now()
    rows = _rows(query, "SELECT conversation_handle, to_service_name, message_type_name, "
                        "enqueue_time, transmission_status FROM sys.transmission_queue "
                        "ORDER BY enqueue_time")
    return ResultSet(
        ["conversation_handle", "to_service", "message_type", "waiting", "transmission_status"],
        ["uniqueidentifier", "nvarchar(256)", "nvarchar(256)", None, "nvarchar(4000)"],
        [(r["conversation_handle"], r["to_service_name"], r["message_type_name"],
          _age(r["enqueue_time"], now) or None, r["transmission_status"] or None)
         for r in rows])
