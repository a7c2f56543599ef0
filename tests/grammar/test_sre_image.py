"""Regex images: a pattern rebuilt from its cached image matches exactly as re.compile's,
and an unusable image falls back to compiling."""

from __future__ import annotations

import marshal
import re

from tsqlbroker.grammar.sre_image import compile_image, image

_PATTERN = (r"\s*(?:(?P<NAME>[A-Za-z_][\w@#$]*)|(?P<NUMBER>\d+(?:\.\d*)?)"
            r"|(?P<STRING>N?'(?:[^']|'')*')|(?P<SELECT>(?i:select)))")
_TEXTS = ["  select", "x1", "12.5", "N'it''s'", "SELECT", "  ", "@v", "'open", "ſelect"]


def test_image_rebuilds_the_same_pattern() -> None:
    img = image(_PATTERN, re.UNICODE)
    assert img is not None
    img = marshal.loads(marshal.dumps(img))  # as stored in the tables cache
    rebuilt, reference = compile_image(_PATTERN, re.UNICODE, img), re.compile(_PATTERN)
    assert rebuilt.flags == reference.flags and rebuilt.groupindex == reference.groupindex
    for text in _TEXTS:
        got, want = rebuilt.match(text), reference.match(text)
        assert (got and (got.lastgroup, got.span(), got.groups())) == (
            want and (want.lastgroup, want.span(), want.groups())), text


def test_bad_image_falls_back_to_compiling() -> None:
    bogus = (0, [1, 2, 3], 0, {}, (None,))
    pattern = compile_image(r"(?P<A>a+)", 0, bogus)  # type: ignore[arg-type]
    m = pattern.match("aaa")
    assert m is not None and m.lastgroup == "A"
    assert compile_image(r"b", 0, None).match("b")
