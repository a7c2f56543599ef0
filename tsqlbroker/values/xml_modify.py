"""XML DML for ``xml.modify()``: ``insert``, ``delete`` and ``replace value of``.

``insert Expr1 {as first into | as last into | into | after | before} Expr2`` where Expr1 is
an element constructor written out (``<a>1</a>``), a string, ``attribute name {"v"}`` or
``sql:variable("@x")``; ``delete Expr``; ``replace value of Expr1 with Expr2``. A prolog
(``declare namespace …;``) may precede any of them. Values are immutable here: the result is
a new :class:`XmlValue`, which the caller assigns back to the variable or column.
"""

from __future__ import annotations

import copy
import re
from typing import Any

from lxml import etree

from tsqlbroker.errors import tsql_error
from tsqlbroker.values.xml_tree import (
    Resolver,
    XmlDocument,
    append_text,
    atom_text,
    is_xml,
    namespace_decls,
    strip_blank,
)

_PROLOG = re.compile(r"^\s*((?:declare\s+[^;]*;\s*)*)(.*)$", re.DOTALL)
_INSERT = re.compile(
    r"^insert\s+(?P<what>.+?)\s+(?P<where>as\s+first\s+into|as\s+last\s+into|into|after|before)"
    r"\s+(?P<target>\S.*)$", re.DOTALL)
_DELETE = re.compile(r"^delete\s+(?P<target>\S.*)$", re.DOTALL)
_REPLACE = re.compile(r"^replace\s+value\s+of\s+(?P<target>.+?)\s+with\s+(?P<value>\S.*)$",
                      re.DOTALL)
_ATTRIBUTE = re.compile(r"^attribute\s+(?P<name>[\w:.-]+)\s*\{(?P<value>.*)\}$", re.DOTALL)
_VARIABLE = re.compile(r"""^sql:(?P<kind>variable|column)\(\s*["'](?P<name>[^"']+)["']\s*\)$""")
METHOD = "modify()"


def modify(x: XmlDocument, dml: str, namespaces: dict[str, str] | None = None,
           resolver: Resolver | None = None) -> XmlDocument:
    """Apply one XML DML statement to a copy of ``x`` and return the copy."""
    m = _PROLOG.match(dml)
    prolog, body = (m.group(1), m.group(2).strip()) if m else ("", dml.strip())
    doc = x.copy()

    def nodes(expr: str) -> list[Any]:
        result, _tr = doc.evaluate(prolog + expr, namespaces, resolver, METHOD)
        return result if isinstance(result, list) else [result]

    if mi := _INSERT.match(body):
        _insert(doc, mi.group("what").strip(), " ".join(mi.group("where").split()),
                nodes(mi.group("target")), namespaces, resolver, prolog)
    elif md := _DELETE.match(body):
        for node in nodes(md.group("target")):
            _delete(node)
    elif mr := _REPLACE.match(body):
        targets = nodes(mr.group("target"))
        if len(targets) > 1:
            raise tsql_error(2337, METHOD, "node()*")
        if targets:
            _replace(targets[0], _value_text(doc, prolog, mr.group("value").strip(),
                                             namespaces, resolver))
    else:
        raise tsql_error(2209, METHOD, body.split()[0] if body.split() else body)
    return doc


# ------------------------------------------------------------------------------- insert
def _content(doc: XmlDocument, what: str, namespaces: dict[str, str] | None,
             resolver: Resolver | None, prolog: str) -> tuple[list[Any], str | None,
                                                              tuple[str, str] | None]:
    """(element copies, text, attribute) that ``what`` stands for."""
    if what.startswith("<"):
        return _construct(what, prolog, namespaces)
    if what[:1] in "\"'":
        return [], _unquote(what), None
    if ma := _ATTRIBUTE.match(what):
        return [], None, (ma.group("name"), _value_text(doc, prolog, ma.group("value").strip(),
                                                        namespaces, resolver))
    if mv := _VARIABLE.match(what):
        if resolver is None:
            raise tsql_error(2209, METHOD, what)
        v = resolver(mv.group("kind"), mv.group("name"))
        if is_xml(v):
            return [copy.deepcopy(c) for c in v.root], v.root.text, None
        return [], None if v is None else str(v), None
    result, _tr = doc.evaluate(prolog + what, namespaces, resolver, METHOD)
    items = result if isinstance(result, list) else [result]
    elements = [copy.deepcopy(i) for i in items if isinstance(i, etree._Element)]
    texts = "".join(str(i) for i in items if not isinstance(i, etree._Element))
    return elements, texts or None, None


