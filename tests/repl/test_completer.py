"""Completion, driven directly with a prompt-toolkit Document.

Backend-free: the completer reads a catalog snapshot built here; completion from a real
store's catalog runs on both backends in test_real_instance.py."""

from __future__ import annotations

from prompt_toolkit.completion import CompleteEvent
from prompt_toolkit.document import Document

from tsqlbroker.repl.catalog_snapshot import CatalogSnapshot
from tsqlbroker.repl.completer import (
    TSqlCompleter,
    declared_variables,
    quote_name,
    table_aliases,
)

CATALOG = CatalogSnapshot(
    database="broker",
    databases=("broker", "master"),
    tables=("Orders",),
    columns={"Orders": ("OrderId", "Amount")},
    procedures=("ProcessTrade",),
    queues=("AuditQueue", "TradeQueue"),
    services=("//www.develop.com/DMBrokerage/TradeEntry", "AuditService"),
    contracts=("//www.develop.com/DMBrokerage/TradeContract",),
    message_types=("//www.develop.com/DMBrokerage/Trade",),
)


def complete(text: str, requested: bool = True) -> list[str]:
    completer = TSqlCompleter(lambda: CATALOG)
    doc = Document(text, len(text))
    return [c.text for c in completer.get_completions(
        doc, CompleteEvent(completion_requested=requested))]


def test_queue_name_after_receive_from() -> None:
    assert complete("RECEIVE TOP(1) * FROM Tra") == ["TradeQueue"]


def test_queue_names_after_on_queue() -> None:
    assert complete("CREATE SERVICE s ON QUEUE ") == ["AuditQueue", "TradeQueue"]


def test_service_name_is_bracketed_when_it_needs_brackets() -> None:
    got = complete("BEGIN DIALOG @h FROM SERVICE //www")
    assert got == ["[//www.develop.com/DMBrokerage/TradeEntry]"]


def test_substring_match_finds_long_names() -> None:
    assert "[//www.develop.com/DMBrokerage/TradeEntry]" in complete(
        "ALTER SERVICE TradeEn")


def test_open_bracket_is_completed_and_closed() -> None:
    text = "BEGIN DIALOG @h FROM SERVICE [//www.develop.com/DM"
    completer = TSqlCompleter(lambda: CATALOG)
    (c,) = completer.get_completions(Document(text, len(text)), CompleteEvent(True))
    assert c.text == "[//www.develop.com/DMBrokerage/TradeEntry]"
    assert c.start_position == -len("[//www.develop.com/DM")


def test_service_in_a_string_is_the_bare_name() -> None:
    assert complete("TO SERVICE '//www.dev") == ["//www.develop.com/DMBrokerage/TradeEntry"]


def test_contracts_and_message_types() -> None:
    assert complete("ON CONTRACT [//") == ["[//www.develop.com/DMBrokerage/TradeContract]"]
    assert complete("MESSAGE TYPE //") == ["[//www.develop.com/DMBrokerage/Trade]"]


def test_procedures_after_exec_and_databases_after_use() -> None:
    assert complete("EXEC Proc") == ["ProcessTrade"]
    assert complete("USE ma") == ["master"]


def test_tables_and_columns_and_keywords_elsewhere() -> None:
    got = complete("SELECT Am")
    assert "Amount" in got
    assert complete("SELECT * FROM Ord") == ["Orders"]
    assert "SELECT" in complete("SEL")
    assert "GETDATE" in complete("GETD")


def test_queue_columns_are_offered() -> None:
    assert "message_type_name" in complete("SELECT message_type_n")


def test_variables_declared_in_the_buffer() -> None:
    text = "DECLARE @handle uniqueidentifier, @body xml;\nSEND ON CONVERSATION @h"
    assert complete(text) == ["@handle"]
    assert "@@TRANCOUNT" in complete("SELECT @@TRAN")


def test_no_popup_on_an_empty_word_unless_asked() -> None:
    assert complete("SELECT ", requested=False) == []
    assert complete("SELECT ", requested=True)


def test_special_commands_complete() -> None:
    assert complete(":que") == [":queues"]


def test_quote_name_and_declared_variables() -> None:
    assert quote_name("Orders") == "Orders"
    assert quote_name("order") == "[order]"
    assert quote_name("a]b") == "[a]]b]"
    assert declared_variables("DECLARE @a int; SET @A = @b + @@ROWCOUNT") == ["@a", "@b"]


def test_columns_after_a_table_or_alias_and_queue_columns_after_a_queue() -> None:
    assert complete("SELECT Orders.Am") == ["Amount"]
    assert complete("SELECT Orders.", requested=False) == ["OrderId", "Amount"]
    text = "SELECT o.Ord"
    completer = TSqlCompleter(lambda: CATALOG)
    full = text + " FROM dbo.Orders AS o WHERE 1 = 1"
    got = [c.text for c in completer.get_completions(Document(full, len(text)),
                                                      CompleteEvent(True))]
    assert got == ["OrderId"]
    assert "message_body" in complete("SELECT TradeQueue.message_b")


def test_catalog_views_after_sys_and_objects_after_a_schema() -> None:
    assert complete("SELECT * FROM sys.service_q") == ["service_queue_usages", "service_queues"]
    assert complete("SELECT * FROM dbo.Tra") == ["TradeQueue", "ProcessTrade"]


def test_table_aliases() -> None:
    assert table_aliases("SELECT * FROM dbo.[Orders] o JOIN Items AS i ON 1=1 WHERE x") == {
        "o": "orders", "i": "items"}
    assert table_aliases("SELECT * FROM Orders WHERE x = 1") == {}


def test_unbracketed_url_names_with_dots_are_one_word() -> None:
    text = "BEGIN DIALOG @h FROM SERVICE //www.develop.com/DMBrokerage/T"
    completer = TSqlCompleter(lambda: CATALOG)
    (c,) = completer.get_completions(Document(text, len(text)), CompleteEvent(True))
    assert c.text == "[//www.develop.com/DMBrokerage/TradeEntry]"
    assert c.start_position == -len("//www.develop.com/DMBrokerage/T")


def test_a_long_buffer_completes_from_its_tail() -> None:
    # Only the last characters are scanned (a long paste typed key by key stays linear),
    # and a cut inside a string still knows the cursor is in one.
    filler = "PRINT 'x';\n" * 50_000
    assert complete(filler + "RECEIVE TOP(1) * FROM Tra") == ["TradeQueue"]
    inside = "SELECT '" + "y" * 10_000 + "\nEXEC Proc"
    assert complete(inside) == []  # inside the string: no procedure names
    assert complete(inside + "' EXEC Proc") == ["ProcessTrade"]
