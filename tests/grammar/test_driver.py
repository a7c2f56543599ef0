"""The lean LALR driver accepts exactly what Lark's own parser accepts with the same grammar
(same table, same contextual lexers), on the listings and on mutations of them."""

from __future__ import annotations

from pathlib import Path

from grammar_helpers import LISTINGS
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from lark.exceptions import LarkError

from tsqlbroker.errors import ParseError
from tsqlbroker.grammar import parse_batch, split_batches
from tsqlbroker.grammar.loader import get_parser
from tsqlbroker.grammar.scan import blank_comments, regions

_TEXTS = [p.read_text(encoding="utf-8") for p in sorted(Path(LISTINGS).glob("*.sql"))]
_WORDS = ["SELECT", "FROM", "(", ")", ",", ";", "'", "WITH", "@x", "END", "BEGIN", "RECEIVE",
          "SEND", "ON", "AS", "=", "status", "x", "1", "GO", "\n", "TOP", "WHERE", "."]


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


def _driver_accepts(text: str) -> bool:
    try:
        parse_batch(text)
    except ParseError:
        return False
    return True


def test_listings_agree() -> None:
    for text in _TEXTS:
        for b in split_batches(text):
            assert _driver_accepts(b.text) == _lark_accepts(b.text)


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
        assert _driver_accepts(b.text) == _lark_accepts(b.text)


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
