"""Every built-in, bound to assorted argument types and fed assorted values, either works or
raises TSqlError — never a Python exception."""

from __future__ import annotations

import uuid
from datetime import UTC, date, datetime, time
from decimal import Decimal
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tsqlbroker.errors import TSqlError
from tsqlbroker.values.builtins import NOTCONST, lookup, names
from tsqlbroker.values.types import parse_type_spec

VALUES: dict[str, st.SearchStrategy[Any]] = {
    "int": st.integers(-(2**31), 2**31 - 1),
    "bigint": st.integers(-(2**63), 2**63 - 1),
    "bit": st.integers(0, 1),
    "decimal(10,2)": st.decimals(min_value=-99999999, max_value=99999999, places=2,
                                 allow_nan=False),
    "float": st.floats(allow_nan=False, allow_infinity=False),
    "money": st.decimals(min_value=-10**9, max_value=10**9, places=4, allow_nan=False),
    "varchar(20)": st.text(max_size=20, alphabet=st.characters(max_codepoint=255,
                                                                blacklist_categories=("Cs",))),
    "nvarchar(20)": st.text(max_size=20, alphabet=st.characters(blacklist_categories=("Cs",))),
    "varbinary(8)": st.binary(max_size=8),
    "datetime": st.datetimes(min_value=datetime(1753, 1, 1), max_value=datetime(9999, 12, 31)),
    "date": st.dates(min_value=date(1, 1, 1)),
    "time": st.times(),
    "datetimeoffset": st.datetimes(timezones=st.just(UTC)),
    "uniqueidentifier": st.uuids(),
}
TYPES = list(VALUES)
DATEPARTS = ["year", "month", "day", "hour", "minute", "second", "week", "weekday", "ms",
             "quarter", "dayofyear", "iso_week", "nanosecond", "tzoffset", "bogus"]


@st.composite
def call_case(draw: st.DrawFn) -> tuple[str, list[str], list[Any], list[Any]]:
    name = draw(st.sampled_from(names()))
    b = lookup(name)
    assert b is not None
    n = draw(st.integers(b.min_args, min(b.max_args, b.min_args + 2)))
    types = [draw(st.sampled_from(TYPES)) for _ in range(n)]
    values = [draw(st.one_of(st.none(), VALUES[t])) for t in types]
    consts: list[Any] = [NOTCONST] * n
    if name.startswith(("date", "datetrunc")) and name not in (
            "datefromparts", "datetimefromparts", "datetime2fromparts") and n:
        part = draw(st.sampled_from(DATEPARTS))
        types[0], values[0], consts[0] = "varchar(20)", part, part
    return name, types, values, consts


@settings(max_examples=300, suppress_health_check=[HealthCheck.too_slow])
@given(call_case())
def test_builtins_never_raise_python_errors(case: tuple[str, list[str], list[Any], list[Any]]
                                            ) -> None:
    name, types, values, consts = case
    b = lookup(name)
    assert b is not None
    try:
        _t, fn = b.bind([parse_type_spec(t) for t in types], consts)
    except TSqlError:
        return
    try:
        fn(*values)
    except TSqlError:
        pass


def test_value_kinds_cover_the_python_types() -> None:
    samples = [1, Decimal("1.5"), 1.5, "x", b"x", datetime(2000, 1, 1), date(2000, 1, 1),
               time(1, 0), uuid.uuid4()]
    assert {type(s) for s in samples} <= {int, Decimal, float, str, bytes, datetime, date,
                                         time, uuid.UUID}


@st.composite
def pair_case(draw: st.DrawFn) -> tuple[str, str, Any, Any]:
    lt, rt = draw(st.sampled_from(TYPES)), draw(st.sampled_from(TYPES))
    return lt, rt, draw(st.one_of(st.none(), VALUES[lt])), draw(st.one_of(st.none(),
                                                                          VALUES[rt]))


@settings(max_examples=300, suppress_health_check=[HealthCheck.too_slow])
@given(pair_case(), st.sampled_from(["+", "-", "*", "/", "%", "&", "|", "^", "=", "<", ">="]))
def test_operators_never_raise_python_errors(case: tuple[str, str, Any, Any], op: str) -> None:
    from tsqlbroker.values.operators import binary, comparison

    lt, rt, a, b = case
    try:
        fn = comparison(op, parse_type_spec(lt), parse_type_spec(rt)) if op in ("=", "<", ">=") \
            else binary(op, parse_type_spec(lt), parse_type_spec(rt))[1]
    except TSqlError:
        return
    try:
        fn(a, b)
    except TSqlError:
        pass


@settings(max_examples=300, suppress_health_check=[HealthCheck.too_slow])
@given(pair_case(), st.sampled_from([None, 0, 1, 2, 101, 112, 121, 126]))
def test_conversions_never_raise_python_errors(case: tuple[str, str, Any, Any],
                                               style: int | None) -> None:
    from tsqlbroker.values.convert import converter

    src, dst, value, _b = case
    for explicit in (True, False):
        try:
            conv = converter(parse_type_spec(src), parse_type_spec(dst), style=style,
                             explicit=explicit)
        except TSqlError:
            continue
        try:
            conv(value)
        except TSqlError:
            pass
