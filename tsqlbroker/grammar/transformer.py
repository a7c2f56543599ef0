"""The AST builder: one method per grammar rule, called by :mod:`driver` at each reduction.

Methods receive the rule's children inline (keyword tokens already dropped, ``[optional]``
parts as ``None``). Statement methods are wrapped so that their node gets a ``span`` in file
lines and, for statements handed to the storage layer, ``sql`` (or ``source``) — the
statement's exact source text; the driver sets :attr:`AstBuilder.span` (start and end offsets)
before calling them.
"""

from __future__ import annotations

import bisect
from collections.abc import Callable
from typing import Any

from lark import Token

from tsqlbroker.errors import ParseError, Span, message_text
from tsqlbroker.grammar import ast
from tsqlbroker.grammar.build_broker import BrokerBuilder
from tsqlbroker.grammar.build_expr import ExprBuilder
from tsqlbroker.grammar.build_security import SecurityBuilder
from tsqlbroker.grammar.build_stmt import StmtBuilder
from tsqlbroker.grammar.loader import SQL_SERVER_RESERVED

# Rules (and aliases) whose result is a statement node.
STATEMENT_RULES = frozenset("""
select_stmt insert_stmt insert_paren update_stmt delete_stmt merge_stmt truncate_stmt create_table alter_table
drop_table create_index drop_index_on drop_index_dotted view_def drop_view proc_def
drop_procedure func_def inline_func_def table_func_def drop_function create_table_type drop_type use_stmt create_database drop_database alter_database
create_schema alter_schema drop_schema create_sequence alter_sequence drop_sequence create_alias_type create_synonym drop_synonym trigger_def drop_trigger enable_trigger
disable_trigger alter_table_enable alter_table_disable
if_stmt while_stmt block try_catch break_stmt continue_stmt return_stmt goto_stmt label_stmt
declare_stmt declare_table declare_cursor set_var set_method set_cursor set_option set_isolation
set_rowcount set_identity_insert set_statistics begin_tran begin_distributed commit_tran rollback_tran
save_tran throw_stmt raiserror_stmt print_stmt kill_stmt exec_stmt exec_dynamic waitfor_delay
waitfor_time bare_exec open_cursor fetch_cursor fetch_plain close_cursor deallocate_cursor
create_message_type alter_message_type drop_message_type create_xml_schema
create_xmlschema_beta alter_xml_schema drop_xml_schema create_contract drop_contract
create_queue alter_queue alter_queue_rebuild alter_queue_reorganize alter_queue_move drop_queue
create_service alter_service drop_service create_route alter_route drop_route create_rsb
alter_rsb drop_rsb create_endpoint alter_endpoint drop_endpoint create_priority alter_priority
drop_priority alter_authorization begin_dialog send_stmt receive_stmt get_group waitfor_stmt
end_conversation begin_timer move_conversation
alter_database_files create_event_notification drop_event_notification
grant_stmt revoke_stmt deny_stmt create_user alter_user drop_user create_login alter_login
drop_login create_certificate alter_certificate drop_certificate backup_certificate
create_master_key alter_master_key drop_master_key open_master_key close_master_key execute_as_stmt
revert_stmt create_role alter_role drop_role create_server_role alter_server_role drop_server_role
create_approle alter_approle
drop_approle
""".split())  # noqa: SIM905 — one name per word reads best

# Rules that slice their own source text.
TEXT_RULES = frozenset({"option_clause", "frame", "view_body", "view_body_paren", "view_body_with",
                        "cursor_query", "for_clause", "select_stmt_paren", "in_set_query",
                        "output_clause"})

SPAN_RULES = STATEMENT_RULES | TEXT_RULES


def _with_span(fn: Callable[..., Any]) -> Callable[..., Any]:
    def wrapper(self: AstBuilder, *children: Any) -> Any:
        node = fn(self, *children)
        start, end = self.span
        if start is not None:
            setattr_ = object.__setattr__
            setattr_(node, "span", self._make_span(start, end))
            fields = type(node).__dataclass_fields__
            if "sql" in fields:
                setattr_(node, "sql", self.text[start:end])
            elif "source" in fields:
                setattr_(node, "source", self.text[start:end])
        return node

    wrapper.__name__ = fn.__name__
    wrapper.__doc__ = fn.__doc__
    return wrapper