def _construct(what: str, prolog: str, namespaces: dict[str, str] | None
               ) -> tuple[list[Any], str | None, None]:
    """Parse a written-out constructor with the query's namespaces in scope (so ``<b/>``
    under ``declare default element namespace`` is in that namespace)."""
    try:
        wrapper = etree.fromstring(f"<w{namespace_decls(prolog, namespaces, METHOD)}>{what}</w>")
    except etree.XMLSyntaxError as e:
        raise tsql_error(2209, METHOD, (e.msg or what)[:40]) from None
    strip_blank(wrapper)
    return [copy.deepcopy(c) for c in wrapper], wrapper.text, None


def _insert(doc: XmlDocument, what: str, where: str, targets: list[Any],
            namespaces: dict[str, str] | None, resolver: Resolver | None, prolog: str) -> None:
    if len(targets) != 1 or not isinstance(targets[0], etree._Element):
        found = "empty-sequence()" if not targets else "node()*"
        raise tsql_error(2226, METHOD, "insert", found)
    target = targets[0]
    elements, text, attribute = _content(doc, what, namespaces, resolver, prolog)
    if attribute is not None:
        if where not in ("into", "as first into", "as last into"):
            raise tsql_error(2226, METHOD, "insert", "attribute")
        target.set(attribute[0], attribute[1])
        return
    if where in ("into", "as last into"):
        if text:
            last = target[-1] if len(target) else None
            append_text(target, last, text)
        for el in elements:
            target.append(el)
    elif where == "as first into":
        for el in reversed(elements):
            target.insert(0, el)
        if text:
            target.text = text + (target.text or "")
    else:
        parent = target.getparent()
        if parent is None:
            raise tsql_error(2226, METHOD, "insert", "document-node()")
        index = parent.index(target) + (1 if where == "after" else 0)
        for offset, el in enumerate(elements):
            parent.insert(index + offset, el)
        if text:
            anchor = elements[-1] if elements else (target if where == "after" else None)
            if anchor is None:
                prev = target.getprevious()
                append_text(parent, prev, text)
            else:
                anchor.tail = text + (anchor.tail or "")


# ------------------------------------------------------------------------------- delete
def _delete(node: Any) -> None:
    if isinstance(node, etree._Element):
        parent = node.getparent()
        if parent is None:
            return
        if node.tail:  # keep the text that followed the deleted element
            prev = node.getprevious()
            append_text(parent, prev, node.tail)
        parent.remove(node)
    elif getattr(node, "is_attribute", False):
        owner = node.getparent()
        if owner is not None:
            del owner.attrib[node.attrname]
    elif getattr(node, "is_text", False):
        node.getparent().text = None
    elif getattr(node, "is_tail", False):
        node.getparent().tail = None


# ------------------------------------------------------------------------------ replace
def _value_text(doc: XmlDocument, prolog: str, expr: str, namespaces: dict[str, str] | None,
                resolver: Resolver | None) -> str:
    """The text an expression yields (a string, a number, sql:variable or an XQuery)."""
    if expr[:1] in "\"'" and expr[-1:] == expr[:1]:
        return _unquote(expr)
    result, _tr = doc.evaluate(prolog + expr, namespaces, resolver, METHOD)
    if isinstance(result, list):
        return " ".join(atom_text(i) for i in result)
    return atom_text(result)


def _replace(node: Any, text: str) -> None:
    if isinstance(node, etree._Element):
        for child in list(node):
            node.remove(child)
        node.text = text
    elif getattr(node, "is_attribute", False):
        node.getparent().set(node.attrname, text)
    elif getattr(node, "is_text", False):
        node.getparent().text = text
    elif getattr(node, "is_tail", False):
        node.getparent().tail = text


def _unquote(s: str) -> str:
    return s[1:-1].replace(s[0] * 2, s[0])
