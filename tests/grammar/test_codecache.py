"""The dataclass code cache: classes built through it behave as plain dataclasses, a warm
cache compiles nothing, and a missing or corrupt cache file only costs the compile."""

from __future__ import annotations

import builtins
import dataclasses
import os
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from tsqlbroker import codecache


def _make() -> type:
    @dataclass(frozen=True)
    class Node:
        name: str
        kids: tuple[int, ...] = ()
        tags: list[str] = field(default_factory=list, compare=False)

    return Node


@pytest.fixture
def cache_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv(codecache.CACHE_ENV, str(tmp_path))
    return tmp_path


def _compiles(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    seen: list[str] = []

    def counting(source: str, *args: object, **kwargs: object) -> object:
        seen.append(source)
        return builtins.compile(source, *args, **kwargs)  # type: ignore[call-overload]

    monkeypatch.setattr(codecache, "compile", counting, raising=False)
    return seen


def test_warm_cache_compiles_nothing_and_classes_behave(cache_dir: Path,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    seen = _compiles(monkeypatch)
    with codecache.cached_dataclass_code("t"):
        cold = _make()
    assert len(seen) >= 5  # __init__, __repr__, __eq__, __hash__, __setattr__, __delattr__
    assert list(cache_dir.glob("dataclasses-t-*.hmac"))
    seen.clear()
    with codecache.cached_dataclass_code("t"):
        warm = _make()
    assert seen == []
    a, b = warm("x", (1, 2), ["p"]), warm("x", (1, 2), ["q"])
    assert a == b and hash(a) == hash(b)  # tags excluded from comparison
    assert repr(a) == repr(cold("x", (1, 2), ["p"]))
    assert warm("y").kids == () and warm("y").tags == []
    with pytest.raises(dataclasses.FrozenInstanceError):
        a.name = "z"  # type: ignore[misc]
    assert "exec" not in vars(dataclasses)  # the builtin is back


def test_corrupt_or_unwritable_cache_only_costs_compiling(cache_dir: Path,
                                                           monkeypatch: pytest.MonkeyPatch
                                                           ) -> None:
    with codecache.cached_dataclass_code("t"):
        _make()
    (path,) = cache_dir.glob("dataclasses-t-*.hmac")
    path.write_bytes(b"\x00garbage")
    with codecache.cached_dataclass_code("t"):
        node = _make()
    assert node("a") == node("a")
    blocker = cache_dir / "file"
    blocker.write_text("x")
    monkeypatch.setenv(codecache.CACHE_ENV, str(blocker / "sub"))
    with codecache.cached_dataclass_code("t"):
        node = _make()
    assert node("b").name == "b"


def test_ast_nodes_are_dataclasses() -> None:
    from tsqlbroker.grammar import ast

    assert dataclasses.is_dataclass(ast.Batch)
    assert "exec" not in vars(dataclasses)


def test_contexts_nest(cache_dir: Path) -> None:
    with codecache.cached_dataclass_code("outer"):
        with codecache.cached_dataclass_code("inner"):
            inner = _make()
        outer = _make()
        assert vars(dataclasses)["exec"] is not None  # still patched for the outer one
    assert "exec" not in vars(dataclasses)
    assert inner("a") == inner("a") and outer("b").name == "b"
    assert list(cache_dir.glob("dataclasses-inner-*.hmac"))
    assert list(cache_dir.glob("dataclasses-outer-*.hmac"))


def test_a_smaller_run_does_not_shrink_the_cache(cache_dir: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    with codecache.cached_dataclass_code("m"):
        _make()

    @dataclass
    class Other:
        x: int

    with codecache.cached_dataclass_code("m"):
        @dataclass
        class Other2:
            y: int
    seen = _compiles(monkeypatch)
    with codecache.cached_dataclass_code("m"):
        _make()
    assert seen == []  # the first run's texts survived the second run's write
    assert Other(1).x == 1 and Other2(2).y == 2


def test_prune_keeps_the_recent_caches_of_other_versions(tmp_path: Path) -> None:
    # Several checkouts or versions of one user share the cache directory: each keeps its
    # cache (no rebuild at every start) while old ones do not pile up.
    files = [tmp_path / f"grammar-{i}.hmac" for i in range(6)]
    for age, path in enumerate(reversed(files)):
        path.write_bytes(b"x")
        os.utime(path, (1_000_000 - age, 1_000_000 - age))   # grammar-5 the newest
    (tmp_path / "lark-0.hmac").write_bytes(b"x")
    codecache.prune(files[0], "grammar-*.hmac", keep=4)       # the current one: the oldest
    left = sorted(p.name for p in tmp_path.iterdir())
    assert left == ["grammar-0.hmac", "grammar-3.hmac", "grammar-4.hmac", "grammar-5.hmac",
                    "lark-0.hmac"]
