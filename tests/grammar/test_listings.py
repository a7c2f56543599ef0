"""The chapter's listings (tests/listings) parse to the expected statements."""

from __future__ import annotations

from pathlib import Path

import pytest
from grammar_helpers import LISTINGS

from tsqlbroker.errors import ParseError
from tsqlbroker.grammar import ast, parse

EXPECTED = {
    "15-02_message_types.sql": ["CreateMessageType", "CreateMessageType"],
    "15-03_schemas_corrected.sql": ["CreateXmlSchemaCollection", "CreateMessageType",
                                    "CreateXmlSchemaCollection", "CreateMessageType"],
    "15-06_contract.sql": ["CreateContract"],
    "15-08_shell_procedures.sql": ["CreateProcedure", "CreateProcedure"],
    "15-08_queues.sql": ["Use", "CreateQueue", "Use", "CreateQueue"],
    "15-10_services.sql": ["Use", "CreateService", "Use", "CreateService"],
    "15-11b_family_id_select.sql": ["SelectStmt"],
    "15-12_begin_dialog.sql": ["Declare", "BeginDialog"],
    "15-14_begin_dialog_send.sql": ["Declare"] * 4 + ["SetVariable"] * 2 + ["BeginDialog",
                                                                              "Send"],
    "15-16_receive.sql": ["Receive"],
    "15-17_receive_waitfor.sql": ["Declare", "Declare", "Waitfor", "SelectStmt"],
    "15-18_trade_entry_proc.sql": ["CreateProcedure"],
    "15-18b_alter_queue_activation.sql": ["AlterQueue"],
    "15-19_trade_ack_proc.sql": ["CreateProcedure"],
}


def _kinds(path: Path) -> list[str]:
    script = parse(path.read_text(encoding="utf-8"))
    return [type(s).__name__ for b in script.batches for s in b.statements]


def test_every_listing_file_is_covered() -> None:
    files = {p.name for p in LISTINGS.glob("*.sql")}
    assert files == set(EXPECTED) | {"15-03_schemas_verbatim.sql"}


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_listing_parses(name: str) -> None:
    assert _kinds(LISTINGS / name) == EXPECTED[name]


def test_listing_15_3_verbatim_fails_where_the_string_closes_early() -> None:
    text = (LISTINGS / "15-03_schemas_verbatim.sql").read_text(encoding="utf-8")
    with pytest.raises(ParseError) as info:
        parse(text)
    err = info.value
    assert err.number == 102
    assert err.line == 31
    assert "'http://www.develop.com/DMBrokerage/schemas/tradeAck'>" in err.source_line
    assert text.splitlines()[err.line - 1] == err.source_line


def test_listing_15_2_is_prerelease_encoding_xml() -> None:
    stmts = parse((LISTINGS / "15-02_message_types.sql").read_text()).batches[0].statements
    first = stmts[0]
    assert isinstance(first, ast.CreateMessageType)
    assert first.name == "//www.develop.com/DMBrokerage/TradeEntry"
    assert first.validation == "WELL_FORMED_XML"


def test_listing_15_3_corrected_binds_schema_namespaces() -> None:
    stmts = parse((LISTINGS / "15-03_schemas_corrected.sql").read_text()).batches[0].statements
    schema, mtype = stmts[0], stmts[1]
    assert isinstance(schema, ast.CreateXmlSchemaCollection) and schema.name is None
    assert isinstance(schema.schema, ast.Literal) and schema.schema.kind == "nstring"
    assert 'targetNamespace=\n    "http://www.develop.com/DMBrokerage/schemas/tradeEntry"' \
        in schema.schema.value
    assert isinstance(mtype, ast.CreateMessageType)
    assert mtype.validation == "VALID_XML"
    assert mtype.schema_namespace == "http://www.develop.com/DMBrokerage/schemas/tradeEntry"
    assert mtype.span is not None and mtype.span.line == 21


def test_listing_15_8_queue_activation() -> None:
    stmts = parse((LISTINGS / "15-08_queues.sql").read_text()).batches[0].statements
    queue = stmts[1]
    assert isinstance(queue, ast.CreateQueue)
    assert queue.name == ast.ObjectName("tradeAckQueue")
    assert queue.status is True
    assert queue.activation == ast.QueueActivation(
        procedure=ast.ObjectName("tradeAckProc"), max_readers=5, execute_as="SELF")


def test_listing_15_12_keeps_the_odd_names() -> None:
    dialog = parse((LISTINGS / "15-12_begin_dialog.sql").read_text()).batches[0].statements[1]
    assert isinstance(dialog, ast.BeginDialog)
    assert dialog.handle == "@dh"
    assert dialog.from_service == "enterTrade"
    assert dialog.to_service == ast.Literal(
        "string", "://www.develop.com/DMBrokerage/TradeEntryService",
        "'://www.develop.com/DMBrokerage/TradeEntryService'")
    assert dialog.contract == "://www.develop.com/DMBrokerage/EnterTrade"


def test_listing_15_17_waitfor_receive_assigns_variables() -> None:
    stmts = parse((LISTINGS / "15-17_receive_waitfor.sql").read_text()).batches[0].statements
    wait = stmts[2]
    assert isinstance(wait, ast.Waitfor)
    assert wait.timeout == ast.Literal("int", 60000, "60000")
    recv = wait.statement
    assert isinstance(recv, ast.Receive)
    assert [i.assign_to for i in recv.items] == ["@dh", "@msg"]
    assert [i.expr for i in recv.items] == [ast.Column(("conversation_handle",)),
                                            ast.Column(("message_body",))]


def test_listing_15_18_procedure_body_runs_to_end_of_batch() -> None:
    text = (LISTINGS / "15-18_trade_entry_proc.sql").read_text()
    proc = parse(text).batches[0].statements[0]
    assert isinstance(proc, ast.CreateProcedure)
    assert proc.name == ast.ObjectName("tradeEntryProc")
    assert proc.source == text.rstrip()
    kinds = [type(s).__name__ for s in proc.body]
    assert kinds == ["Declare"] * 5 + ["While"]
    loop = proc.body[-1]
    assert isinstance(loop, ast.While) and isinstance(loop.body, ast.Block)
    inner = [type(s).__name__ for s in loop.body.body]
    assert inner == ["BeginTran", "SetVariable", "Waitfor", "If", "Receive", "SetVariable",
                     "SetVariable", "Send", "EndConversation", "CommitTran"]
    wait = loop.body.body[2]
    assert isinstance(wait, ast.Waitfor)
    assert wait.statement == ast.GetConversationGroup("@si", ast.ObjectName("tradeEntryQueue"))
    recv = loop.body.body[4]
    assert isinstance(recv, ast.Receive)
    assert recv.where_column == "conversation_group_id"
    assert recv.span is not None and recv.span.line == 37
    send = loop.body.body[7]
    assert isinstance(send, ast.Send)
    assert send.message_type == "//www.develop.com/DMBrokerage/TradeAck"
    assert isinstance(send.body, ast.Convert) and send.body.type == ast.DataType(
        "varbinary", ("max",))


def test_listing_15_19_receive_three_assignments() -> None:
    proc = parse((LISTINGS / "15-19_trade_ack_proc.sql").read_text()).batches[0].statements[0]
    assert isinstance(proc, ast.CreateProcedure)
    loop = proc.body[-1]
    assert isinstance(loop, ast.While) and isinstance(loop.body, ast.Block)
    recv = next(s for s in loop.body.body if isinstance(s, ast.Receive))
    assert [i.assign_to for i in recv.items] == ["@dh", "@msg", "@mt"]
