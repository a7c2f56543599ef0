"""xml values: parsing, SQL Server serialisation, byte conversions and the xml methods."""

from __future__ import annotations

from typing import Any

import pytest

from tsqlbroker.errors import TSqlError
from tsqlbroker.values.convert import converter
from tsqlbroker.values.operators import binary
from tsqlbroker.values.types import parse_type_spec
from tsqlbroker.values.xml_value import XmlValue

T = parse_type_spec


def test_chapter_listing_15_14_bytes() -> None:
    """cast(NCHAR(0xFEFF) + cast(@msgXml as NVARCHAR) AS VARBINARY(MAX)) and back."""
    msg = converter(T("varchar(15)"), T("xml"), explicit=False)("<id>Order1</id>")
    as_nvarchar = converter(T("xml"), T("nvarchar(30)"))(msg)
    assert as_nvarchar == "<id>Order1</id>"
    cat_type, cat = binary("+", T("nchar(1)"), T("nvarchar(30)"))
    body = converter(cat_type, T("varbinary(max)"))(cat("\ufeff", as_nvarchar))
    assert body == b"\xff\xfe" + "<id>Order1</id>".encode("utf-16-le")
    assert body[:4].hex().upper() == "FFFE3C00"
    back = converter(T("varbinary(max)"), T("xml"))(body)
    assert back.to_string() == "<id>Order1</id>"


def test_chapter_listing_15_18_ack() -> None:
    ack = converter(T("varchar(26)"), T("xml"), explicit=False)("<id>1</id><ackid>1</ackid>")
    s = "\ufeff" + converter(T("xml"), T("nvarchar(max)"))(ack)
    body = converter(T("nvarchar(max)"), T("varbinary(max)"))(s)
    assert body.startswith(b"\xff\xfe<\x00i\x00d\x00>\x00")
    assert XmlValue.from_bytes(body).to_string() == "<id>1</id><ackid>1</ackid>"


def test_nvarchar_30_truncates_long_xml() -> None:
    x = XmlValue.parse("<order><id>1234567890</id><qty>5</qty></order>")
    assert converter(T("xml"), T("nvarchar(30)"))(x) == "<order><id>1234567890</id><qty"


@pytest.mark.parametrize(
    "data",
    [
        b"\xff\xfe" + "<a>\u00e9</a>".encode("utf-16-le"),
        "<a>\u00e9</a>".encode("utf-16-le"),
        b"\xfe\xff" + "<a>\u00e9</a>".encode("utf-16-be"),
        b"\xef\xbb\xbf" + "<a>\u00e9</a>".encode("utf-8"),
        "<a>\u00e9</a>".encode("utf-8"),
        '<?xml version="1.0" encoding="utf-8"?><a>\u00e9</a>'.encode("utf-8"),
        '<?xml version="1.0" encoding="iso-8859-1"?><a>\u00e9</a>'.encode("latin-1"),
        b"\xff\xfe" + '<?xml version="1.0" encoding="utf-16"?><a>\u00e9</a>'.encode("utf-16-le"),
    ],
)
def test_from_bytes_encodings(data: bytes) -> None:
    assert XmlValue.from_bytes(data).to_string() == "<a>\u00e9</a>"


def test_xml_to_varbinary_has_bom() -> None:
    x = XmlValue.parse("<a/>")
    assert converter(T("xml"), T("varbinary(max)"))(x) == b"\xff\xfe" + "<a />".encode(
        "utf-16-le")


