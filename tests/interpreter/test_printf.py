"""RAISERROR's printf formatting (the examples of the RAISERROR documentation)."""

from __future__ import annotations

import pytest

from tsqlbroker.errors import TSqlError
from tsqlbroker.values import types as T
from tsqlbroker.values.message_format import format_raiserror

S = T.nvarchar(10)


@pytest.mark.parametrize("template,args,expected", [
    ("<<%7.3s>>", [("abcde", S)], "<<    abc>>"),
    ("<<%*.*s>>", [(7, T.INT), (3, T.INT), ("abcde", S)], "<<    abc>>"),
    ("%d%%", [(50, T.INT)], "50%"),
    ("[%-6d]", [(12, T.INT)], "[12    ]"),
    ("[%06d]", [(-12, T.INT)], "[-00012]"),
    ("[%#X]", [(255, T.INT)], "[0XFF]"),
    ("[%#o]", [(8, T.INT)], "[010]"),
    ("[%x]", [(-1, T.INT)], "[ffffffff]"),
    ("[% d]", [(3, T.INT)], "[ 3]"),
    ("%s and %s", [("one", S)], "one and (null)"),
    ("%ld %I64d %hd", [(1, T.INT), (2, T.INT), (3, T.SMALLINT)], "1 2 3"),
])
def test_format(template: str, args: list, expected: str) -> None:
    assert format_raiserror(template, args) == expected


def test_type_mismatch_is_msg_2786() -> None:
    with pytest.raises(TSqlError) as exc:
        format_raiserror("%d", [("abc", S)])
    assert exc.value.number == 2786
