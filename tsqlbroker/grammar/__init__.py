"""tsqlbroker.grammar: the T-SQL + Service Broker grammar, its AST and the parsing API."""

from tsqlbroker.grammar.parser import BatchText, parse, parse_batch, split_batches

__all__ = ["BatchText", "parse", "parse_batch", "split_batches"]
