"""JSON functions, HASHBYTES, SOUNDEX and DIFFERENCE."""

from __future__ import annotations

import hashlib
from typing import Any

import pytest

from tsqlbroker.errors import TSqlError
from tsqlbroker.values.builtins import NOTCONST, lookup
from tsqlbroker.values.json_builtins import is_json, json_modify, json_query, json_value
from tsqlbroker.values.types import parse_type_spec

DOC = '{"id": 7, "name": "Ann", "tags": ["a", "b"], "addr": {"city": "Oslo", "zip": null},' \
      ' "ok": true, "n": 1.50, "k y": "v"}'


@pytest.mark.parametrize(
    ("path", "expected"),
    [("$.id", "7"), ("$.name", "Ann"), ("$.tags[1]", "b"), ("$.addr.city", "Oslo"),
     ("$.addr.zip", None), ("$.ok", "true"), ("$.n", "1.50"), ('$."k y"', "v"),
     ("$.missing", None), ("$.tags", None), ("lax $.addr", None)],
)
def test_json_value(path: str, expected: str | None) -> None:
    assert json_value(DOC, path) == expected


@pytest.mark.parametrize(
    ("path", "number"),
    [("strict $.missing", 13608), ("strict $.tags", 13623), ("$x", 13607), ("$.a b", 13607)],
)
def test_json_value_errors(path: str, number: int) -> None:
    with pytest.raises(TSqlError) as ei:
        json_value(DOC, path)
    assert ei.value.number == number


def test_bad_json_text() -> None:
    with pytest.raises(TSqlError) as ei:
        json_value('{"a": }', "$.a")
    assert ei.value.message == ("JSON text is not properly formatted. Unexpected character '}' "
                                "is found at position 6.")


@pytest.mark.parametrize(
    ("path", "expected"),
    [("$.tags", '["a", "b"]'), ("$.addr", '{"city": "Oslo", "zip": null}'), ("$", DOC),
     ("$.id", None)],
)
def test_json_query(path: str, expected: str | None) -> None:
    assert json_query(DOC, path) == expected


@pytest.mark.parametrize(
    ("text", "kind", "expected"),
    [('{"a":1}', "OBJECT_OR_ARRAY", True), ("[1,2]", "OBJECT_OR_ARRAY", True),
     ("1", "OBJECT_OR_ARRAY", False), ("1", "VALUE", True), ("1", "SCALAR", True),
     ('{"a":1}', "ARRAY", False), ("{a:1}", "VALUE", False), ("", "VALUE", False),
     ('{"a":1} x', "VALUE", False)],
)
def test_is_json(text: str, kind: str, expected: bool) -> None:
    assert is_json(text, kind) is expected


@pytest.mark.parametrize(
    ("text", "path", "new", "expected"),
    [
        ('{"a": 1, "b": 2}', "$.a", 5, '{"a": 5, "b": 2}'),
        ('{"a": 1, "b": 2}', "$.c", "x/y", '{"a": 1, "b": 2,"c":"x\\/y"}'),
        ('{"a": 1, "b": 2}', "$.a", None, '{"b": 2}'),
        ('{"a": 1, "b": 2}', "$.b", None, '{"a": 1}'),
        ('{"a": 1}', "$.a", None, "{}"),
        ('{"a": [1]}', "append $.a", 2, '{"a": [1,2]}'),
        ('{"a": []}', "append $.a", "z", '{"a": ["z"]}'),
        ('{"a": {"b": 1}}', "$.a.b", True, '{"a": {"b": true}}'),
        ('{"a": 1}', "strict $.a", None, '{"a": null}'),
    ],
)
def test_json_modify(text: str, path: str, new: Any, expected: str) -> None:
    assert json_modify(text, path, new) == expected


def test_json_modify_strict_missing() -> None:
    with pytest.raises(TSqlError) as ei:
        json_modify('{"a": 1}', "strict $.b", 1)
    assert ei.value.number == 13608


def bind(name: str, *specs: str) -> Any:
    return lookup(name).bind([parse_type_spec(s) for s in specs],  # type: ignore[union-attr]
                             [NOTCONST] * len(specs))


def test_json_builtins_bind() -> None:
    t, fn = bind("json_value", "nvarchar(max)", "varchar(10)")
    assert t.spec() == "nvarchar(4000)" and fn(DOC, "$.id") == "7" and fn(None, "$") is None
    t, fn = bind("json_query", "nvarchar(max)")
    assert t.spec() == "nvarchar(max)" and fn(DOC) == DOC
    _t, fn = bind("isjson", "nvarchar(max)")
    assert fn("[]") == 1 and fn("x") == 0 and fn(None) is None
    _t, fn = bind("json_modify", "nvarchar(max)", "varchar(10)", "bit")
    assert fn('{"a":0}', "$.a", 1) == '{"a":true}'


@pytest.mark.parametrize(
    ("alg", "spec", "value", "digest"),
    [
        ("SHA2_256", "varchar(3)", "abc", hashlib.sha256(b"abc").digest()),
        ("sha1", "nvarchar(3)", "abc", hashlib.sha1("abc".encode("utf-16-le")).digest()),
        ("MD5", "varbinary(2)", b"\x01\x02", hashlib.md5(b"\x01\x02").digest()),
        ("SHA2_512", "varchar(1)", "\u20ac", hashlib.sha512(b"\x80").digest()),
        ("nope", "varchar(1)", "a", None),
    ],
)
def test_hashbytes(alg: str, spec: str, value: Any, digest: bytes | None) -> None:
    t, fn = bind("hashbytes", "varchar(10)", spec)
    assert t.spec() == "varbinary(8000)"
    assert fn(alg, value) == digest


@pytest.mark.parametrize(
    ("text", "code"),
    [("Robert", "R163"), ("Rupert", "R163"), ("Ashcraft", "A261"), ("Tymczak", "T522"),
     ("Pfister", "P236"), ("Smith", "S530"), ("Smythe", "S530"), ("", "0000")],
)
def test_soundex(text: str, code: str) -> None:
    assert bind("soundex", "varchar(20)")[1](text) == code


def test_difference() -> None:
    _t, fn = bind("difference", "varchar(10)", "varchar(10)")
    assert fn("Smith", "Smythe") == 4
    assert fn("Green", "Smith") == 1  # G650 vs S530: only the last digit agrees
