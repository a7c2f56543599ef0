"""Special :commands, through the REPL with a fake instance.

Backend-free: the fake instance and scripted catalog answers test the commands' logic; the
broker views and ``:connect`` on real stores run on both backends in test_real_instance.py."""

from __future__ import annotations

import datetime as dt
from pathlib import Path
from typing import Any

import pytest
from prompt_toolkit.output import DummyOutput

from tests.repl.conftest import output_of
from tests.repl.fakes import FakeInstance
from tsqlbroker.engine.results import ResultSet
from tsqlbroker.errors import TSqlError, tsql_error
from tsqlbroker.repl import broker_views
from tsqlbroker.repl.config import parse_config
from tsqlbroker.repl.main import Repl
from tsqlbroker.repl.special import COMMANDS, SpecialError, execute_special


@pytest.fixture
def repl(console: Any, pipe: Any) -> Any:
    config = parse_config("")
    config.history_file = None
    config.pager = ""
    r = Repl(config, url="sqlite://", console=console, input=pipe, output=DummyOutput(),
             instance_factory=FakeInstance)
    yield r
    r.close()


def test_help_lists_every_command(repl: Repl, console: Any) -> None:
    repl.handle(":help")
    out = output_of(console)
    for usage in (":connect URL", ":setvar NAME [VALUE]", ":listvar", ":r FILE", ":out",
                  ":on error exit|ignore", ":format", ":timing on|off", ":quit", ":queues [all]",
                  ":conversations", ":services", ":activation", ":log"):
        assert usage in out


def test_unknown_command_is_an_error_not_an_exit(repl: Repl, console: Any) -> None:
    repl.handle(":frobnicate")
    assert "Unknown command ':frobnicate'" in output_of(console)
    assert repl.exit_status is None


def test_setvar_and_listvar(repl: Repl, console: Any) -> None:
    repl.handle(':setvar Trader "Trader One"')
    repl.handle(":listvar")
    assert repl.sqlcmd.lookup("trader") == "Trader One"
    assert "Trader One" in output_of(console)


def test_r_runs_a_file(repl: Repl, console: Any, tmp_path: Path,
                       monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "s.sql").write_text("PRINT 'from file'\nGO\nPRINT 'tail'\n")
    monkeypatch.chdir(tmp_path)
    repl.handle(":r s.sql")
    out = output_of(console)
    assert "from file" in out and "tail" in out


def test_r_missing_file_is_an_error(repl: Repl, console: Any, tmp_path: Path) -> None:
    repl.handle(f":r {tmp_path / 'nope.sql'}")
    assert "Cannot open file" in output_of(console)


def test_out_redirects_and_stdout_restores(repl: Repl, console: Any, tmp_path: Path) -> None:
    target = tmp_path / "out.txt"
    repl.handle(f":out {target}")
    repl.handle("PRINT 'to the file'\nGO")
    repl.handle(":out stdout")
    repl.handle("PRINT 'to the screen'\nGO")
    assert "to the file" in target.read_text()
    assert "to the file" not in output_of(console)
    assert "to the screen" in output_of(console)


def test_on_error_exit_leaves_with_status_1(repl: Repl) -> None:
    repl.handle(":on error exit")
    repl.handle("SELECT 1/0\nGO")
    assert repl.exit_status == 1


def test_on_error_ignore_keeps_going(repl: Repl) -> None:
    repl.handle(":on error ignore")
    repl.handle("SELECT 1/0\nGO")
    assert repl.exit_status is None


def test_bad_on_error_argument(repl: Repl, console: Any) -> None:
    repl.handle(":on error sometimes")
    assert ":on error takes exit or ignore." in output_of(console)


def test_format_switches_and_rejects_unknown(repl: Repl, console: Any) -> None:
    repl.handle(":format vertical")
    repl.handle("SELECT 5 AS five\nGO")
    assert "five: 5" in output_of(console)
    repl.handle(":format csv")
    repl.handle("SELECT 6 AS six\nGO")
    assert "six\n6" in output_of(console)
    repl.handle(":format xml")
    assert "Usage: :format table|vertical|csv|json" in output_of(console)


def test_timing_on_off(repl: Repl) -> None:
    repl.handle(":timing on")
    assert repl.config.timing
    repl.handle(":timing off")
    assert not repl.config.timing


def test_quit_and_exit(repl: Repl) -> None:
    repl.handle(":quit")
    assert repl.exit_status == 0
    repl.exit_status = None
    repl.handle("exit")
    assert repl.exit_status == 0


