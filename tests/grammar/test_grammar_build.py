"""The grammar builds without conflicts and is built once per process."""

from __future__ import annotations

from tsqlbroker.grammar import loader


def test_grammar_has_no_conflicts_or_terminal_collisions() -> None:
    # strict=True turns every shift/reduce conflict and regex collision into an error.
    parser = loader.build(strict=True)
    assert parser.options.parser == "lalr"
    assert parser.options.lexer == "contextual"
    assert parser.options.propagate_positions


def test_parser_is_built_once() -> None:
    assert loader.get_parser() is loader.get_parser()


def test_grammar_is_split_into_fragments() -> None:
    text = loader.grammar_text()
    for rule in ("select_core", "receive_stmt", "create_queue", "proc_def", "cond"):
        assert f"\n{rule}:" in text or f"\n?{rule}:" in text
    assert "%import" not in text
