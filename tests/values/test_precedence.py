"""The one data type precedence table (values/precedence.py) on types and on spec texts."""

from __future__ import annotations

from tsqlbroker.values.precedence import PRECEDENCE, common_spec, common_type, precedence
from tsqlbroker.values.types import SYSNAME, SqlType, decimal_type, parse_type


def test_table_follows_the_documented_order() -> None:
    assert PRECEDENCE["sql_variant"] > PRECEDENCE["xml"] > PRECEDENCE["datetimeoffset"]
    assert PRECEDENCE["image"] > PRECEDENCE["timestamp"] > PRECEDENCE["uniqueidentifier"]
    assert PRECEDENCE["binary"] > PRECEDENCE["null"]
    assert PRECEDENCE["numeric"] == PRECEDENCE["decimal"]
    assert PRECEDENCE["sysname"] == PRECEDENCE["nvarchar"] == precedence(SYSNAME)


def test_types_and_specs_agree() -> None:
    assert common_type([SqlType("int"), decimal_type(5, 2)]) == decimal_type(12, 2)
    assert common_spec(["int", "decimal(5,2)"]) == "decimal(12,2)"
    assert common_type([parse_type("nchar(3)"), SYSNAME]) == SqlType("nvarchar", 128)
    assert common_spec(["nchar(3)", "sysname"]) == "nvarchar(128)"
    assert common_spec(["varchar(10)", "datetime2(3)"]) == "datetime2(3)"
    assert common_spec(["rowversion", "uniqueidentifier"]) == "timestamp"