class AstBuilder(ExprBuilder, StmtBuilder, BrokerBuilder, SecurityBuilder):
    """Builds the AST of one batch at a time. ``text`` is the batch source (comments intact),
    ``line_offset`` turns batch lines into file lines, ``span`` is set by the driver."""

    def __init__(self) -> None:
        self.text = ""
        self.line_offset = 0
        self.span: tuple[int | None, int | None] = (None, None)
        self._line_starts: list[int] = [0]

    def reset(self, text: str, line_offset: int) -> None:
        """Prepare for parsing ``text`` whose first line is file line ``line_offset + 1``."""
        self.text = text
        self.line_offset = line_offset
        self.span = (None, None)
        starts = [0]
        find = text.find
        i = find("\n")
        while i >= 0:
            starts.append(i + 1)
            i = find("\n", i + 1)
        self._line_starts = starts

    def _make_span(self, start: int, end: int) -> Span:
        """The Span of text[start:end]: file lines, 1-based columns, batch offsets."""
        starts = self._line_starts
        line = bisect.bisect_right(starts, start) - 1
        end_line = bisect.bisect_right(starts, end, line) - 1
        off = self.line_offset
        return Span(line + 1 + off, start - starts[line] + 1, end_line + 1 + off,
                    end - starts[end_line] + 1, start, end)

    def syntax_error(self, tok: Token) -> ParseError:
        """Msg 102 at ``tok`` (156 for a reserved keyword): for a token the grammar takes but
        SQL Server's does not (a value out of an option's range, AS in a call not PARSE's)."""
        span = self._make_span(tok.start_pos or 0, tok.end_pos or 0)
        starts = self._line_starts
        line_start = starts[span.line - 1 - self.line_offset]
        end = self.text.find("\n", line_start)
        number = 156 if str(tok).upper() in SQL_SERVER_RESERVED else 102
        return ParseError(message_text(number, str(tok)), span.line, span.column,
                          self.text[line_start:end if end >= 0 else len(self.text)],
                          number=number)

    def _slice(self) -> str:
        start, end = self.span
        return self.text[start:end] if start is not None else ""

    def option_clause(self, *_items: Any) -> str:
        inner = self._slice()
        return inner[inner.index("(") + 1:inner.rindex(")")].strip()

    def for_clause(self, *_items: Any) -> str:
        """The clause after FOR, blanks normalised: "XML PATH('x'), TYPE"."""
        text = self._slice()
        return " ".join(text[text.upper().index("FOR") + 3:].split())

    def frame(self, *_items: Any) -> str:
        return " ".join(self._slice().split()).upper()

    def view_body(self, with_: Any, q: Any, check: Any) -> ast.SelectStmt:
        node = StmtBuilder.view_body(self, with_, q, check)
        object.__setattr__(node, "sql", self._slice())
        return node

    def view_body_paren(self, q: Any, check: Any) -> ast.SelectStmt:
        node = StmtBuilder.view_body_paren(self, q, check)
        object.__setattr__(node, "sql", _unwrapped(self._slice()))
        return node

    def view_body_with(self, with_: Any, q: Any, check: Any) -> ast.SelectStmt:
        node = StmtBuilder.view_body_with(self, with_, q, check)
        object.__setattr__(node, "sql", _unwrapped(self._slice()))
        return node

    def select_stmt_paren(self, with_: Any, q: Any, order: Any, offset: Any, option: Any
                          ) -> ast.SelectStmt:
        node = StmtBuilder.select_stmt_paren(self, with_, q, order, offset, option)
        start, end = self.span
        if start is not None:
            # A statement of its own (span, source text) that slices its text itself.
            text = self.text[start:end]
            bare = isinstance(q, ast.Select) and q.top is None and not q.order_by
            object.__setattr__(node, "span", self._make_span(start, end))
            object.__setattr__(node, "sql", text if with_ else _statement_query(text, bare))
        return node

    def output_clause(self, items: Any, into: Any, cols: Any) -> ast.OutputClause:
        """Msg 10706 for a subquery anywhere in the OUTPUT list (a UDF's argument too), as
        SQL Server's compiler refuses it: the whole batch does not run."""
        if any(_subquery_in(item) for item in items):
            start, _end = self.span
            span = self._make_span(start or 0, start or 0)
            line_start = self._line_starts[span.line - 1 - self.line_offset]
            end = self.text.find("\n", line_start)
            raise ParseError(message_text(10706), span.line, span.column,
                             self.text[line_start:end if end >= 0 else len(self.text)],
                             number=10706)
        return StmtBuilder.output_clause(self, items, into, cols)

    def in_set_query(self, q: Any) -> Any:
        """IN ((SELECT …) UNION …): the set operation keeps its span (the subquery's text,
        which the interpreter cannot find as the next "(SELECT")."""
        start, end = self.span
        if start is not None:
            object.__setattr__(q, "span", self._make_span(start, end))
        return q

    def cursor_query(self, with_: Any, q: Any) -> ast.SelectStmt:
        node = StmtBuilder.select_stmt(self, with_, q, None)
        object.__setattr__(node, "sql", self._slice())
        return node


