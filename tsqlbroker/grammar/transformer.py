"""The Lark Transformer that turns a batch's parse tree into :mod:`ast` nodes.

Run after parsing (a transformer passed to ``Lark(...)`` would get no positions). Statement
methods are wrapped so that their node gets a ``span`` in file lines and, for statements
handed to the storage layer, ``sql`` (or ``source``) — the statement's exact source text.
"""

from __future__ import annotations

from typing import Any, Callable

from lark import Transformer, v_args
from lark.tree import Meta

from tsqlbroker.errors import Span
from tsqlbroker.grammar import ast
from tsqlbroker.grammar.build_broker import BrokerBuilder
from tsqlbroker.grammar.build_expr import ExprBuilder
from tsqlbroker.grammar.build_stmt import StmtBuilder

# Rules (and aliases) whose result is a statement node.
STATEMENT_RULES = """
select_stmt insert_stmt update_stmt delete_stmt merge_stmt truncate_stmt create_table alter_table
drop_table create_index drop_index_on drop_index_dotted view_def drop_view proc_def
drop_procedure func_def drop_function use_stmt create_database drop_database alter_database
if_stmt while_stmt block try_catch break_stmt continue_stmt return_stmt goto_stmt label_stmt
declare_stmt declare_table declare_cursor set_var set_cursor set_option set_isolation
set_rowcount set_identity_insert begin_tran begin_distributed commit_tran rollback_tran
save_tran throw_stmt raiserror_stmt print_stmt exec_stmt exec_dynamic waitfor_delay
waitfor_time open_cursor fetch_cursor fetch_plain close_cursor deallocate_cursor
create_message_type alter_message_type drop_message_type create_xml_schema
create_xmlschema_beta alter_xml_schema drop_xml_schema create_contract drop_contract
create_queue alter_queue alter_queue_rebuild alter_queue_reorganize alter_queue_move drop_queue
create_service alter_service drop_service create_route alter_route drop_route create_rsb
alter_rsb drop_rsb create_endpoint alter_endpoint drop_endpoint create_priority alter_priority
drop_priority alter_authorization begin_dialog send_stmt receive_stmt get_group waitfor_stmt
end_conversation begin_timer move_conversation
""".split()

# Rules that need their own source text (not statements).
TEXT_RULES = ("option_clause", "frame", "view_body", "cursor_query")


def _with_span(fn: Callable[..., Any]) -> Callable[..., Any]:
    def wrapper(self: "AstBuilder", meta: Meta, *children: Any) -> Any:
        node = fn(self, *children)
        if not meta.empty:
            start, end = meta.start_pos, meta.end_pos
            off = self.line_offset
            span = Span(meta.line + off, meta.column, meta.end_line + off, meta.end_column,
                        start, end)
            setattr_ = object.__setattr__
            setattr_(node, "span", span)
            cls = type(node)
            if "sql" in cls.__dataclass_fields__:
                setattr_(node, "sql", self.text[start:end])
            elif "source" in cls.__dataclass_fields__:
                setattr_(node, "source", self.text[start:end])
        return node

    wrapper.__name__ = fn.__name__
    return v_args(meta=True, inline=True)(wrapper)


class AstBuilder(ExprBuilder, StmtBuilder, BrokerBuilder, Transformer):  # type: ignore[misc]
    """Builds the AST of one batch. ``text`` is the batch source (comments intact) and
    ``line_offset`` turns batch lines into file lines."""

    def __init__(self, text: str, line_offset: int = 0) -> None:
        super().__init__(visit_tokens=False)
        self.text = text
        self.line_offset = line_offset

    @v_args(meta=True, inline=True)
    def option_clause(self, meta: Meta, *_items: Any) -> str:
        inner = self.text[meta.start_pos:meta.end_pos]
        return inner[inner.index("(") + 1:inner.rindex(")")].strip()

    @v_args(meta=True, inline=True)
    def frame(self, meta: Meta, *_items: Any) -> str:
        return " ".join(self.text[meta.start_pos:meta.end_pos].split()).upper()

    @v_args(meta=True, inline=True)
    def view_body(self, meta: Meta, with_: Any, q: Any, check: Any) -> ast.SelectStmt:
        node = StmtBuilder.view_body(self, with_, q, check)
        object.__setattr__(node, "sql", self.text[meta.start_pos:meta.end_pos])
        return node

    @v_args(meta=True, inline=True)
    def cursor_query(self, meta: Meta, with_: Any, q: Any) -> ast.SelectStmt:
        node = StmtBuilder.select_stmt(self, with_, q, None)
        object.__setattr__(node, "sql", self.text[meta.start_pos:meta.end_pos])
        return node


# Lark applies a class-level v_args only to methods defined on the class itself, so the
# mixins' methods are copied in first.
for _base in (ExprBuilder, StmtBuilder, BrokerBuilder):
    for _name, _fn in vars(_base).items():
        if not _name.startswith("_") and callable(_fn) and _name not in AstBuilder.__dict__:
            setattr(AstBuilder, _name, _fn)

for _name in STATEMENT_RULES:
    setattr(AstBuilder, _name, _with_span(getattr(AstBuilder, _name)))

# Every remaining public method takes its children inline.
v_args(inline=True)(AstBuilder)
