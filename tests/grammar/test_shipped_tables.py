"""Grammar tables built at install time (``setup.py``'s ``build_py`` calls
``loader.ship_tables``): an installed package's first run reads them instead of deriving its
own in Lark, and tables that are missing, stale or unreadable change nothing but the time."""

from __future__ import annotations

from pathlib import Path

import lark
import pytest

from tsqlbroker.grammar import loader
from tsqlbroker.grammar import parse_tables as cache


@pytest.fixture
def package(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A package directory the loader looks in for shipped tables, and an empty user cache."""
    pkg = tmp_path / "grammar"
    pkg.mkdir()
    real = cache.shipped_path
    monkeypatch.setattr(cache, "shipped_path", lambda key, directory=None: real(key, directory
                                                                                or pkg))
    monkeypatch.setattr(loader, "_driver", None)
    return pkg


def test_shipped_tables_are_what_the_driver_uses(package: Path, tmp_path: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    path = loader.ship_tables(package)          # from this process's cache: no Lark build
    key = cache.cache_key(loader.grammar_text(), lark.__version__)
    assert path == package / f"tables-{key}.bin"
    user = tmp_path / "user-cache"
    monkeypatch.setenv(cache.CACHE_ENV, str(user))
    driver = loader.get_driver()
    assert driver.parse("PRINT 1", lambda b: b.reset("PRINT 1", 0))
    assert not user.exists()                    # nothing derived, nothing written
    shipped = cache.load_shipped(key)
    assert shipped is not None and shipped.actions == driver.tables.actions


def test_unreadable_shipped_tables_fall_back_to_the_user_cache(package: Path) -> None:
    key = cache.cache_key(loader.grammar_text(), lark.__version__)
    (package / f"tables-{key}.bin").write_bytes(b"not marshal data")
    assert cache.load_shipped(key) is None
    assert cache.load_shipped("0" * 32) is None  # another grammar's: not there
    driver = loader.get_driver()                 # from the user cache (or Lark) as before
    assert driver.parse("PRINT 1", lambda b: b.reset("PRINT 1", 0))
