"""The lean LALR driver accepts exactly what Lark's own parser accepts with the same grammar
(same table, same contextual lexers), on the listings and on mutations of them — except where
the driver deliberately reads a keyword as a name (``SELECT a output``: an implicit alias
spelled like a keyword, which LALR's merged lookaheads make Lark reject) or the "(" of
INSERT's query in parentheses as a plain one (``IF 1 = 1 (SELECT …)``, likewise)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from grammar_helpers import LISTINGS
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from lark.exceptions import LarkError

from tsqlbroker.errors import ParseError
from tsqlbroker.grammar import parse_batch, split_batches
from tsqlbroker.grammar.driver import Driver
from tsqlbroker.grammar.loader import get_parser
from tsqlbroker.grammar.scan import blank_comments, regions

_TEXTS = [p.read_text(encoding="utf-8") for p in sorted(Path(LISTINGS).glob("*.sql"))]
_WORDS = ["SELECT", "FROM", "(", ")", ",", ";", "'", "WITH", "@x", "END", "BEGIN", "RECEIVE",
          "SEND", "ON", "AS", "=", "status", "x", "1", "GO", "\n", "TOP", "WHERE", "."]


# Msg 103's evidence: a run of over 128 characters without a blank, quote or bracket end.
_LONG_NAME = re.compile(r"[\[\"][^\]\"]{129,}|[\w@#$]{129,}")


def _lark_accepts(text: str) -> bool:
    try:
        blanked = blank_comments(text, regions(text))
    except ParseError:
        return False
    try:
        get_parser().parse(blanked)
    except LarkError:
        return False
    return True


def _driver_accepts(text: str) -> bool | None:
    """True or False; None when the driver stopped at Msg 103 (an identifier over 128
    characters, e.g. a mutant's unclosed "[" running to the next "]"): like SQL Server's
    lexer it checks that limit before parsing, so whether the grammar would take the text
    is not known."""
    try:
        parse_batch(text)
    except ParseError as e:
        return None if e.number == 103 else False
    return True


def _driver_accepts_reading_keywords_as_names(text: str) -> tuple[bool | None, bool]:
    """(the driver accepts ``text``, it read some keyword as a name on the way)."""
    original = Driver._keyword_or_name
    renamed: list[str] = []

    def recording(self: Driver, stack: list[int], tok: Any) -> str:
        kind = original(self, stack, tok)
        if kind == "NAME":
            renamed.append(str(tok))
        return kind

    original_paren = Driver._insert_paren

    def recording_paren(self: Driver, stack: list[int]) -> str:
        kind = original_paren(self, stack)
        if kind != "_INSERT_LPAR":
            renamed.append("(")
        return kind

    Driver._keyword_or_name = recording  # type: ignore[method-assign]
    Driver._insert_paren = recording_paren  # type: ignore[method-assign]
    try:
        return _driver_accepts(text), bool(renamed)
    finally:
        Driver._keyword_or_name = original  # type: ignore[method-assign]
        Driver._insert_paren = original_paren  # type: ignore[method-assign]


def _agree(text: str) -> None:
    lark = _lark_accepts(text)
    driver, renamed = _driver_accepts_reading_keywords_as_names(text)
    if driver is None:
        assert _LONG_NAME.search(text), text
        return
    assert driver == lark or (driver and renamed), text


def test_listings_agree() -> None:
    for text in _TEXTS:
        for b in split_batches(text):
            _agree(b.text)


@st.composite
def _mutant(draw: st.DrawFn) -> str:
    text = draw(st.sampled_from(_TEXTS))
    for _ in range(draw(st.integers(1, 3))):
        pos = draw(st.integers(0, len(text)))
        if draw(st.booleans()):
            text = text[:pos] + " " + draw(st.sampled_from(_WORDS)) + " " + text[pos:]
        else:
            text = text[:pos] + text[pos + draw(st.integers(1, 12)):]
    return text


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_mutant())
def test_mutations_agree(text: str) -> None:
    for b in split_batches(text):
        _agree(b.text)


def test_parsing_from_several_threads_at_once() -> None:
    # Activation runs procedures on background threads: each thread has its own builder.
    from concurrent.futures import ThreadPoolExecutor

    texts = [b.text for t in _TEXTS for b in split_batches(t) if _driver_accepts(b.text)] * 3
    expected = [parse_batch(t) for t in texts]
    with ThreadPoolExecutor(max_workers=4) as pool:
        results = list(pool.map(parse_batch, texts))
    assert results == expected
    assert [[s.span for s in b.statements] for b in results] == \
        [[s.span for s in b.statements] for b in expected]
