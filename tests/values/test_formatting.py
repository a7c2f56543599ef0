"""FORMAT's .NET format strings and STR."""

from __future__ import annotations

from datetime import UTC, date, datetime, time, timedelta, timezone
from decimal import Decimal
from typing import Any

import pytest

from tsqlbroker.values.format_builtins import format_value, str_function

D = datetime(2024, 3, 5, 13, 7, 9, 123000)


@pytest.mark.parametrize(
    ("value", "fmt", "culture", "expected"),
    [
        (1234.567, "N2", None, "1,234.57"),
        (1234.567, "N", None, "1,234.57"),
        (1234.567, "N0", None, "1,235"),
        (-1234.567, "N1", None, "-1,234.6"),
        (42, "D5", None, "00042"),
        (-42, "D5", None, "-00042"),
        (1234.5, "F3", None, "1234.500"),
        (Decimal("1234.5"), "C", "en-US", "$1,234.50"),
        (Decimal("-1234.5"), "C", "en-US", "($1,234.50)"),
        (Decimal("1234.5"), "C", "en-GB", "£1,234.50"),
        (Decimal("1234.5"), "C", "de-DE", "1.234,50 €"),
        (1234.5, "N2", "de-DE", "1.234,50"),
        (0.1234, "P1", None, "12.3 %"),
        (255, "X", None, "FF"),
        (255, "x4", None, "00ff"),
        (1234.5, "E2", None, "1.23E+003"),
        (1234.5, "G", None, "1234.5"),
        (1234.5, "#,##0.00", None, "1,234.50"),
        (1234567, "#,##0", None, "1,234,567"),
        (5, "0.00", None, "5.00"),
        (-5, "0.00", None, "-5.00"),
        (0.5, "#.##", None, ".5"),
        (0.25, "0%", None, "25%"),
        (12, "00000", None, "00012"),
        (-3, "0;(0)", None, "(3)"),
        (0, "0;(0);zero", None, "zero"),
        (1234567, "#,##0,K", None, "1,235K"),
        (5, "'#'0", None, "#5"),
        (1, "Q", None, None),
        (D, "yyyy-MM-dd", None, "2024-03-05"),
        (D, "dd/MM/yyyy HH:mm:ss", None, "05/03/2024 13:07:09"),
        (D, "MMM d, yyyy h:mm tt", None, "Mar 5, 2024 1:07 PM"),
        (D, "dddd, MMMM dd", None, "Tuesday, March 05"),
        (D, "HH:mm:ss.fff", None, "13:07:09.123"),
        (D, "yy-M-d", None, "24-3-5"),
        (D, "d", None, "3/5/2024"),
        (D, "D", None, "Tuesday, March 5, 2024"),
        (D, "d", "en-GB", "05/03/2024"),
        (D, "d", "de-DE", "05.03.2024"),
        (D, "D", "de-DE", "Dienstag, 5. März 2024"),
        (D, "T", None, "1:07:09 PM"),
        (D, "g", None, "3/5/2024 1:07 PM"),
        (D, "s", None, "2024-03-05T13:07:09"),
        (D, "u", None, "2024-03-05 13:07:09Z"),
        (date(2024, 3, 5), "yyyyMMdd", None, "20240305"),
        # time is a TimeSpan: hh is the hour of the day (no 12-hour clock), any other text
        # must be escaped or quoted (the FORMAT page's examples: 'hh:mm' is NULL).
        (time(13, 7), "hh\\:mm", None, "13:07"),
        (time(13, 7), "", None, "13:07:00"),
        (D, "", None, "3/5/2024 1:07:09 PM"),
        (1234.5, "", None, "1234.5"),
        (time(7, 35), "hh\\.mm", None, "07.35"),
        (time(7, 35), "hh:mm", None, None),
        (time(7, 35), "hh.mm", None, None),
        (time(7, 35), "h", None, None),
        (time(7, 35), "%h", None, "7"),
        (time(14, 7, 9, 123400), "c", None, "14:07:09.1234000"),
        (time(14, 7, 9, 123400), "g", "de-DE", "14:07:09,1234"),
        (time(14, 7, 9), "G", None, "0:14:07:09.0000000"),
        (time(14, 7, 9, 500000), "hh'h'mm\\:ss\\.FFF", None, "14h07:09.5"),
        (datetime(2024, 3, 5, tzinfo=timezone(timedelta(hours=2))), "zzz", None, "+02:00"),
        (None, "N2", None, None),
    ],
)
def test_format(value: Any, fmt: str, culture: str | None, expected: str | None) -> None:
    assert format_value(value, fmt, culture) == expected


@pytest.mark.parametrize(
    ("args", "expected"),
    [((123.456,), "       123"), ((123.456, 8, 2), "  123.46"), ((-1.5, 5, 1), " -1.5"),
     ((123456.0, 3), "***"), ((1.0, 0), None), ((2.5,), "         3"),
     ((123.456, 5, 3), "123.5")],
)
def test_str(args: tuple, expected: str | None) -> None:
    assert str_function(*args) == expected


@pytest.mark.parametrize(
    ("value", "spec", "expected"),
    [
        (0.10000000149011612, "real", "0.1"),
        (4.0, "float", "4"),
        (3.14159, "float", "3.14159"),
        (1e20, "float", "1E+20"),
        (Decimal("12.5000"), "money", "12.5000"),
        (Decimal("1.50"), "decimal(5,2)", "1.50"),
        (datetime(2024, 3, 5, 1, 2, 3, 500000), "datetime2", "2024-03-05 01:02:03.5000000"),
        (datetime(2024, 3, 5, 1, 2, 3, 500000), "datetime2(2)", "2024-03-05 01:02:03.50"),
        (datetime(2024, 3, 5, 1, 2, 3, 3000), "datetime", "2024-03-05 01:02:03.003"),
        (datetime(2024, 3, 5, 1, 2), "smalldatetime", "2024-03-05 01:02:00.000"),
        (datetime(2024, 3, 5, 1, 2, tzinfo=UTC), "datetimeoffset",
         "2024-03-05 01:02:00.0000000 +00:00"),
        (time(1, 2, 3), "time", "01:02:03.0000000"),
        (date(2024, 3, 5), "date", "2024-03-05"),
        (datetime(2024, 3, 5, 1, 2, 3), None, "2024-03-05 01:02:03.000"),
        (b"\x01\xab", "varbinary(2)", "0x01AB"),
        (None, "int", "NULL"),
        (True, "bit", "1"),
    ],
)
def test_display_text(value: Any, spec: str | None, expected: str) -> None:
    from tsqlbroker.values.format_builtins import display_text

    assert display_text(value, spec) == expected
