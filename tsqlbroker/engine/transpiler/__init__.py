"""The transpiler: one T-SQL statement → backend SQL, with sqlglot, as passes in the order of
:data:`.binder.PASSES` (sqlglot-optimizer style):

1. ``parsing`` — T-SQL text → sqlglot tree, cached per text (private copies);
2. :mod:`.resolve` — names: every table reference → a :class:`~.scope.Source`;
3. :mod:`.annotate` — types of expressions and of the query's output;
4. :mod:`.rewrite` — the tree for the backend (bound parameters, never spliced text);
5. :mod:`.generate` — backend SQL, cached per text and resolution.

:class:`~.binder.Binder` is the front: one statement's state (what the passes and the feature
modules share, through :class:`~.interface.BindContext`) and the methods the executor calls.
Feature modules import :mod:`.interface` and :mod:`.scope` only, never the passes; this file
imports nothing, so importing them does not load the passes (which import the feature
modules: loading them here made the import order matter)."""
