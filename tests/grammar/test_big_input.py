"""Big input: memory bounded by a small multiple of the text, errors that do not repeat it,
and GO splitting that counts lines once (the speed figures are in scripts/bench/input.py)."""

from __future__ import annotations

import tracemalloc
from collections.abc import Callable
from typing import Any

import pytest

from tsqlbroker.errors import MAX_MESSAGE, ParseError
from tsqlbroker.grammar import BatchText, parse, parse_batch, split_batches

SIZE = 10_000_000


def peak_memory(fn: Callable[[], Any]) -> int:
    """The peak of memory allocated while ``fn`` runs (its result is kept until the end)."""
    tracemalloc.start()
    try:
        fn()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


@pytest.mark.parametrize("quote", ["'", "N'"])
def test_a_10mb_literal_parses_in_a_small_multiple_of_its_size(quote: str) -> None:
    body = "x" * SIZE + "''y"  # an escaped quote inside, too
    text = f"PRINT 1\nGO\nSELECT {quote}{body}' AS v;\nGO\n"
    parse(f"SELECT {quote}a' AS v")  # the grammar's tables load outside the measure
    # A regex with a plain (?:[^']|'')* keeps a backtracking entry per character: 1 GB here.
    # Now: the batch's text, the token, the value, the statement's text and a slice.
    assert peak_memory(lambda: parse(text)) < 8 * SIZE


@pytest.mark.parametrize("quote", ["[", '"'])
def test_a_10mb_quoted_name_is_msg_103_in_bounded_memory(quote: str) -> None:
    close = "]" if quote == "[" else '"'
    text = f"SELECT 1 AS {quote}{'x' * SIZE}{close * 2}{close};"

    def check() -> None:
        with pytest.raises(ParseError) as info:
            parse(text)
        assert info.value.number == 103
        assert len(info.value.render()) < 1000  # the name is cut at 128 characters

    assert peak_memory(check) < 4 * SIZE


def test_a_10mb_unclosed_literal_is_not_repeated_in_its_error() -> None:
    text = "PRINT 'abc" + "y" * SIZE
    with pytest.raises(ParseError) as info:
        parse_batch(text)
    err = info.value
    assert err.number == 105
    assert len(err.message) == MAX_MESSAGE
    assert err.message.startswith("Unclosed quotation mark after the character string 'abcyy")
    assert err.message.endswith("...")
    rendered = err.render()
    assert len(rendered) < MAX_MESSAGE + 400
    # The source line is shown around the caret, and the caret still points at the quote.
    source, caret = rendered.splitlines()[2:4]
    assert source[caret.index("^")] == "'"


def test_a_long_line_is_shown_around_the_error() -> None:
    text = "SELECT " + " + ".join(["1"] * 2000) + " + + FROM t"
    with pytest.raises(ParseError) as info:
        parse_batch(text)
    source, caret = info.value.render().splitlines()[2:4]
    assert source.startswith("  ...") and len(source) < 200
    assert source[caret.index("^"):].startswith("FROM")


def test_many_batches_keep_their_file_lines() -> None:
    text = "".join(f"PRINT {i}\r\nGO {1 + i % 3}\r\n/* c\r\nGO\r\n*/\r\n" for i in range(2000))
    batches = split_batches(text)
    assert len(batches) == 2000  # the comment after the last GO is no batch
    assert batches[0] == BatchText("PRINT 0", 1, 1)
    assert batches[1] == BatchText("/* c\r\nGO\r\n*/\r\nPRINT 1", 3, 2)
    assert batches[-1] == BatchText("/* c\r\nGO\r\n*/\r\nPRINT 1999", 9993, 1 + 1999 % 3)
    lines = text.split("\r\n")
    for b in batches:
        assert lines[b.start_line - 1] == b.text.split("\r\n")[0]
