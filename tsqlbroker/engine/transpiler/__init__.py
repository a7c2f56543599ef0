"""The transpiler: T-SQL statement text → backend SQL, with sqlglot (issue 15 moves
``engine/transpile.py`` here as passes). Feature modules import :mod:`.interface` and
:mod:`.scope` only."""
