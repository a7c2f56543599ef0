"""A sql_variant column's stored form (storage/stored_values.py): each value with its base
type and SQL_VARIANT_PROPERTY's answers, read back as a value of that type."""

from __future__ import annotations

import datetime as dt
import uuid
from decimal import Decimal

import pytest

from tsqlbroker.storage.stored_values import (
    VARIANT_FIELDS,
    from_storage,
    variant_backend_value,
    variant_field,
    variant_to_storage,
)


@pytest.mark.parametrize(("value", "source", "base", "native"), [
    (1, "tinyint", "tinyint", 1),
    ("abc", "nvarchar(3)", "nvarchar", "abc"),
    (Decimal("1.5"), "numeric(2,1)", "numeric", 1.5),
    (Decimal("46279.10"), "decimal(8,2)", "decimal", 46279.1),
    (dt.date(2020, 1, 1), "date", "date", "2020-01-01"),
    (b"\x01\x02", "varbinary(2)", "varbinary", b"\x01\x02"),
    (2.5, "float", "float", 2.5),
    (uuid.UUID(int=7), "uniqueidentifier", "uniqueidentifier",
     "00000000-0000-0000-0000-000000000007"),
    (10, None, "int", 10),  # no source type: the type the value stands for
])
def test_round_trip(value: object, source: str | None, base: str, native: object) -> None:
    stored = variant_to_storage(value, source)
    assert from_storage(stored, "sql_variant") == value
    assert variant_field(stored, VARIANT_FIELDS["basetype"]) == base
    assert variant_backend_value(stored) == native
    # A string that is a stored form is a value like any other: wrapped, not taken as one.
    assert from_storage(variant_to_storage(stored, "sql_variant"), "sql_variant") == stored


def test_properties_are_stored() -> None:
    stored = variant_to_storage(Decimal("46279.10"), "decimal(8,2)")
    fields = {name: variant_field(stored, k) for name, k in VARIANT_FIELDS.items()}
    assert fields == {"basetype": "decimal", "precision": "8", "scale": "2",
                      "maxlength": "5", "collation": None, "totalbytes": "9"}
    assert variant_field(variant_to_storage("x", "varchar(1)"),
                         VARIANT_FIELDS["collation"]) == "SQL_Latin1_General_CP1_CI_AS"


def test_families_sort_by_the_stored_rank() -> None:
    ranks = [variant_to_storage(v, s)[:2] for v, s in [
        (uuid.UUID(int=1), "uniqueidentifier"), (b"\x00", "binary(1)"), ("z", "varchar(1)"),
        (99, "int"), (1.0, "real"), (dt.date(1900, 1, 1), "date")]]
    assert ranks == sorted(ranks) and len(set(ranks)) == len(ranks)


def test_values_without_header_read_as_themselves() -> None:
    # A value written before sql_variant columns kept types, or by a path that keeps none.
    assert from_storage("plain", "sql_variant") == "plain"
    assert variant_backend_value("plain") == "plain"
    assert variant_field("plain", VARIANT_FIELDS["basetype"]) is None
    assert from_storage(None, "sql_variant") is None
    assert variant_to_storage(None, "int") is None


def test_a_string_like_a_stored_form_is_wrapped() -> None:
    fake = "\x01" + "9|int|10|0|4||6|int" + "\x02" + "5"
    for value in ("\x01", fake):
        stored = variant_to_storage(value, "varchar(20)")
        assert from_storage(stored, "sql_variant") == value
        assert variant_field(stored, VARIANT_FIELDS["basetype"]) == "varchar"


@pytest.mark.parametrize("malformed", ["\x01", "\x01abc", "\x01" + "1|int" + "\x02" + "5",
                                       "\x01" + "x|a|b|c|d|e|f|int" + "\x02" + "5"])
def test_a_malformed_stored_value_reads_as_plain_text(malformed: str) -> None:
    assert from_storage(malformed, "sql_variant") == malformed
    assert variant_backend_value(malformed) == malformed
    assert variant_field(malformed, VARIANT_FIELDS["basetype"]) is None
