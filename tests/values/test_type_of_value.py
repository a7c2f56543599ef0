"""The type a runtime value stands for (values.types.type_of_value) and the column spec the
catalog keeps for it (storage.stored_values.column_spec_for): one value of each Python type."""

from __future__ import annotations

import uuid
from datetime import UTC, date, datetime, time
from decimal import Decimal
from typing import Any

import pytest

from tsqlbroker.storage.stored_values import column_spec_for
from tsqlbroker.values.types import type_of_value
from tsqlbroker.values.xml_value import XmlValue

CASES: list[tuple[Any, str, str | None]] = [
    # value, type_of_value(value).spec(), column_spec_for(value)
    (None, "nvarchar(max)", None),
    (True, "int", "int"),
    (7, "int", "int"),
    (2**31, "bigint", "bigint"),
    (-(2**31) - 1, "bigint", "bigint"),
    (1.5, "float", "float"),
    (Decimal("1.250"), "decimal(38,3)", "decimal(38,10)"),
    (Decimal(12), "decimal(38,0)", "decimal(38,10)"),
    ("abc", "nvarchar(max)", "nvarchar(max)"),
    (b"\x01", "varbinary(max)", "varbinary(max)"),
    (bytearray(b"\x01"), "varbinary(max)", "varbinary(max)"),
    (uuid.UUID(int=1), "uniqueidentifier", "uniqueidentifier"),
    (datetime(2024, 3, 5, 10, 0), "datetime2(7)", "datetime"),
    (datetime(2024, 3, 5, 10, 0, tzinfo=UTC), "datetimeoffset(7)", "datetime"),
    (date(2024, 3, 5), "date", "date"),
    (time(10, 0), "time(7)", "nvarchar(max)"),
    (XmlValue.parse("<a/>"), "xml", "nvarchar(max)"),
    (object(), "nvarchar(max)", "nvarchar(max)"),
]


@pytest.mark.parametrize(("value", "type_spec", "column_spec"), CASES)
def test_type_and_column_spec_of_a_value(value: Any, type_spec: str,
                                         column_spec: str | None) -> None:
    assert type_of_value(value).spec() == type_spec
    assert column_spec_for(value) == column_spec
