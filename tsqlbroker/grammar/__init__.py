"""tsqlbroker.grammar: the T-SQL + Service Broker grammar, its AST and the parsing API.

* ``rules/*.lark`` — one Lark LALR grammar in fragments per statement family, joined by
  :mod:`loader` (which also builds the parser once per process, cached in the temp dir);
* :mod:`scan` — nested comments and the regions inside which ``GO`` never splits;
* :mod:`driver` — a lean LALR loop over the Lark tables and contextual lexers;
* :mod:`transformer` with ``build_expr`` / ``build_stmt`` / ``build_broker`` — the AST builder;
* :mod:`parser` — ``split_batches``, ``parse_batch``, ``parse`` and SQL Server's syntax errors;
* :mod:`check` — ``tsqlbroker parse FILE… [--ast]``;
* :mod:`ast` — the node classes (the contract with the interpreter).
"""

from tsqlbroker.codecache import cached_dataclass_code

# The ~140 AST node classes: their generated methods come from a code cache at start-up.
with cached_dataclass_code("grammar-ast"):
    from tsqlbroker.grammar import ast  # noqa: F401

from tsqlbroker.grammar.parser import BatchText, parse, parse_batch, split_batches

__all__ = ["BatchText", "parse", "parse_batch", "split_batches"]
