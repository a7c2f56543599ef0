"""Highlighting tokens of the REPL's lexer.

Backend-free: the lexer only tokenises text."""

from __future__ import annotations

from pygments.token import Comment, Keyword, Name, String

from tsqlbroker.repl.lexer import TSqlBrokerLexer


def tokens(text: str) -> list[tuple[object, str]]:
    return [(t, v) for t, v in TSqlBrokerLexer().get_tokens(text) if v.strip()]


def test_go_lines_and_directives_are_preprocessor_tokens() -> None:
    got = tokens("SELECT 1\nGO 2\n:setvar db Trader\n")
    assert (Comment.Preproc, "GO") in got
    assert (Comment.Preproc, ":setvar") in got
    assert not any(t is Keyword and v == "GO" for t, v in got)


def test_scripting_variables_and_broker_keywords() -> None:
    got = tokens("RECEIVE TOP(1) * FROM $(queue); SEND ON CONVERSATION @h")
    assert (Name.Variable.Magic, "$(queue)") in got
    for word in ("RECEIVE", "SEND", "CONVERSATION"):
        assert (Keyword, word) in got


def test_directive_text_inside_a_string_stays_a_string() -> None:
    got = tokens("PRINT 'a\n:setvar x 1\nGO'")
    assert got[1][0] in String and ":setvar" in got[1][1]
