"""Scripts shaped after the reference's external acceptance samples (§8) parse, with the
nodes the interpreter relies on."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tsqlbroker.grammar import ast, parse

SAMPLES = Path(__file__).resolve().parent / "samples"


def walk(node: Any) -> list[Any]:
    """Every node under ``node`` (depth first)."""
    out: list[Any] = []
    stack = [node]
    while stack:
        x = stack.pop()
        if isinstance(x, tuple):
            stack.extend(x)
        elif isinstance(x, ast.Node):
            out.append(x)
            stack.extend(getattr(x, f) for f in x.__dataclass_fields__ if f != "span")
    return out


def test_ms_tutorial_single_database() -> None:
    script = parse((SAMPLES / "ms_tutorial_single_db.sql").read_text(encoding="utf-8"))
    nodes = walk(script)
    kinds = {type(n).__name__ for n in nodes}
    assert {"AlterDatabase", "CreateMessageType", "CreateContract", "CreateQueue",
            "CreateService", "BeginDialog", "Send", "Waitfor", "EndConversation",
            "CreateProcedure", "SaveTran", "AlterQueue"} <= kinds
    dialog = next(n for n in nodes if isinstance(n, ast.BeginDialog))
    assert dialog.encryption is False
    assert dialog.to_service == ast.Literal("nstring", "//AWDB/1DBSample/TargetService",
                                            "N'//AWDB/1DBSample/TargetService'")
    rollback = [n for n in nodes if isinstance(n, ast.RollbackTran)]
    assert ast.RollbackTran("UndoReceive") in rollback
    poison = next(n for n in nodes if isinstance(n, ast.EndConversation) and n.error_code)
    assert poison.error_code == ast.Literal("int", 500, "500")


def test_async_exec_activation_procedures() -> None:
    script = parse((SAMPLES / "async_exec_activated.sql").read_text(encoding="utf-8"))
    assert [b.start_line for b in script.batches] == [1, 87]
    assert script.batches[0].statements[0].span.line == 3  # after the leading comments
    activated, invoke = (b.statements[0] for b in script.batches)
    assert isinstance(activated, ast.CreateProcedure)
    nodes = walk(activated)
    exec_var = next(n for n in nodes if isinstance(n, ast.ExecProc))
    assert exec_var.proc == ast.Variable("@procedureName")
    error_select = next(n for n in nodes if isinstance(n, ast.SelectStmt) and n.xmlnamespaces)
    assert error_select.xmlnamespaces == (
        ast.XmlNamespace("http://schemas.microsoft.com/SQL/ServiceBroker/Error"),)
    assert any(isinstance(n, ast.MethodCall) and n.method == "value" for n in nodes)
    assert isinstance(invoke, ast.CreateProcedure)
    assert [(p.name, p.output) for p in invoke.params] == [("@procedureName", False),
                                                          ("@token", True)]
    inv = walk(invoke)
    dialog = next(n for n in inv if isinstance(n, ast.BeginDialog))
    assert dialog.to_broker == ast.Literal("string", "current database", "'current database'")
    assert any(isinstance(n, ast.Select) and n.for_clause == "xml path('procedure'), type"
               for n in inv)
