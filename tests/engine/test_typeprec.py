"""SQL Server's data type precedence and SUM / AVG result types (values/precedence.py)."""

from __future__ import annotations

from tsqlbroker.values.precedence import aggregate_spec, common_spec
from tsqlbroker.values.types import literal_spec


def test_literal_types() -> None:
    assert literal_spec("1", False) == "int"
    assert literal_spec("2.50", False) == "numeric(3,2)"
    assert literal_spec("0.5", False) == "numeric(1,1)"
    assert literal_spec("3000000000", False) == "numeric(10,0)"
    assert literal_spec("1e3", False) == "float"
    assert literal_spec("ab", True) == "varchar(2)"
    assert literal_spec("ab", True, national=True) == "nvarchar(2)"


def test_common_type_by_precedence() -> None:
    assert common_spec(["int", "decimal(2,1)"]) == "decimal(11,1)"
    assert common_spec(["int", "varchar(1)", None]) == "int"
    assert common_spec(["varchar(3)", "nvarchar(1)"]) == "nvarchar(3)"
    assert common_spec(["varchar(3)", "varchar(max)"]) == "varchar(max)"
    assert common_spec(["float", "decimal(5,2)", "bigint"]) == "float"
    assert common_spec(["date", "datetime"]) == "datetime"
    assert common_spec([None, None]) is None


def test_aggregate_result_types() -> None:
    assert aggregate_spec("avg", "smallint") == "int"
    assert aggregate_spec("sum", "bigint") == "bigint"
    assert aggregate_spec("sum", "decimal(6,2)") == "decimal(38,2)"
    assert aggregate_spec("avg", "decimal(6,2)") == "decimal(38,6)"
    assert aggregate_spec("avg", "decimal(10,8)") == "decimal(38,8)"
    assert aggregate_spec("sum", "smallmoney") == "money"
    assert aggregate_spec("avg", "real") == "float"
    assert aggregate_spec("avg", None) is None