def test_varchar_to_varbinary_is_single_byte() -> None:
    assert converter(T("varchar(5)"), T("varbinary(max)"))("<a\u00e9/>") == b"<a\xe9/>"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("<a></a>", "<a />"),
        ("<a/>", "<a />"),
        ("<a> <b/> </a>", "<a><b /></a>"),
        ('<?xml version="1.0"?><a x="1"/>', '<a x="1" />'),
        ("<a x='q\"'>1 &lt; 2 &gt; 0 &amp;</a>", '<a x="q&quot;">1 &lt; 2 &gt; 0 &amp;</a>'),
        ("<id>1</id><ackid>1</ackid>", "<id>1</id><ackid>1</ackid>"),
        ("plain text", "plain text"),
        ("", ""),
        ("<a><!--c--><?pi x?></a>", "<a><!--c--><?pi x?></a>"),
        ('<p:a xmlns:p="urn:x"><p:b/></p:a>', '<p:a xmlns:p="urn:x"><p:b /></p:a>'),
        ('<a xml:space="preserve"> </a>', '<a xml:space="preserve"> </a>'),
        ("<![CDATA[<x>]]>", "&lt;x&gt;"),
    ],
)
def test_serialisation(text: str, expected: str) -> None:
    assert XmlValue.parse(text).to_string() == expected


@pytest.mark.parametrize(
    ("text", "number", "message"),
    [
        ("<a>", 9400, "XML parsing: line 1, character 4, unexpected end of input"),
        ("<a></b>", 9436, "XML parsing: line 1, character 8, end tag does not match start tag"),
        ("<a>&</a>", 9421, "XML parsing: line 1, character 5, illegal name character"),
        ("<a/><?xml version='1.0'?>", 9438,
         "XML parsing: line 1, character 10, text/xmldecl not at the beginning of input"),
    ],
)
def test_parse_errors(text: str, number: int, message: str) -> None:
    with pytest.raises(TSqlError) as ei:
        XmlValue.parse(text)
    assert (ei.value.number, ei.value.message) == (number, message)


def test_parse_error_is_a_conversion_error_for_try_cast() -> None:
    assert converter(T("varchar(3)"), T("xml"), try_=True)("<a>") is None


DOC = XmlValue.parse(
    '<r><a id="1">x</a><a id="2">y<c>z</c></a><n>5</n><n>7</n></r>'
)


@pytest.mark.parametrize(
    ("query", "sqltype", "expected"),
    [
        ("(/r/a)[1]", "varchar(10)", "x"),
        ("(/r/a/@id)[2]", "int", 2),
        ("/r[1]/a[1]/@id", "int", 1),
        ("(/r/a/text())[2]", "varchar(5)", "y"),
        ("(//c)[1]", "nvarchar(5)", "z"),
        ("count(/r/a)", "int", 2),
        ("sum(/r/n)", "int", 12),
        ("avg(/r/n)", "int", 6),
        ("max(/r/n)", "int", 7),
        ("local-name((/r/*)[1])", "sysname", "a"),
        ("string((/r/a)[2])", "varchar(10)", "yz"),
        ("data((/r/n)[1])", "int", 5),
        ("(/r/a[@id=2]/@id)[1]", "int", 2),
        ("(/r/a[@id eq 2]/c)[1]", "varchar(5)", "z"),
        ("(/r/missing)[1]", "int", None),
        ("count(/r/a) > 1", "bit", 1),
        ("fn:upper-case((/r/a)[1])", "varchar(5)", "X"),
        ("concat((/r/a)[1], '-', (/r/n)[2])", "varchar(9)", "x-7"),
    ],
)
def test_value(query: str, sqltype: str, expected: Any) -> None:
    assert DOC.value(query, sqltype) == expected


def test_value_requires_singleton() -> None:
    with pytest.raises(TSqlError) as ei:
        DOC.value("/r/a", "varchar(10)")
    assert ei.value.number == 2389
    assert ei.value.message == ("XQuery [value()]: 'value()' requires a singleton (or empty "
                                "sequence), found operand of type 'xdt:untypedAtomic *'")


def test_value_conversion_error() -> None:
    with pytest.raises(TSqlError) as ei:
        DOC.value("(/r/a)[1]", "int")
    assert ei.value.number == 245
    assert "nvarchar value 'x'" in ei.value.message


