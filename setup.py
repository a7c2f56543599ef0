"""The build step pyproject.toml cannot say: the grammar's parse tables are derived once, at
build time, and installed with the package (``tsqlbroker/grammar/tables-<key>.bin``), so
that the first run after ``pip install`` does not spend seconds building them in Lark.

Everything else about the package is declared in pyproject.toml. An editable install builds
nothing here: its first run builds the tables into the user's cache as before.
"""

from __future__ import annotations

import sys
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py


class BuildWithGrammarTables(build_py):
    """``build_py``, then the grammar tables written into the built package."""

    def run(self) -> None:
        super().run()
        if getattr(self, "editable_mode", False):
            return
        built = Path(self.build_lib).resolve()
        sys.path.insert(0, str(built))
        try:
            from tsqlbroker.grammar.loader import ship_tables

            path = ship_tables(built / "tsqlbroker" / "grammar")
        finally:
            sys.path.remove(str(built))
        print(f"grammar tables: {path.relative_to(built)}")


setup(cmdclass={"build_py": BuildWithGrammarTables})