def test_connect_opens_a_new_instance_and_bad_url_keeps_the_old(repl: Repl,
                                                                 console: Any) -> None:
    old = repl.instance
    repl.handle(":connect")
    assert "postgresql+psycopg://user@host/broker" in output_of(console)
    repl.handle(":connect nonsense://")
    assert repl.instance is old and "Cannot open storage 'nonsense://'" in output_of(console)
    repl.handle(":connect sqlite://broken")
    assert "Database 'master' does not exist." in output_of(console)
    assert repl.instance is old and not old.closed
    repl.handle(":connect sqlite://")
    assert repl.instance is not old and old.closed
    repl.handle("PRINT 'on the new one'\nGO")
    assert repl.session.inst is repl.instance
    assert any("on the new one" in b for b in repl.session.batches)


def test_log_commands(repl: Repl, console: Any) -> None:
    repl.handle(":log off")
    repl.instance.broker_log.write("Activation", "started [dbo].[p] on queue q")
    assert "started [dbo].[p]" not in output_of(console)
    repl.handle(":log")
    assert "started [dbo].[p]" in output_of(console)
    repl.handle(":log on")
    assert repl.log_shown


def test_variables_in_special_arguments(repl: Repl) -> None:
    repl.handle(":setvar fmt json")
    repl.handle(":format $(fmt)")
    assert repl.sink.format == "json"


def test_registry_entries_have_usage_and_summary() -> None:
    assert {":queues", ":conversations", ":services", ":activation", ":exit"} <= set(COMMANDS)
    assert all(c.usage.startswith((":", "!!")) and c.summary for c in COMMANDS.values())


def test_execute_special_raises_a_tsql_error_for_unknown() -> None:
    with pytest.raises(SpecialError) as info:
        execute_special(None, ":nope")  # type: ignore[arg-type]
    assert isinstance(info.value, TSqlError)


# -- the broker views, fed by a scripted query function ------------------------------------
def scripted(answers: dict[str, ResultSet]) -> Any:
    def query(sql: str) -> list[ResultSet]:
        for key, rs in answers.items():
            if key in sql:
                return [rs]
        raise tsql_error(208, sql.split("FROM ")[-1])
    return query


def test_queues_view_counts_readers_and_messages() -> None:
    query = scripted({
        "sys.service_queues": ResultSet(
            ["object_id", "schema_id", "name", "max_readers", "activation_procedure",
             "is_activation_enabled", "is_receive_enabled", "is_enqueue_enabled",
             "is_retention_enabled", "is_ms_shipped"],
            rows=[(101, 1, "TradeQueue", 5, "[broker].[dbo].[ProcessTrade]", 1, 1, 1, 0, 0),
                  (102, 1, "AuditQueue", 0, None, 0, 0, 0, 0, 0),
                  (90, 1, "ServiceBrokerQueue", 0, None, 0, 1, 1, 0, 1)]),
        "sys.schemas": ResultSet(["schema_id", "name"], rows=[(1, "dbo")]),
        "sys.dm_broker_activated_tasks": ResultSet(["queue_id"], rows=[(101,), (101,)]),
        "sys.dm_broker_queue_monitors": ResultSet(["queue_id", "state"],
                                                  rows=[(101, "RECEIVES_OCCURRING")]),
        "[dbo].[TradeQueue]": ResultSet(["total", "ready"], rows=[(3, 2)]),
    })
    assert len(broker_views.queues_view(query, include_system=True).rows) == 3
    rs = broker_views.queues_view(query)
    assert len(rs.rows) == 2
    assert rs.rows[0] == ("dbo.AuditQueue", "OFF", "?", "?", "OFF", None, "0/0", None)
    assert rs.rows[1] == ("dbo.TradeQueue", "ON", 2, 3, "ON", "[broker].[dbo].[ProcessTrade]",
                          "2/5", "RECEIVES_OCCURRING")


def test_conversations_view_hides_closed_and_shows_clocks() -> None:
    now = dt.datetime(2026, 1, 1, 12, 0, 0)
    query = scripted({
        "sys.conversation_endpoints": ResultSet(
            ["conversation_handle", "is_initiator", "service_id", "far_service", "state",
             "state_desc", "lifetime", "dialog_timer"],
            rows=[("H1", 1, 65536, "//target", "CO", "CONVERSING",
                   now + dt.timedelta(minutes=5), now + dt.timedelta(seconds=30)),
                  ("H2", 0, 65537, "//init", "CD", "CLOSED", now, None)]),
        "sys.services": ResultSet(["service_id", "name"], rows=[(65536, "//init")]),
    })
    rs = broker_views.conversations_view(query, now=now)
    assert "age" not in rs.columns
    assert rs.rows == [("H1", "initiator", "//init", "//target", "CONVERSING", 0, "5m00s",
                        "30s")]


