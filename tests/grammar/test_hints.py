"""What a syntax error says was expected, in T-SQL words (golden files in ``hints/``).

Each ``hints/*.sql`` is one common mistake; the ``.out`` beside it is the whole error as the
tools print it, ``Expected one of:`` line included. Grammar-only: no store."""

from __future__ import annotations

from pathlib import Path

import pytest

from tsqlbroker.errors import ParseError
from tsqlbroker.grammar import parse
from tsqlbroker.grammar.loader import terminal_patterns
from tsqlbroker.grammar.parser import STATEMENT_HINT, display_word, expected_words

HERE = Path(__file__).resolve().parent / "hints"
SCRIPTS = sorted(HERE.glob("*.sql"))


def rendered_error(path: Path) -> str:
    with pytest.raises(ParseError) as info:
        parse(path.read_text(encoding="utf-8"))
    return info.value.render() + "\n"


@pytest.mark.parametrize("script", SCRIPTS, ids=[p.stem for p in SCRIPTS])
def test_hint(script: Path) -> None:
    assert rendered_error(script) == script.with_suffix(".out").read_text(encoding="utf-8")


def test_no_terminal_name_is_ever_shown() -> None:
    """Every terminal is shown as written (keywords, quoted punctuation) or as a kind of
    token; the grammar's own names (VARIABLE, NAME, WITH_CTE, $ACTION …) never."""
    words = expected_words(frozenset(terminal_patterns()))
    kinds = {"identifier", "@variable", "@@variable", "string", "number", "binary", "…",
             STATEMENT_HINT}
    every = [w for t in terminal_patterns() if (w := display_word(t))]
    grammar_names = {n for n, (kind, _v) in terminal_patterns().items() if kind == "re"}
    assert not grammar_names & set(every) and "$ACTION" not in every
    for word in every + words:
        assert (word in kinds or word.startswith("'")
                or word.replace(" ", "").replace("_", "").isalpha()), word


def test_long_lists_are_cut_and_keep_the_statement_hint() -> None:
    words = expected_words(frozenset(terminal_patterns()))
    assert len(words) <= 13 and words[-2:] == ["…", STATEMENT_HINT]