@pytest.mark.parametrize(
    ("query", "expected"),
    [("/r/a[@id=2]", 1), ("/r/a[@id=3]", 0), ("/r/a/c", 1), ("//c[.='z']", 1),
     ("/r/b", 0), ("true()", 1), ("false()", 0)],
)
def test_exist(query: str, expected: int) -> None:
    assert DOC.exist(query) == expected


def test_query() -> None:
    assert DOC.query("/r/a[2]").to_string() == '<a id="2">y<c>z</c></a>'
    assert DOC.query("/r/n").to_string() == "<n>5</n><n>7</n>"
    assert DOC.query("/r/nothing").to_string() == ""
    assert DOC.query("data(/r/n)").to_string() == "5 7"


def test_nodes_context() -> None:
    rows = DOC.nodes("/r/a")
    assert [r.value("@id", "int") for r in rows] == [1, 2]
    assert [r.value(".", "varchar(5)") for r in rows] == ["x", "yz"]
    assert [r.query(".").to_string() for r in rows] == ['<a id="1">x</a>',
                                                       '<a id="2">y<c>z</c></a>']
    assert rows[1].value("(c)[1]", "varchar(3)") == "z"
    assert rows[1].exist("c") == 1 and rows[0].exist("c") == 0
    assert rows[0].value("(/r/n)[1]", "int") == 5  # absolute paths see the whole document
    attrs = DOC.nodes("/r/a/@id")
    assert [a.value(".", "int") for a in attrs] == [1, 2]


NS = XmlValue.parse('<Order xmlns="urn:o" xmlns:x="urn:x"><Line n="1" x:k="a"/>'
                    '<Line n="2"/></Order>')


def test_namespaces() -> None:
    assert NS.to_string() == ('<Order xmlns="urn:o" xmlns:x="urn:x"><Line n="1" x:k="a" />'
                              '<Line n="2" /></Order>')
    q = 'declare default element namespace "urn:o"; count(/Order/Line)'
    assert NS.value(q, "int") == 2
    assert NS.value('declare namespace p="urn:o"; (/p:Order/p:Line/@n)[2]', "int") == 2
    assert NS.value("(/p:Order/p:Line/@n)[1]", "int", namespaces={"p": "urn:o"}) == 1
    assert NS.value("(/Order/Line/@n)[1]", "int", namespaces={"": "urn:o"}) == 1
    assert NS.value("(/Order/Line/@y:k)[1]", "varchar(3)",
                    namespaces={"": "urn:o", "y": "urn:x"}) == "a"
    assert NS.value("count(/Order/Line)", "int") == 0  # no namespace: nothing matches
    line = NS.query('declare default element namespace "urn:o"; /Order/Line[2]')
    assert line.to_string() == '<Line xmlns="urn:o" n="2" />'


def test_sql_variable_and_column() -> None:
    values = {("variable", "@id"): 2, ("column", "wanted"): "y"}

    def resolve(kind: str, name: str) -> Any:
        return values[(kind, name)]

    assert DOC.exist('/r/a[@id = sql:variable("@id")]', resolver=resolve) == 1
    assert DOC.value('(/r/a[text() = sql:column("wanted")]/@id)[1]', "int",
                     resolver=resolve) == 2


@pytest.mark.parametrize(
    ("query", "number"),
    [("/r/a[", 2209), ("foo(/r)", 2395), ("let $x := /r return $x", 2209)],
)
def test_xquery_errors(query: str, number: int) -> None:
    with pytest.raises(TSqlError) as ei:
        DOC.query(query)
    assert ei.value.number == number


