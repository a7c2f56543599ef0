"""sp_helptext's line splitting (one row per line, 255-character pieces, line ends kept) and
sp_help's result sets (whose creation times keep them out of the golden tests)."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from tsql_client import Client

from tsqlbroker.interpreter.instance import Instance
from tsqlbroker.interpreter.sysprocs import split_module_text


def test_lines_keep_their_ends() -> None:
    assert split_module_text("CREATE VIEW v\r\nAS SELECT 1") == ["CREATE VIEW v\r\n", "AS SELECT 1"]


def test_long_line_is_cut_at_255() -> None:
    rows = split_module_text("x" * 600 + "\n")
    assert [len(r) for r in rows] == [255, 255, 91]
    assert "".join(rows) == "x" * 600 + "\n"


SP_HELP_SETUP = """
CREATE TABLE dbo.t (id int IDENTITY(10, 5) NOT NULL, name varchar(20) NULL, wide nvarchar(max),
    amount decimal(9, 2) NOT NULL, f float, made datetime, c char(3) NOT NULL)
CREATE TABLE dbo.plain (i int)
"""


def _sp_help(url: str, text: str) -> list[Any]:
    inst = Instance(url)
    try:
        client = Client(inst)
        client.run(SP_HELP_SETUP)
        return [e[1] for e in client.run(text).events if e[0] == "resultset"]
    finally:
        inst.close()


def test_sp_help_describes_a_table(backend_url: str) -> None:
    before = datetime.now() - timedelta(minutes=5)
    head, columns, identity = _sp_help(backend_url, "EXEC sp_help 'dbo.t'")
    assert head.columns == ["Name", "Owner", "Type", "Created_datetime"]
    [(name, owner, kind, created)] = head.rows
    assert (name, owner, kind) == ("t", "dbo", "user table")
    assert isinstance(created, datetime) and before <= created <= datetime.now()
    assert columns.columns[:4] == ["Column_name", "Type", "Computed", "Length"]
    assert [r[:7] for r in columns.rows] == [
        ("id", "int", "no", 4, "10   ", "0    ", "no"),
        ("name", "varchar", "no", 20, "     ", "     ", "yes"),
        ("wide", "nvarchar", "no", -1, "     ", "     ", "yes"),
        ("amount", "decimal", "no", 5, "9    ", "2    ", "no"),
        ("f", "float", "no", 8, "53   ", None, "yes"),
        ("made", "datetime", "no", 8, "     ", "     ", "yes"),
        ("c", "char", "no", 3, "     ", "     ", "no")]
    assert identity.rows == [("id", 10, 5, 0)]


def test_sp_help_without_identity_and_for_a_procedure(backend_url: str) -> None:
    sets = _sp_help(backend_url, "EXEC sp_help 'plain'")
    assert [s.rows[0][:3] for s in sets[:1]] == [("plain", "dbo", "user table")]
    assert sets[2].rows == [("No identity column defined.", None, None, None)]
    inst = Instance(backend_url)
    try:
        client = Client(inst)
        client.run("CREATE PROCEDURE dbo.p AS SELECT 1")
        [head] = [e[1] for e in client.run("EXEC sp_help 'dbo.p'").events if e[0] == "resultset"]
        assert head.rows[0][:3] == ("p", "dbo", "stored procedure")
    finally:
        inst.close()
