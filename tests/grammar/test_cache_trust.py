"""The start-up caches hold code, so they are read only from a directory private to the
user and only when their HMAC matches: a planted or altered file is ignored with a log
line (and rebuilt), never deserialised."""

from __future__ import annotations

import logging
import os
import stat
from pathlib import Path

import lark
import pytest

from tsqlbroker import codecache
from tsqlbroker.grammar import loader
from tsqlbroker.grammar import parse_tables as cache


@pytest.fixture
def cache_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    directory = tmp_path / "cache"
    monkeypatch.setenv(codecache.CACHE_ENV, str(directory))
    monkeypatch.setattr(codecache, "_keys", {})
    # The tables an install ships (trusted as the code is) would spare the user cache.
    monkeypatch.setattr(cache, "load_shipped", lambda key: None)
    return directory


def test_cache_directory_and_key_are_private(cache_dir: Path) -> None:
    codecache.write_signed(cache_dir / "x.hmac", b"payload")
    assert stat.S_IMODE(cache_dir.stat().st_mode) == 0o700
    assert stat.S_IMODE((cache_dir / codecache.KEY_FILE).stat().st_mode) == 0o600
    assert stat.S_IMODE((cache_dir / "x.hmac").stat().st_mode) == 0o600
    assert codecache.read_verified(cache_dir / "x.hmac") == b"payload"


def test_tampered_file_is_ignored_with_a_log_line(cache_dir: Path,
                                                  caplog: pytest.LogCaptureFixture) -> None:
    path = cache_dir / "x.hmac"
    codecache.write_signed(path, b"payload")
    data = bytearray(path.read_bytes())
    data[-1] ^= 1
    path.write_bytes(bytes(data))
    with caplog.at_level(logging.WARNING, logger="tsqlbroker.cache"):
        assert codecache.read_verified(path) is None
    assert "signature does not match" in caplog.text and str(path) in caplog.text


def test_planted_file_without_a_key_is_not_read(cache_dir: Path) -> None:
    cache_dir.mkdir(mode=0o700)
    (cache_dir / "x.hmac").write_bytes(b"\0" * 32 + b"anything")
    assert codecache.read_verified(cache_dir / "x.hmac") is None


@pytest.mark.skipif(not hasattr(os, "getuid"), reason="POSIX modes")
def test_directory_writable_by_others_is_not_used(cache_dir: Path,
                                                  caplog: pytest.LogCaptureFixture) -> None:
    codecache.write_signed(cache_dir / "x.hmac", b"payload")
    cache_dir.chmod(0o777)
    with caplog.at_level(logging.WARNING, logger="tsqlbroker.cache"):
        assert codecache.read_verified(cache_dir / "x.hmac") is None
    assert "not private" in caplog.text
    (cache_dir / codecache.KEY_FILE).chmod(0o644)
    cache_dir.chmod(0o700)
    codecache._keys.clear()
    with caplog.at_level(logging.WARNING, logger="tsqlbroker.cache"):
        assert codecache.read_verified(cache_dir / "x.hmac") is None  # key readable by others
    assert "ignoring the cache key" in caplog.text


def test_tampered_grammar_caches_are_rebuilt_not_loaded(cache_dir: Path,
                                                        monkeypatch: pytest.MonkeyPatch,
                                                        caplog: pytest.LogCaptureFixture) -> None:
    """The Lark parser pickle and the driver's marshalled tables: a file altered after it
    was written is never unpickled or unmarshalled; the next start rebuilds it."""
    monkeypatch.setattr(loader, "_driver", None)
    monkeypatch.setattr(loader, "_parser", None)
    loader.get_driver()
    (lark_file,) = cache_dir.glob("lark-*.hmac")
    (tables_file,) = cache_dir.glob("grammar-*.hmac")
    for path in (lark_file, tables_file):
        data = bytearray(path.read_bytes())
        data[40] ^= 0xFF
        path.write_bytes(bytes(data))
    loads: list[object] = []
    monkeypatch.setattr(lark.Lark, "load", classmethod(lambda cls, f: loads.append(f)))
    key = cache.cache_key(loader.grammar_text(), lark.__version__)
    with caplog.at_level(logging.WARNING, logger="tsqlbroker.cache"):
        assert cache.load(key) is None
        parser = loader.build()
    assert not loads and parser.parse("PRINT 1")
    assert caplog.text.count("signature does not match") == 2
