"""The driver's tables cache: a driver loaded from the cache file (no Lark object) parses
exactly as one derived from Lark in this process, and a bad cache file is rebuilt."""

from __future__ import annotations

from pathlib import Path

import lark
import pytest
from grammar_helpers import LISTINGS

from tsqlbroker.errors import ParseError
from tsqlbroker.grammar import loader, split_batches
from tsqlbroker.grammar import parse_tables as cache
from tsqlbroker.grammar.driver import Driver
from tsqlbroker.grammar.scan import blank_comments, regions
from tsqlbroker.grammar.transformer import SPAN_RULES, AstBuilder

_TEXTS = [p.read_text(encoding="utf-8") for p in sorted(Path(LISTINGS).glob("*.sql"))]
_BAD = ["SELECT FROM t", "SELECT 'abc", "RECEIVE TOP(1) FROM", "SELECT a FROM t WHERE ?",
        "CREATE QUEUE q WITH STATUS = MAYBE"]


def _outcome(driver: Driver, text: str) -> object:
    try:
        blanked = blank_comments(text, regions(text))
        return driver.parse(blanked, lambda b: b.reset(text, 0))
    except ParseError as e:
        return ("parse error", str(e))
    except Exception as e:  # noqa: BLE001 — the failure itself is what is compared
        return (type(e).__name__, getattr(e, "kind", None), getattr(e, "pos", None))


@pytest.fixture
def cache_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv(cache.CACHE_ENV, str(tmp_path))
    monkeypatch.setattr(cache, "load_shipped", lambda key: None)  # the user cache alone
    return tmp_path


def test_cached_tables_parse_like_tables_from_lark(cache_dir: Path) -> None:
    fresh = Driver.from_lark(loader.get_parser(), AstBuilder, SPAN_RULES)
    key = cache.cache_key(loader.grammar_text(), lark.__version__)
    cache.save(key, fresh.tables)
    assert (cache_dir / f"grammar-{key}.hmac").is_file()
    loaded = cache.load(key)
    assert loaded is not None
    assert loaded.actions == fresh.tables.actions
    assert loaded.lexers == fresh.tables.lexers
    warm = Driver(loaded, AstBuilder, SPAN_RULES, {"NAME": loader._reserved_callback})
    texts = [b.text for t in _TEXTS for b in split_batches(t)] + _BAD
    assert len(texts) > 20
    for text in texts:
        assert _outcome(warm, text) == _outcome(fresh, text), text


def test_missing_or_corrupt_cache_is_rebuilt(cache_dir: Path,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    key = cache.cache_key(loader.grammar_text(), lark.__version__)
    assert cache.load(key) is None
    (cache_dir / f"grammar-{key}.hmac").write_bytes(b"not marshal data")
    assert cache.load(key) is None
    monkeypatch.setattr(loader, "_driver", None)
    driver = loader.get_driver()
    assert cache.load(key) is not None  # written again for the next process
    assert driver.parse("PRINT 1", lambda b: b.reset("PRINT 1", 0))


def test_cache_key_follows_the_grammar() -> None:
    text = loader.grammar_text()
    assert cache.cache_key(text, "1.3.1") == cache.cache_key(text, "1.3.1")
    assert cache.cache_key(text + "\n// changed", "1.3.1") != cache.cache_key(text, "1.3.1")
    assert cache.cache_key(text, "1.3.2") != cache.cache_key(text, "1.3.1")


def test_unwritable_cache_dir_is_no_error(tmp_path: Path,
                                          monkeypatch: pytest.MonkeyPatch) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("x")
    monkeypatch.setenv(cache.CACHE_ENV, str(blocker / "sub"))
    tables = cache.load("0" * 32)
    assert tables is None
    fresh = Driver.from_lark(loader.get_parser(), AstBuilder, SPAN_RULES)
    cache.save("0" * 32, fresh.tables)  # mkdir fails: silently no cache
    assert not (blocker / "sub").exists()