def test_conversations_view_shows_age_when_the_store_has_a_creation_time() -> None:
    now = dt.datetime(2026, 1, 1, 12, 0, 0)
    query = scripted({"sys.conversation_endpoints": ResultSet(
        ["conversation_handle", "is_initiator", "service_id", "far_service", "state",
         "state_desc", "lifetime", "create_date"],
        rows=[("H1", 0, 1, "//i", "CO", "CONVERSING", now + dt.timedelta(days=400),
               now - dt.timedelta(hours=1, minutes=2))])})
    rs = broker_views.conversations_view(query, now=now)
    assert rs.columns[5:7] == ["held", "age"]
    assert rs.rows == [("H1", "target", 1, "//i", "CONVERSING", 0, "1h02m", "never", None)]


def test_held_messages_and_why() -> None:
    """A SEND in master (broker disabled, as on SQL Server) arrives nowhere: the views say
    that the message is held and why."""
    now = dt.datetime(2026, 1, 1, 12, 0, 0)
    why = "The broker is disabled in the sender's database."
    query = scripted({
        "sys.conversation_endpoints": ResultSet(
            ["conversation_handle", "is_initiator", "service_id", "far_service", "state",
             "state_desc", "lifetime"],
            rows=[("H1", 1, 1, "//t", "SO", "STARTED_OUTBOUND", None)]),
        "SELECT conversation_handle FROM sys.transmission_queue": ResultSet(
            ["conversation_handle"], rows=[("H1",), ("H1",)]),
        "sys.transmission_queue": ResultSet(
            ["conversation_handle", "to_service_name", "message_type_name", "enqueue_time",
             "transmission_status"],
            rows=[("H1", "//t", "DEFAULT", now - dt.timedelta(seconds=42), why)]),
    })
    assert broker_views.conversations_view(query, now=now).rows[0][5] == 2
    held = broker_views.transmission_view(query, now=now)
    assert held.rows == [("H1", "//t", "DEFAULT", "42s", why)]


def test_services_and_activation_views() -> None:
    query = scripted({
        "[other].sys.service_queues": ResultSet(["object_id", "name"], rows=[(101, "OtherQ")]),
        "[db].sys.service_queues": ResultSet(["object_id", "name"], rows=[(101, "Q")]),
        "sys.services": ResultSet(["service_id", "name", "service_queue_id"],
                                  rows=[(1, "//svc", 101),
                                        (2, broker_views.SYSTEM_PREFIX + "Notifications/x",
                                         90)]),
        "sys.service_queues": ResultSet(["object_id", "name"], rows=[(101, "Q")]),
        "sys.service_contracts": ResultSet(["service_contract_id", "name"], rows=[(7, "//c")]),
        "sys.service_contract_usages": ResultSet(["service_id", "service_contract_id"],
                                                 rows=[(1, 7)]),
        "sys.dm_broker_queue_monitors": ResultSet(
            ["database_id", "queue_id", "state", "tasks_waiting"],
            rows=[(5, 101, "NOTIFIED", 0), (6, 101, "INACTIVE", 0)]),
        "sys.dm_broker_activated_tasks": ResultSet(
            ["spid", "database_id", "queue_id", "procedure_name"],
            rows=[(51, 6, 101, "[other].[dbo].[p]")]),
        "sys.databases": ResultSet(["database_id", "name"], rows=[(5, "db"), (6, "other")]),
    })
    assert broker_views.services_view(query).rows == [("//svc", "Q", "//c")]
    assert len(broker_views.services_view(query, include_system=True).rows) == 2
    monitors, tasks = broker_views.activation_view(query)
    # Queues of other databases by name too (the same object id in two databases).
    assert [r[:4] for r in monitors.rows] == [("db", "Q", "NOTIFIED", 0),
                                              ("other", "OtherQ", "INACTIVE", 0)]
    assert tasks.rows == [(51, "other", "OtherQ", "[other].[dbo].[p]")]


def test_broker_view_arguments_are_checked(repl: Repl, console: Any) -> None:
    repl.handle(":queues everything")
    assert "Usage: :queues [all]" in output_of(console)


def test_banner_names_the_storage_without_password(repl: Repl) -> None:
    from tsqlbroker.repl.main import describe_storage

    assert describe_storage(repl) == "a private in-memory store (sqlite://)"
    repl.url = "postgresql+psycopg://me:secret@db/broker"
    assert describe_storage(repl) == "postgresql+psycopg://me:***@db/broker"
