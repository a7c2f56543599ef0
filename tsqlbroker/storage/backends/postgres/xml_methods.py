"""The xml methods ``value()``, ``exist()`` and ``query()`` inside queries on PostgreSQL.

SQLite calls the interpreter's XML implementation (``tsql_xml_value`` …). PostgreSQL evaluates
XPath 1.0 with the same library (libxml2) through ``xpath()``, so the query is translated once,
at bind time, by the values layer's XQuery → XPath translator
(:func:`~tsqlbroker.values.xquery.translation_json`) and the XPath runs in the server.
What has no XPath 1.0 form here — ``sql:variable`` / ``sql:column`` (not in
queries on SQLite either), ``avg`` / ``max`` / ``min`` / ``distinct-values``, FLWOR and
constructors, ``nodes()`` — is refused with a T-SQL error.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from sqlglot import exp

from ....errors import not_supported, tsql_error
from ....values.types import normalize_spec
from ....values.xquery import namespace_pairs, translation_json
from .casts import cast_to

Translator = Callable[[str, str, tuple[tuple[str, str], ...]], Any]


def _fn(name: str, *args: exp.Expression) -> exp.Expression:
    return exp.Anonymous(this=name, expressions=list(args))


# PostgreSQL's xpath() hands string results back XML-escaped (its escape_xml: &, <, >, CR);
# value() must return the characters themselves, as SQL Server (and the SQLite path) do.
_UNESCAPES = (("&lt;", "<"), ("&gt;", ">"), ("&#x0d;", "\r"), ("&amp;", "&"))


def _unescaped(text_expr: exp.Expression) -> exp.Expression:
    for entity, char in _UNESCAPES:  # &amp; last, so "&amp;lt;" stays "&lt;"
        text_expr = _fn("replace", text_expr, exp.Literal.string(entity),
                        exp.Literal.string(char))
    return text_expr


def _xpath_text(xpath: str) -> str:
    """The translator's XPath evaluated from the document: its root variable ``$__r``
    (the value's own root) is the document root here."""
    return xpath.replace("$__r/", "/").replace("$__r", "/")


def xml_method(method: str, doc: exp.Expression, args: list[exp.Expression],
               translate: Translator | None) -> exp.Expression:
    """``doc.method(args…)`` (``doc`` already rewritten) as PostgreSQL SQL; a last
    argument beyond the method's own is the statement's WITH XMLNAMESPACES declarations
    (engine/parsing.py passes them so)."""
    label = f"{method}()"
    if method not in ("value", "exist", "query"):
        raise not_supported(f"The XML method '{method}' in a query")
    if translate is None:
        translate = translation_json
    want = 2 if method == "value" else 1
    namespaces: tuple[tuple[str, str], ...] = ()
    if args and isinstance(args[-1], exp.Literal) and args[-1].args.get("_xmlnamespaces"):
        namespaces = namespace_pairs(args[-1].name)
        args = args[:-1]
    if len(args) != want:
        raise tsql_error(174, method, want)
    query = args[0]
    if not (isinstance(query, (exp.Literal, exp.National)) and query.is_string
            or isinstance(query, exp.National)):
        raise not_supported(f"An XML method '{method}' whose query is not a string literal")
    tr = json.loads(translate(query.name, label, namespaces))
    if tr["externals"]:
        kind, _name = tr["externals"][0]
        raise tsql_error(2209, label, f"sql:{kind}")
    if tr["aggregate"]:
        raise not_supported(f"XQuery {tr['aggregate']}() in an XML method inside a query")
    xpath = _xpath_text(tr["xpath"])
    xml_doc = exp.Cast(this=doc, to=exp.DataType.build("xml", dialect="postgres"))
    ns: list[exp.Expression] = []
    if tr["namespaces"]:
        ns = [exp.Array(expressions=[
            exp.Array(expressions=[exp.Literal.string(p), exp.Literal.string(u)])
            for p, u in tr["namespaces"]])]

    def xp(path: str) -> exp.Expression:
        return _fn("xpath", exp.Literal.string(path), xml_doc.copy(), *[n.copy() for n in ns])

    def joined(path: str) -> exp.Expression:
        # string(…) and boolean(…) give one item; no subscript (sqlglot shifts indexes)
        return _fn("array_to_string", exp.Cast(
            this=xp(path), to=exp.DataType.build("text[]", dialect="postgres")),
            exp.Literal.string(""))

    if method == "value":
        if not tr["singleton"]:
            raise tsql_error(2389, label, label, "xdt:untypedAtomic *")
        spec_node = args[1]
        if not (isinstance(spec_node, (exp.Literal, exp.National)) and spec_node.is_string
                or isinstance(spec_node, exp.National)):
            raise not_supported("An XML value() whose type is not a string literal")
        found = _fn("xpath_exists", exp.Literal.string(xpath), xml_doc.copy(),
                    *[n.copy() for n in ns])
        value = cast_to(_unescaped(joined(f"string({xpath})")), normalize_spec(spec_node.name),
                        "nvarchar(max)")
        return exp.Case(ifs=[exp.If(this=found, true=value)])
    if method == "exist":
        true = exp.EQ(this=joined(f"boolean({xpath})"), expression=exp.Literal.string("true"))
        return exp.Case(ifs=[exp.If(this=exp.Is(this=doc.copy(), expression=exp.Null()),
                                    true=exp.Null()),
                             exp.If(this=true, true=exp.Literal.number(1))],
                        default=exp.Literal.number(0))
    # query(): the nodes serialized, empty elements written as SQL Server writes them
    # (<a />); the document node ('.', '/') without the declaration and line break libxml2
    # writes around it (SQL Server's xml text has none).
    nodes = _fn("regexp_replace", joined(xpath),
                exp.Literal.string("^<\\?xml[^>]*\\?>\n(.*)\n$"), exp.Literal.string("\\1"))
    return _fn("regexp_replace", nodes, exp.Literal.string("([^ /])/>"),
               exp.Literal.string("\\1 />"), exp.Literal.string("g"))
