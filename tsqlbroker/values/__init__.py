"""T-SQL types and values: pure functions over plain Python values (issue 15's values layer).

Types and their names (``types``), precedence, conversions (``convert``), dates, the text forms
of values, operators, the built-in functions by family and the xml type. This layer imports only
:mod:`tsqlbroker.errors`; the interpreter, the engine and the storage backends call it.
"""
