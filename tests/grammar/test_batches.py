"""GO batch splitting and comments."""

from __future__ import annotations

import pytest

from tsqlbroker.errors import ParseError
from tsqlbroker.grammar import BatchText, ast, parse, parse_batch, split_batches


def test_go_splits_and_keeps_file_lines() -> None:
    text = "SELECT 1\nGO\n\nSELECT 2\nSELECT 3\ngo 3\nPRINT 'x'\n"
    assert split_batches(text) == [
        BatchText("SELECT 1", 1, 1),
        BatchText("\nSELECT 2\nSELECT 3", 3, 3),
        BatchText("PRINT 'x'\n", 7, 1),
    ]


@pytest.mark.parametrize("line", ["GO", "go", "  Go  ", "GO;", "GO -- done", "GO 2 -- twice",
                                  "\tGO\t"])
def test_go_line_forms(line: str) -> None:
    batches = split_batches(f"SELECT 1\n{line}\nSELECT 2")
    assert [b.text.strip() for b in batches] == ["SELECT 1", "SELECT 2"]


@pytest.mark.parametrize("text", [
    "SELECT 'a\nGO\nb'",
    "SELECT [a\nGO\nb]",
    'SELECT "a\nGO\nb"',
    "SELECT 1 /* comment\nGO\n*/",
    "SELECT 1 /* outer /* inner */\nGO\n still comment */",
    "SELECT 1 -- GO\n",
    "SELECT GO",
    "SELECT 1\nGOTO x",
    "SELECT 1\nGO GO",
])
def test_go_never_splits_inside_strings_names_comments(text: str) -> None:
    assert len(split_batches(text)) == 1


def test_empty_batches_are_dropped() -> None:
    text = "GO\n-- only a comment\nGO\n/* block */\nGO\n\n   \nGO\nSELECT 1\nGO\n"
    assert split_batches(text) == [BatchText("SELECT 1", 9, 1)]


def test_crlf_line_endings() -> None:
    batches = split_batches("SELECT 1\r\nGO\r\nSELECT 2\r\n")
    assert [b.start_line for b in batches] == [1, 3]
    script = parse("SELECT 1\r\nGO\r\nSELECT 2\r\n")
    assert len(script.batches) == 2


def test_parse_builds_script_with_repeat() -> None:
    script = parse("SELECT 1\nGO 5\nSELECT 2")
    assert [b.repeat for b in script.batches] == [5, 1]
    assert [b.start_line for b in script.batches] == [1, 3]
    second = script.batches[1].statements[0]
    assert second.span is not None and second.span.line == 3


def test_error_lines_in_later_batches_are_file_lines() -> None:
    text = "SELECT 1\nGO\n-- comment\n\nSELECT * FROM\nGO\n"
    with pytest.raises(ParseError) as info:
        parse(text)
    assert info.value.line == 5
    assert info.value.source_line == "SELECT * FROM"


def test_nested_comments_are_ignored_by_the_parser() -> None:
    batch = parse_batch("SELECT /* a /* b */ c */ 1 -- tail\n/**/PRINT 'x'")
    assert [type(s).__name__ for s in batch.statements] == ["SelectStmt", "Print"]
    assert isinstance(batch.statements[0], ast.SelectStmt)
    # sql keeps the statement's own text, comments inside it included
    assert batch.statements[0].sql == "SELECT /* a /* b */ c */ 1"


def test_comment_markers_inside_strings_are_text() -> None:
    stmt = parse_batch("SELECT '--not a comment /* nor this'").statements[0]
    assert isinstance(stmt, ast.SelectStmt) and isinstance(stmt.query, ast.Select)
    assert stmt.query.items[0].expr == ast.Literal(
        "string", "--not a comment /* nor this", "'--not a comment /* nor this'")


def test_unclosed_comment_is_msg_113() -> None:
    with pytest.raises(ParseError) as info:
        parse("SELECT 1\nGO\nSELECT 2 /* open\nGO\nSELECT 3")
    assert info.value.number == 113
    assert info.value.line == 3
    assert info.value.message == "Missing end comment mark '*/'."
