"""Syntax highlighting: Pygments' ``TransactSqlLexer`` plus the sqlcmd layer on top of it.

The T-SQL lexer marks a ``:setvar``/``:r``/``:queues`` line as an error token and knows
nothing of ``$(name)`` scripting variables; here both get tokens of their own, and
``GO [n]`` lines are a preprocessor keyword, as in SSMS.
"""

from __future__ import annotations

from typing import Any, ClassVar

from pygments.lexer import bygroups, inherit, words
from pygments.lexers.sql import TransactSqlLexer
from pygments.token import Comment, Keyword, Name, Number, Text

# Service Broker words Pygments' T-SQL keyword list lacks.
BROKER_KEYWORDS: tuple[str, ...] = (
    "activation", "broker", "cleanup", "contract", "conversation", "delay", "dialog", "empty",
    "enable_broker", "encryption", "get", "initiator", "lifetime", "max_queue_readers",
    "message", "move", "new_broker", "poison_message_handling", "procedure_name", "queue",
    "receive", "related_conversation", "related_conversation_group", "retention", "route",
    "send", "sent", "service", "status", "target", "timeout", "timer", "type", "valid_xml",
    "validation", "well_formed_xml", "xmlschema",
)


class TSqlBrokerLexer(TransactSqlLexer):
    """T-SQL with sqlcmd directives, ``$(var)`` references and ``GO`` lines."""

    name = "T-SQL (tsqlbroker)"
    aliases: ClassVar[list[str]] = ["tsqlbroker"]
    filenames: ClassVar[list[str]] = []

    tokens: ClassVar[dict[str, Any]] = {
        "root": [
            # A :command or sqlcmd directive alone on its line (at the start of the text or
            # after a newline: Pygments matches at the current position, so '^' needs MULTILINE).
            (r"(?m)^([ \t]*)(:[A-Za-z?]+)([^\n]*)",
             bygroups(Text.Whitespace, Comment.Preproc, Comment.Preproc)),
            (r"(?im)^([ \t]*)(go)(?:([ \t]+)(\d+))?([ \t]*)$",
             bygroups(Text.Whitespace, Comment.Preproc, Text.Whitespace, Number.Integer,
                      Text.Whitespace)),
            (r"\$\(\w+\)", Name.Variable.Magic),
            (words(BROKER_KEYWORDS, prefix=r"\b", suffix=r"\b"), Keyword),
            inherit,
        ],
    }
