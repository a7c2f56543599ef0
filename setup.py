"""The build step pyproject.toml cannot say: the grammar's parse tables are derived once, at
build time, and installed with the package (``tsqlbroker/grammar/tables-<key>.bin``), so
that the first run after ``pip install`` does not spend seconds building them in Lark.

Everything else about the package is declared in pyproject.toml. An editable install writes
the tables into the source tree (git ignores them); once the grammar or its code changes they
no longer match, and the first run builds tables into the user's cache as before.
"""

from __future__ import annotations

import sys
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py


class BuildWithGrammarTables(build_py):
    """``build_py``, then the grammar tables written into the built package (into the
    source tree for an editable install, whose package is the source tree)."""

    def run(self) -> None:
        super().run()
        if getattr(self, "editable_mode", False):
            root = Path(__file__).resolve().parent
        else:
            root = Path(self.build_lib).resolve()
        sys.path.insert(0, str(root))
        try:
            from tsqlbroker.grammar.loader import ship_tables

            path = ship_tables(root / "tsqlbroker" / "grammar")
        finally:
            sys.path.remove(str(root))
        print(f"grammar tables: {path.relative_to(root)}")


setup(cmdclass={"build_py": BuildWithGrammarTables})