def _closing(text: str, at: int) -> int | None:
    """Where the parenthesis opened at ``text[at]`` closes (quotes and brackets skipped)."""
    depth, i, n = 0, at, len(text)
    while i < n:
        ch = text[i]
        if ch in "'\"[":
            end = text.find("]" if ch == "[" else ch, i + 1)
            if end < 0:
                return None
            i = end + 1
            continue
        depth += ch == "("
        depth -= ch == ")"
        if depth == 0:
            return i
        i += 1
    return None


def _statement_query(text: str, bare: bool) -> str:
    """A statement that begins with "(" as the SQL generator takes it: doubled parentheses
    around the first operand reduced to one pair, and "(SELECT …) [OPTION (…)]" without its
    parentheses (alone it would be a subquery), also before ORDER BY / OFFSET when the query
    in them is ``bare`` (no TOP or ORDER BY of its own). Parentheses before a set operator
    stay: they bound the operand's own TOP / ORDER BY."""
    text = text.strip()
    while text.startswith("("):
        close = _closing(text, 0)
        if close is None:
            break
        inner, rest = text[1:close].strip(), text[close + 1:].strip()
        doubled = inner.startswith("(") and _closing(inner, 0) == len(inner) - 1
        tail = rest[:6].upper()
        if not (doubled or not rest or tail == "OPTION"
                or (bare and tail[:5] in ("ORDER", "OFFSE"))):
            break
        text = f"{inner} {rest}".strip()
    return text


def _unwrapped(text: str) -> str:
    """``(SELECT …)`` without the parentheses around the whole text (if they are)."""
    text = text.strip()
    while text.startswith("(") and text.endswith(")"):
        depth = 0
        for i, ch in enumerate(text):  # a quote or comment holding a parenthesis is rare here
            depth += ch == "("
            depth -= ch == ")"
            if depth == 0 and i < len(text) - 1:
                return text
        text = text[1:-1].strip()
    return text


def _subquery_in(node: Any) -> bool:
    """Whether a subquery (scalar, EXISTS, IN) is anywhere in the AST ``node``."""
    if isinstance(node, (ast.Subquery, ast.Exists, ast.InSubquery)):
        return True
    if isinstance(node, (list, tuple)):
        return any(_subquery_in(n) for n in node)
    fields = getattr(type(node), "__dataclass_fields__", None)
    return fields is not None and any(
        _subquery_in(getattr(node, name)) for name in fields if name != "span")


for _name in STATEMENT_RULES:
    setattr(AstBuilder, _name, _with_span(getattr(AstBuilder, _name)))
