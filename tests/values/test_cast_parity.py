"""CAST / CONVERT parity: the same conversions through the interpreter (no FROM: the values
layer, values/convert.py), through a query over a one-row table on SQLite (the conversion
runs inside SQLite: ``tsql_convert``, an adapter over the same values/convert.py) and on
PostgreSQL (``tsqlb_cvt``, PL/pgSQL in storage/backends/postgres/convert_sql.py, which cannot
call Python). All three must agree: the value, or the error number.

PostgreSQL's known disagreements are listed in :data:`PG_DIFFERS`, each with its reason.
Fractions of a second have six digits here: a seventh is below what Python's datetime holds,
and the interpreter rounds it where a stored column truncates it (the string → datetime2
conversion of INSERT is storage/stored_values.py's, not values/convert.py's).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import NamedTuple

import pytest

from tests.values.parity import ParityStore, parity_stores


class Case(NamedTuple):
    source: str            # the type of the value (the table column's type)
    literal: str           # the value, as T-SQL text
    target: str            # CAST / CONVERT's target type
    style: int | None = None
    try_: bool = False     # TRY_CONVERT


CASES: list[Case] = [
    # exact numerics
    Case("int", "42", "varchar(10)"),
    Case("int", "42", "decimal(5,2)"),
    Case("int", "42", "float"),
    Case("int", "-7", "bit"),
    Case("int", "300", "tinyint"),                      # Msg 220
    Case("int", "123", "char(2)"),                      # '*': too long for the target
    Case("int", "45000", "datetime"),                   # days since 1900-01-01
    Case("int", "1094861636", "binary(4)"),
    Case("int", "5", "date"),                           # Msg 529: not allowed
    Case("bigint", "9000000000", "int"),                # Msg 8115
    Case("decimal(10,3)", "12.345", "int"),             # truncates
    Case("decimal(10,3)", "12.345", "varchar(20)"),
    Case("decimal(10,3)", "12.355", "decimal(5,1)"),    # rounds half away from zero
    Case("decimal(10,3)", "-12.355", "decimal(5,2)"),
    Case("decimal(10,3)", "1234.5", "decimal(3,1)"),    # Msg 8115
    Case("decimal(10,3)", "12.345", "money"),
    Case("money", "1234.5678", "varchar(20)"),
    Case("money", "1234.5678", "varchar(20)", 1),
    Case("money", "1234.5678", "varchar(20)", 2),
    Case("money", "1234.5678", "int"),                  # rounds
    Case("money", "-1234567.125", "varchar(20)", 1),
    # approximate numerics
    Case("float", "1.23456789", "varchar(30)"),
    Case("float", "1.23456789", "varchar(30)", 1),
    Case("float", "1.23456789", "varchar(30)", 2),
    Case("float", "1.23456789", "varchar(30)", 3),
    Case("float", "1e20", "varchar(30)"),
    # the legacy styles: 126 as 2, 128 and 129 the shortest digits that read back the same
    Case("float", "1.23456789", "varchar(30)", 126),
    Case("float", "124.323125453", "varchar(30)", 128),
    Case("float", "124.323125453", "varchar(30)", 129),
    Case("float", "1e20", "varchar(30)", 128),
    Case("float", "-0.0000123456789", "varchar(30)", 128),
    Case("float", "-0.000000123", "varchar(30)", 129),
    Case("float", "999999.9999999999", "varchar(30)", 128),
    Case("float", "1000000", "varchar(30)", 128),
    Case("float", "0", "varchar(30)", 128),
    Case("float", "0.30000000000000004", "varchar(30)", 128),
    Case("float", "124.323125453", "varchar(5)", 128),  # Msg 8115
    Case("float", "1.5", "varchar(30)", 4),             # Msg 281
    Case("float", "-0.0000123456789", "varchar(30)"),
    Case("float", "123456.7", "varchar(30)"),
    Case("float", "1234567.8", "varchar(30)", 1),
    Case("float", "1234567.8", "varchar(5)"),           # Msg 8115
    Case("float", "2.7", "int"),
    Case("float", "2.5", "decimal(5,0)"),
    # strings to other types
    Case("varchar(20)", "'123'", "int"),
    Case("varchar(20)", "' 12 '", "int"),
    Case("varchar(20)", "'abc'", "int"),                # Msg 245
    Case("varchar(20)", "'12.5'", "int"),               # Msg 245
    Case("varchar(20)", "'12.5'", "decimal(5,2)"),
    Case("varchar(20)", "'1e3'", "float"),
    Case("varchar(20)", "'abc'", "float"),              # Msg 8114
    Case("varchar(20)", "'abcdef'", "varchar(3)"),
    Case("varchar(20)", "'true'", "bit"),
    Case("varchar(20)", "'yes'", "bit"),                # Msg 245
    Case("varchar(20)", "'abc'", "varbinary(10)"),
    Case("varchar(20)", "'0x1A2B'", "varbinary(10)", 1),
    Case("varchar(20)", "'0xA2B'", "varbinary(10)", 1),
    Case("varchar(20)", "'A2B'", "varbinary(10)", 2),   # Msg 8114: odd digits
    Case("varchar(20)", "'2024-02-29'", "date"),
    Case("varchar(20)", "'2024-02-30'", "date"),        # Msg 241
    Case("varchar(20)", "'20240229'", "date", 112),
    Case("varchar(20)", "'02/29/2024'", "date", 101),
    Case("varchar(20)", "'29/02/2024'", "date", 103),
    Case("varchar(20)", "'29.02.24'", "date", 104),
    Case("varchar(20)", "'02/29/60'", "datetime"),      # two-digit year: 1960
    Case("varchar(20)", "'24/02/29'", "date", 11),
    Case("varchar(30)", "'2024-02-29T10:11:12.123'", "datetime", 126),
    Case("varchar(30)", "'2024-02-29 10:11:12.1234567'", "datetime2"),
    Case("varchar(40)", "'2024-02-29 10:11:12 +05:30'", "datetimeoffset"),
    Case("varchar(40)", "'2024-02-29 10:11:12Z'", "datetimeoffset"),
    Case("varchar(20)", "'10:11:12'", "datetime"),
    Case("varchar(40)", "'6F9619FF-8B86-D011-B42D-00C04FC964FF'", "uniqueidentifier"),
    Case("varchar(40)", "'zz'", "uniqueidentifier"),    # Msg 8169
    Case("nvarchar(20)", "N'héllo'", "varchar(10)"),
    Case("varchar(20)", "'<a>x</a>'", "xml"),
    # dates and times to strings and to each other
    Case("date", "'2024-02-29'", "varchar(30)"),
    Case("date", "'2024-02-29'", "varchar(30)", 1),
    Case("date", "'2024-02-29'", "varchar(30)", 101),
    Case("date", "'2024-02-29'", "varchar(30)", 103),
    Case("date", "'2024-02-29'", "varchar(30)", 112),
    Case("date", "'2024-02-29'", "datetime"),
    Case("datetime", "'2024-02-29 13:14:15.997'", "varchar(30)"),
    Case("datetime", "'2024-02-29 13:14:15.997'", "varchar(30)", 108),
    Case("datetime", "'2024-02-29 13:14:15.997'", "varchar(30)", 113),
    Case("datetime", "'2024-02-29 13:14:15.997'", "varchar(30)", 120),
    Case("datetime", "'2024-02-29 13:14:15.997'", "varchar(30)", 121),
    Case("datetime", "'2024-02-29 13:14:15.997'", "varchar(30)", 126),
    Case("datetime", "'2024-02-29 13:14:15.997'", "date"),
    Case("datetime", "'2024-02-29 13:14:15.997'", "time"),
    Case("datetime", "'2024-02-29 13:14:15.997'", "float"),
    Case("datetime2", "'2024-02-29 13:14:15.123456'", "varchar(30)", 121),
    Case("datetime2", "'2024-02-29 13:14:15.123456'", "datetime"),
    Case("datetime2", "'2024-02-29 13:14:15.998456'", "datetime"),
    Case("datetime2", "'2024-02-29 13:14:29.999'", "smalldatetime"),
    Case("datetime2", "'2024-02-29 13:14:15.123456'", "datetime2(3)"),
    Case("datetime2", "'2024-02-29 13:14:15.123456'", "datetimeoffset(2)"),
    Case("datetime2", "'2024-02-29 23:59:59.999999'", "date"),
    Case("time", "'13:14:15.123456'", "varchar(30)"),
    Case("time", "'13:14:15.123456'", "datetime"),
    Case("time", "'13:14:15.123456'", "time(1)"),
    Case("datetimeoffset", "'2024-02-29 10:11:12.5000000 +05:30'", "varchar(40)", 126),
    Case("datetimeoffset", "'2024-02-29 10:11:12.5000000 +05:30'", "datetime2"),
    Case("datetimeoffset", "'2024-02-29 10:11:12.5000000 +05:30'", "date"),
    # other types
    Case("uniqueidentifier", "'6F9619FF-8B86-D011-B42D-00C04FC964FF'", "varchar(36)"),
    Case("uniqueidentifier", "'6F9619FF-8B86-D011-B42D-00C04FC964FF'", "char(10)"),  # 8170
    Case("varbinary(10)", "0x41424344", "varchar(10)"),
    Case("varbinary(10)", "0x41424344", "varchar(10)", 1),
    Case("varbinary(10)", "0x41424344", "varchar(10)", 2),
    Case("varbinary(10)", "0x41424344", "int"),
    Case("bit", "1", "varchar(5)"),
    Case("xml", "'<a>1</a>'", "nvarchar(max)"),
    # TRY_CONVERT: NULL where the value fails, an error where the conversion is not allowed
    Case("varchar(20)", "'abc'", "int", try_=True),
    Case("varchar(20)", "'2024-02-30'", "date", try_=True),
    Case("varchar(20)", "'29/02/2024'", "date", 103, try_=True),
    Case("int", "5", "date", try_=True),                # Msg 529 still
]



def case_id(case: Case) -> str:
    style = "" if case.style is None else f",{case.style}"
    return f"{case.source}:{case.literal}->{case.target}{style}{',try' if case.try_ else ''}"


# Where PostgreSQL's SQL-side conversion (tsqlb_cvt, storage/backends/postgres/convert_sql.py)
# disagrees with the values layer today, and why. The test fails when one of them is fixed,
# so that the entry goes.
PG_DIFFERS: dict[str, str] = {
}


def _expression(case: Case, operand: str) -> str:
    fn = "TRY_CONVERT" if case.try_ else "CONVERT"
    style = "" if case.style is None else f", {case.style}"
    return f"{fn}({case.target}, {operand}{style})"


@pytest.fixture(scope="module")
def stores() -> Iterator[dict[str, ParityStore]]:
    """One store per backend for the module, made when a test first asks for it."""
    yield from parity_stores("cast_parity", [c.source for c in CASES],
                             [c.literal for c in CASES])


@pytest.mark.parametrize("index", range(len(CASES)), ids=[case_id(c) for c in CASES])
def test_cast_parity(stores: dict[str, ParityStore], backend: str, index: int) -> None:
    case = CASES[index]
    store = stores[backend]
    in_values = store.outcome(
        f"DECLARE @v {case.source} = {case.literal}; SELECT {_expression(case, '@v')}")
    in_query = store.outcome(f"SELECT {_expression(case, f'c{index}')} FROM cast_parity")
    differs = PG_DIFFERS.get(case_id(case)) if backend == "postgresql" else None
    if differs is not None:
        assert in_query != in_values, f"fixed on PostgreSQL ({differs}): drop it from PG_DIFFERS"
        return
    assert in_query == in_values


def test_known_differences_name_cases() -> None:
    assert set(PG_DIFFERS) <= {case_id(c) for c in CASES}
