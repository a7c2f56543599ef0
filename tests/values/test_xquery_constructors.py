"""query() with element constructors and FLWOR expressions."""

from __future__ import annotations

import pytest

from tsqlbroker.errors import TSqlError
from tsqlbroker.values.xml_value import XmlValue

X = XmlValue.parse('<r><a id="2">x</a><a id="1">y</a><n>5</n></r>')


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("<root>{/r/a}</root>", '<root><a id="2">x</a><a id="1">y</a></root>'),
        ('<root count="{count(/r/a)}">{data(/r/n)}</root>', '<root count="2">5</root>'),
        ("<w>pre {/r/n/text()} post</w>", "<w>pre 5 post</w>"),
        ("<a>{{literal}}</a>", "<a>{literal}</a>"),
        ("<e/>", "<e />"),
        ("for $a in /r/a return <item id=\"{$a/@id}\">{string($a)}</item>",
         '<item id="2">x</item><item id="1">y</item>'),
        ("for $a in /r/a where $a/@id = 1 return $a", '<a id="1">y</a>'),
        ("for $a in /r/a order by $a/@id return data($a)", "y x"),
        ("for $a in /r/a order by $a/@id descending return <k>{$a/text()}</k>",
         "<k>x</k><k>y</k>"),
        ("<list>{for $a in /r/a return <i>{data($a/@id)}</i>}</list>",
         "<list><i>2</i><i>1</i></list>"),
        ('declare default element namespace "urn:x"; <root>{count(/r)}</root>',
         '<root xmlns="urn:x">0</root>'),
    ],
)
def test_constructors_and_flwor(query: str, expected: str) -> None:
    assert X.query(query).to_string() == expected


@pytest.mark.parametrize("query", ["<a>{/r/a</a>", "<a>{/r}</b>", "let $x := 1 return $x"])
def test_errors(query: str) -> None:
    with pytest.raises(TSqlError) as ei:
        X.query(query)
    assert ei.value.number == 2209
