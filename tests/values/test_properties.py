"""Property checks over many values: round trips and the arithmetic contracts."""

from __future__ import annotations

from datetime import datetime, timedelta
from decimal import ROUND_HALF_UP, Decimal

from hypothesis import given, settings
from hypothesis import strategies as st

from tsqlbroker.values.convert import converter
from tsqlbroker.values.operators import binary, comparison, like
from tsqlbroker.values.types import parse_type_spec

T = parse_type_spec
INT32 = st.integers(-(2**31), 2**31 - 1)


@given(INT32)
def test_int_text_round_trip(i: int) -> None:
    text = converter(T("int"), T("varchar(12)"))(i)
    assert converter(T("varchar(12)"), T("int"))(text) == i


@given(st.decimals(min_value=Decimal("-99999999.99"), max_value=Decimal("99999999.99"),
                   places=2, allow_nan=False, allow_infinity=False),
       st.decimals(min_value=Decimal("-999.999"), max_value=Decimal("999.999"), places=3,
                   allow_nan=False, allow_infinity=False))
def test_decimal_multiply_is_exact(a: Decimal, b: Decimal) -> None:
    t, mul = binary("*", T("decimal(10,2)"), T("decimal(6,3)"))
    assert t.spec() == "decimal(17,5)"
    assert mul(a, b) == (a * b).quantize(Decimal("0.00001"))


@given(st.decimals(min_value=Decimal("-9999.99"), max_value=Decimal("9999.99"), places=2,
                   allow_nan=False, allow_infinity=False),
       st.decimals(min_value=Decimal("0.01"), max_value=Decimal("999.99"), places=2,
                   allow_nan=False, allow_infinity=False))
def test_decimal_divide_rounds_half_up_to_the_result_scale(a: Decimal, b: Decimal) -> None:
    t, div = binary("/", T("decimal(6,2)"), T("decimal(5,2)"))
    assert (t.precision, t.scale) == (14, 8)
    got = div(a, b)
    from decimal import localcontext

    with localcontext() as ctx:
        ctx.prec = 60
        exact = a / b
    assert got == exact.quantize(Decimal("1e-8"), rounding=ROUND_HALF_UP)


@given(INT32, INT32)
def test_int_division_truncates_toward_zero(a: int, b: int) -> None:
    if b == 0 or (a == -(2**31) and b == -1):
        return
    _t, div = binary("/", T("int"), T("int"))
    _t, mod = binary("%", T("int"), T("int"))
    q, r = div(a, b), mod(a, b)
    assert q * b + r == a
    assert abs(r) < abs(b) and (r == 0 or (r < 0) == (a < 0))


@given(st.text(alphabet=st.characters(min_codepoint=32, max_codepoint=126), max_size=20))
def test_escaped_text_matches_itself_case_insensitively(s: str) -> None:
    pattern = "".join("!" + c if c in "%_[!" else c for c in s)
    assert like(s.upper(), pattern, "!") is True
    assert like(s + " ", pattern, "!") is True


@given(st.text(alphabet="abcABC ", max_size=8), st.text(alphabet="abcABC ", max_size=8))
def test_string_equality_ignores_case_and_trailing_spaces(a: str, b: str) -> None:
    eq = comparison("=", T("varchar(10)"), T("varchar(10)"))
    assert eq(a, b) is (a.rstrip(" ").lower() == b.rstrip(" ").lower())


@settings(max_examples=200)
@given(st.datetimes(min_value=datetime(1753, 1, 1), max_value=datetime(9999, 12, 30)))
def test_datetime_style_121_round_trip(d: datetime) -> None:
    to_dt = converter(T("datetime2"), T("datetime"))
    v = to_dt(d)
    text = converter(T("datetime"), T("varchar(30)"), style=121)(v)
    assert converter(T("varchar(30)"), T("datetime"), style=121)(text) == v
    assert abs(v - d) <= timedelta(milliseconds=2)
