"""Syntax errors as SQL Server reports them, and no input ever escaping as a traceback."""

from __future__ import annotations

from pathlib import Path

import pytest
from grammar_helpers import LISTINGS
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tsqlbroker.errors import ParseError
from tsqlbroker.grammar import parse, parse_batch, split_batches


def error(sql: str) -> ParseError:
    with pytest.raises(ParseError) as info:
        parse_batch(sql)
    return info.value


@pytest.mark.parametrize("sql,number,message,line,column", [
    ("SELECT FROM t", 156, "Incorrect syntax near the keyword 'FROM'.", 1, 8),
    ("SELECT * FROM t\nWHERE", 102, "Incorrect syntax near 'WHERE'.", 2, 1),
    ("BEGIN\n  PRINT 1\nEND\nIF 1 = 1 BEGIN\n  PRINT 2", 102, "Incorrect syntax near '2'.",
     5, 9),
    ("SELECT * FROM t WHERE a = 1 AND", 102, "Incorrect syntax near 'AND'.", 1, 29),
    ("SELECT * FROM t where a = = 1", 102, "Incorrect syntax near '='.", 1, 27),
    ("select 1 +", 102, "Incorrect syntax near '+'.", 1, 10),
    ("SELECT 'abc", 105, "Unclosed quotation mark after the character string 'abc'.", 1, 8),
    ("SELECT N'abc\ndef", 105,
     "Unclosed quotation mark after the character string 'abc\ndef'.", 1, 8),
    ("SELECT [abc", 105, "Unclosed quotation mark after the character string 'abc'.", 1, 8),
    ("IF 1 = 1", 102, "Incorrect syntax near '1'.", 1, 8),
    ("SELECT 1 ELSE", 156, "Incorrect syntax near the keyword 'ELSE'.", 1, 10),
    ("SEND ON CONVERSATION", 102, "Incorrect syntax near 'CONVERSATION'.", 1, 9),
    ("SELECT a FROM WHERE x = 1", 156, "Incorrect syntax near the keyword 'WHERE'.", 1, 15),
    ("PRINT 1 CREATE PROCEDURE p AS SELECT 1", 111,
     "'CREATE/ALTER PROCEDURE' must be the first statement in a query batch.", 1, 16),
    ("PRINT 1\nCREATE VIEW v AS SELECT 1", 111,
     "'CREATE VIEW' must be the first statement in a query batch.", 2, 8),
    ("SELECT 1 ^^ 2", 102, "Incorrect syntax near '^'.", 1, 11),
    ("SELECT 1 ?", 102, "Incorrect syntax near '?'.", 1, 10),
])
def test_error_number_text_and_position(sql: str, number: int, message: str, line: int,
                                        column: int) -> None:
    err = error(sql)
    assert (err.number, err.message, err.line, err.column) == (number, message, line, column)
    assert err.severity == 15
    assert err.source_line == sql.splitlines()[line - 1]


def test_render_shows_caret_and_expected() -> None:
    err = error("SELECT a FROM t WHERE a = = 1")
    text = err.render()
    assert text.splitlines()[:4] == [
        "Msg 102, Level 15, State 1, Line 1",
        "Incorrect syntax near '='.",
        "  SELECT a FROM t WHERE a = = 1",
        "                            ^",
    ]
    assert "Expected one of:" in text and err.expected


def test_line_offset_of_batch() -> None:
    err = error_at("SELECT 1\nSELECT FROM", start_line=20)
    assert (err.line, err.source_line) == (21, "SELECT FROM")


def error_at(sql: str, start_line: int) -> ParseError:
    with pytest.raises(ParseError) as info:
        parse_batch(sql, start_line)
    return info.value


def test_deep_nesting_is_a_parse_error() -> None:
    assert parse_batch("SELECT " + "(" * 200 + "1" + ")" * 200).statements
    for deep in ("(" * 5000 + "1" + ")" * 5000, "-(" * 5000 + "1" + ")" * 5000):
        err = error("SELECT " + deep)
        assert err.number == 191
        assert err.message.startswith("Some part of your SQL statement is nested too deeply.")


# --- no input escapes as anything but ParseError ---------------------------------------------------
_LISTING_TEXTS = [p.read_text(encoding="utf-8") for p in sorted(Path(LISTINGS).glob("*.sql"))]
_TOKENS = ["SELECT", "FROM", "WHERE", "(", ")", ",", ";", "'", "[", "]", '"', "/*", "*/", "--",
           "\n", "GO", "BEGIN", "END", "RECEIVE", "SEND", "WITH", "@x", "@@", "0x", "N'", "$",
           "::", ":", ".", "..", "=", "+=", "CASE", "WHEN", "\x00", "\ufeff", "1e", "#"]


def _no_traceback(text: str) -> None:
    try:
        parse(text)
    except ParseError:
        pass
    for b in split_batches(text):
        try:
            parse_batch(b.text, b.start_line)
        except ParseError:
            pass


@st.composite
def mutated_listing(draw: st.DrawFn) -> str:
    text = draw(st.sampled_from(_LISTING_TEXTS))
    for _ in range(draw(st.integers(1, 4))):
        pos = draw(st.integers(0, len(text)))
        kind = draw(st.sampled_from(["insert", "delete", "replace"]))
        if kind == "insert":
            text = text[:pos] + draw(st.sampled_from(_TOKENS)) + text[pos:]
        elif kind == "delete":
            text = text[:pos] + text[pos + draw(st.integers(1, 20)):]
        else:
            text = text[:pos] + draw(st.text(max_size=5)) + text[pos + 5:]
    return text


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(mutated_listing())
def test_mutated_listings_never_raise_anything_but_parse_error(text: str) -> None:
    _no_traceback(text)


@settings(max_examples=150, deadline=None)
@given(st.one_of(st.text(max_size=200),
                 st.lists(st.sampled_from(_TOKENS), max_size=40).map(" ".join),
                 st.binary(max_size=100).map(lambda b: b.decode("latin-1"))))
def test_random_text_never_raises_anything_but_parse_error(text: str) -> None:
    _no_traceback(text)


def test_expected_tokens_are_shown_as_written() -> None:
    assert error("SEND ON CONVERSATION @h MESSAGE").expected == ["TYPE"]
    expected = error("CREATE QUEUE q WITH").expected
    assert expected == ["ACTIVATION", "POISON_MESSAGE_HANDLING", "RETENTION", "STATUS"]
    assert "'('" in error("SELECT a FROM t WHERE a = = 1").expected


def test_only_reserved_words_are_the_keyword() -> None:
    assert error("SELECT 1 ELSE").number == 156
    unreserved = error("CREATE QUEUE q WITH STATUS = ON STATUS")
    assert (unreserved.number, unreserved.message) == (102, "Incorrect syntax near 'STATUS'.")
