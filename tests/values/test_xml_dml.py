"""xml.modify(): insert, delete, replace value of."""

from __future__ import annotations

from typing import Any

import pytest

from tsqlbroker.errors import TSqlError
from tsqlbroker.values.xml_value import XmlValue

X = XmlValue.parse('<r><a id="1">x</a><a id="2">y</a></r>')


@pytest.mark.parametrize(
    ("dml", "expected"),
    [
        ("insert <b>new</b> into (/r)[1]", '<r><a id="1">x</a><a id="2">y</a><b>new</b></r>'),
        ("insert <b>new</b> as last into (/r)[1]",
         '<r><a id="1">x</a><a id="2">y</a><b>new</b></r>'),
        ("insert <b>new</b> as first into (/r)[1]",
         '<r><b>new</b><a id="1">x</a><a id="2">y</a></r>'),
        ("insert <b/> after (/r/a)[1]", '<r><a id="1">x</a><b /><a id="2">y</a></r>'),
        ("insert <b/> before (/r/a)[1]", '<r><b /><a id="1">x</a><a id="2">y</a></r>'),
        ("insert <b/><c/> into (/r)[1]", '<r><a id="1">x</a><a id="2">y</a><b /><c /></r>'),
        ('insert attribute z {"9"} into (/r/a)[2]',
         '<r><a id="1">x</a><a id="2" z="9">y</a></r>'),
        ('insert "txt" into (/r/a)[1]', '<r><a id="1">xtxt</a><a id="2">y</a></r>'),
        ("delete /r/a[@id=1]", '<r><a id="2">y</a></r>'),
        ("delete /r/a", "<r />"),
        ("delete /r/a/@id", "<r><a>x</a><a>y</a></r>"),
        ("delete (/r/a/text())[1]", '<r><a id="1" /><a id="2">y</a></r>'),
        ("delete /r/nothing", '<r><a id="1">x</a><a id="2">y</a></r>'),
        ('replace value of (/r/a/text())[1] with "X"', '<r><a id="1">X</a><a id="2">y</a></r>'),
        ('replace value of (/r/a/@id)[2] with "7"', '<r><a id="1">x</a><a id="7">y</a></r>'),
        ("replace value of (/r/a/@id)[1] with (/r/a)[2]",
         '<r><a id="y">x</a><a id="2">y</a></r>'),
        ('replace value of (/r/a)[1] with "new"', '<r><a id="1">new</a><a id="2">y</a></r>'),
        ('replace value of (/r/zz)[1] with "new"', '<r><a id="1">x</a><a id="2">y</a></r>'),
    ],
)
def test_modify(dml: str, expected: str) -> None:
    assert X.modify(dml).to_string() == expected
    assert X.to_string() == '<r><a id="1">x</a><a id="2">y</a></r>'  # the original is kept


def test_modify_with_sql_variables() -> None:
    values: dict[str, Any] = {"@v": 42, "@x": XmlValue.parse("<q>1</q>")}

    def resolve(kind: str, name: str) -> Any:
        return values[name]

    got = X.modify('replace value of (/r/a/@id)[2] with sql:variable("@v")', resolver=resolve)
    assert got.to_string() == '<r><a id="1">x</a><a id="42">y</a></r>'
    got = X.modify('insert sql:variable("@x") into (/r)[1]', resolver=resolve)
    assert got.to_string() == '<r><a id="1">x</a><a id="2">y</a><q>1</q></r>'


def test_modify_with_namespaces() -> None:
    y = XmlValue.parse('<r xmlns="urn:o"><a/></r>')
    got = y.modify('declare default element namespace "urn:o"; insert <b>1</b> into (/r)[1]')
    assert got.to_string() == '<r xmlns="urn:o"><a /><b>1</b></r>'
    got = y.modify("insert <b/> into (/o:r)[1]", namespaces={"o": "urn:o"})
    assert got.to_string() == '<r xmlns="urn:o"><a /><b xmlns="" /></r>'
    got = y.modify('declare namespace o="urn:o"; delete /o:r/o:a')
    assert got.to_string() == '<r xmlns="urn:o" />'


@pytest.mark.parametrize(
    ("dml", "number"),
    [("insert <b/> into /r/a", 2226), ("insert <b/> into (/r/zz)[1]", 2226),
     ('replace value of /r/a with "x"', 2337), ("update /r", 2209), ("insert <b into (/r)[1]",
                                                                       2209)],
)
def test_modify_errors(dml: str, number: int) -> None:
    with pytest.raises(TSqlError) as ei:
        X.modify(dml)
    assert ei.value.number == number