@pytest.mark.parametrize(
    ("src", "text", "ok"),
    [
        ("nvarchar(100)", '<?xml version="1.0" encoding="utf-8"?><a/>', False),
        ("nvarchar(100)", '<?xml version="1.0" encoding="utf-16"?><a/>', True),
        ("varchar(100)", '<?xml version="1.0" encoding="utf-16"?><a/>', False),
        ("varchar(100)", '<?xml version="1.0" encoding="utf-8"?><a/>', True),
        ("nvarchar(100)", '<?xml version="1.0"?><a/>', True),
    ],
)
def test_declared_encoding_must_fit_the_string_type(src: str, text: str, ok: bool) -> None:
    conv = converter(T(src), T("xml"))
    if ok:
        assert conv(text).to_string() == "<a />"
        return
    with pytest.raises(TSqlError) as ei:
        conv(text)
    assert ei.value.number == 9402
    end = text.index("?>") + 2  # SQL Server points at the end of the declaration
    assert ei.value.message == f"XML parsing: line 1, character {end}, unable to switch the " \
        "encoding"


ERROR_BODY = ('<?xml version="1.0"?><Error xmlns="http://schemas.microsoft.com/SQL/ServiceBroker/'
              'Error"><Code>-8494</Code><Description>You do not have permission to access the '
              "service 'X'.</Description></Error>")
SSB = "http://schemas.microsoft.com/SQL/ServiceBroker/Error"


@pytest.mark.parametrize(
    "body",
    [ERROR_BODY.encode("utf-16-le"), b"\xff\xfe" + ERROR_BODY.encode("utf-16-le"),
     ERROR_BODY.encode("utf-8")],
)
def test_broker_error_message_body(body: bytes) -> None:
    """The queries applications run on a broker Error message (reference §5.15)."""
    x = converter(T("varbinary(max)"), T("xml"))(body)
    assert x.value("(/Error/Code)[1]", "INT", namespaces={"": SSB}) == -8494
    assert x.value("(/Error/Description)[1]", "NVARCHAR(4000)", namespaces={"": SSB}) == (
        "You do not have permission to access the service 'X'.")
    q = f'declare namespace ssb="{SSB}"; (/ssb:Error/ssb:Code)[1]'
    assert x.value(q, "int") == -8494
    assert x.value("(//*[local-name()='Code'])[1]", "int") == -8494
    text = converter(T("varbinary(max)"), T("nvarchar(max)"))(body)
    if body[:2] != b"\xff\xfe" and body[1:2] == b"\x00":
        assert text == ERROR_BODY  # UTF-16 bytes read back as nvarchar unchanged


def test_any_namespace_wildcards() -> None:
    x = XmlValue.parse('<p:r xmlns:p="urn:p" xmlns:q="urn:q"><p:a q:id="1">x</p:a>'
                       '<a id="2">y</a></p:r>')
    assert x.value("count(/*:r/*:a)", "int") == 2
    assert x.value("(/*:r/*:a/@*:id)[2]", "int") == 2
    assert x.value("count(/*:r/*)", "int") == 2
    assert [n.value("local-name(.)", "varchar(5)") for n in x.nodes("/*:r/*")] == ["a", "a"]


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("(/r/a[position() = last()])[1]", "yz"),
        ("(/r/a[contains(., 'z')])[1]", "yz"),
        ("(/r/a[@id = '1' or @id = '2'])[2]", "yz"),
        ("(/r/n[. > 5])[1]", "7"),
        ("(/r/n[. ge 5 and . lt 7])[1]", "5"),
        ("(/r/*[local-name() = 'n'])[2]", "7"),
        ("(/r/a/c/..)[1]", "yz"),
        ("(/r/a | /r/n)[3]", "5"),
        ("(/r/a[not(c)])[1]", "x"),
        ("string-length((/r/a)[2])", "2"),
        ("(: a comment :) (/r/n)[2]", "7"),
        ("sum(/r/n) div 2", "6"),
        ("(/r/child::a/attribute::id)[2]", "2"),
    ],
)
def test_xquery_subset(query: str, expected: str) -> None:
    assert DOC.value(query, "varchar(10)") == expected
