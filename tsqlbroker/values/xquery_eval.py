"""The parts of XQuery that XPath 1.0 cannot express, evaluated in Python for ``query()``:
element constructors with enclosed expressions (``<root>{/r/a}</root>``, ``<a id="{@id}"/>``)
and FLWOR expressions ``for $v in … [where …] [order by … [descending]] return …``.

Everything inside them (sources, conditions, keys, enclosed expressions) is still an XPath
translated by :mod:`xquery`, with ``$v`` bound to the current node.
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
    atom_text,
    namespace_decls,
    strip_blank,
)

METHOD = "query()"
_PROLOG = re.compile(r"^\s*((?:declare\s+[^;]*;\s*)*)(.*)$", re.DOTALL)
_FLWOR = re.compile(
    r"^for\s+\$(?P<var>[A-Za-z_][\w.-]*)\s+in\s+(?P<src>.+?)"
    r"(?:\s+where\s+(?P<where>.+?))?"
    r"(?:\s+order\s+by\s+(?P<key>.+?)(?:\s+(?P<dir>ascending|descending))?)?"
    r"\s+return\s+(?P<ret>.+)$", re.DOTALL)
_SLOT = "tsql__slot"
_MARK = "\ue000"  # a private-use character: legal in XML, never in a query's own text
_MARK_RE = re.compile(_MARK + r"(\d+)" + _MARK)


def _split(query: str) -> tuple[str, str]:
    m = _PROLOG.match(query)
    return (m.group(1), m.group(2).strip()) if m else ("", query.strip())


def is_extended(query: str) -> bool:
    """Does ``query`` need this evaluator (a constructor or a FLWOR at the top)?"""
    body = _split(query)[1]
    return body.startswith("<") or bool(re.match(r"for\s+\$", body))


def evaluate(doc: XmlDocument, query: str, namespaces: dict[str, str] | None,
             resolver: Resolver | None) -> list[Any]:
    """The items (nodes and atomic values) ``query`` yields over ``doc``."""
    prolog, body = _split(query)
    return _items(doc, body, prolog, namespaces, resolver, {})


def _items(doc: XmlDocument, body: str, prolog: str, namespaces: dict[str, str] | None,
           resolver: Resolver | None, bound: dict[str, Any]) -> list[Any]:
    body = body.strip()
    if body.startswith("<"):
        return _construct(doc, body, prolog, namespaces, resolver, bound)
    if m := _FLWOR.match(body):
        return _flwor(doc, m, prolog, namespaces, resolver, bound)
    if body.startswith(("for ", "let ")):
        raise tsql_error(2209, METHOD, body.split()[0])
    result, _tr = doc.evaluate(prolog + body, namespaces, resolver, METHOD, bound)
    return result if isinstance(result, list) else [result]


def _flwor(doc: XmlDocument, m: re.Match[str], prolog: str, namespaces: dict[str, str] | None,
           resolver: Resolver | None, bound: dict[str, Any]) -> list[Any]:
    var = m.group("var")
    rows: list[tuple[Any, list[Any]]] = []
    for node in _items(doc, m.group("src"), prolog, namespaces, resolver, bound):
        env = {**bound, var: [node]}
        if m.group("where"):
            ok, _tr = doc.evaluate(f"{prolog}boolean({m.group('where')})", namespaces, resolver,
                                METHOD, env)
            if not ok:
                continue
        key: Any = None
        if m.group("key"):
            key, _tr = doc.evaluate(f"{prolog}string({m.group('key')})", namespaces, resolver,
                                 METHOD, env)
        rows.append((key, _items(doc, m.group("ret"), prolog, namespaces, resolver, env)))
    if m.group("key"):
        keys = [k for k, _r in rows]
        numeric = all(_is_number(k) for k in keys)
        rows.sort(key=lambda r: float(r[0]) if numeric else str(r[0]),
                  reverse=m.group("dir") == "descending")
    return [item for _k, items in rows for item in items]


def _is_number(text: Any) -> bool:
    try:
        float(text)
    except (TypeError, ValueError):
        return False
    return True


def _enclosed(template: str) -> tuple[str, list[str]]:
    """Replace each ``{expr}`` by a slot marker; ``{{`` and ``}}`` stand for braces."""
    out: list[str] = []
    exprs: list[str] = []
    i = 0
    while i < len(template):
        c = template[i]
        if c in "{}" and template[i:i + 2] in ("{{", "}}"):
            out.append(c)
            i += 2
            continue
        if c == "{":
            depth, j = 1, i + 1
            while j < len(template) and depth:
                depth += {"{": 1, "}": -1}.get(template[j], 0)
                j += 1
            if depth:
                raise tsql_error(2209, METHOD, template[i:i + 20])
            exprs.append(template[i + 1:j - 1])
            out.append(f"{_MARK}{len(exprs) - 1}{_MARK}")
            i = j
            continue
        out.append(c)
        i += 1
    return "".join(out), exprs


def _construct(doc: XmlDocument, template: str, prolog: str, namespaces: dict[str, str] | None,
               resolver: Resolver | None, bound: dict[str, Any]) -> list[Any]:
    text, exprs = _enclosed(template)
    values = [_items(doc, e, prolog, namespaces, resolver, bound) for e in exprs]
    try:
        wrapper = etree.fromstring(
            f"<w{namespace_decls(prolog, namespaces, METHOD)}>{_slots(text)}</w>")
    except etree.XMLSyntaxError as e:
        raise tsql_error(2209, METHOD, (e.msg or template)[:40]) from None
    strip_blank(wrapper)
    for el in wrapper.iter():
        for name, value in list(el.attrib.items()):
            if _MARK in value:
                el.set(name, _MARK_RE.sub(lambda mm: " ".join(
                    atom_text(v) for v in values[int(mm.group(1))]), value))
    # a slot takes the default namespace in scope, so match it by local name
    slots = [e for e in wrapper.iter() if isinstance(e.tag, str)
             and etree.QName(e).localname == _SLOT]
    for slot in slots:
        _fill(slot, values[int(slot.get("i"))])
    return [copy.deepcopy(c) for c in wrapper]


def _slots(text: str) -> str:
    """Marks in element content become slot elements; marks inside attribute values stay
    (they are filled in after parsing)."""
    out: list[str] = []
    in_tag, quote = False, ""
    i = 0
    while i < len(text):
        ch = text[i]
        if ch == _MARK and not quote:
            j = text.index(_MARK, i + 1)
            out.append(f'<{_SLOT} i="{text[i + 1:j]}"/>')
            i = j + 1
            continue
        if quote:
            if ch == quote:
                quote = ""
        elif in_tag and ch in "\"'":
            quote = ch
        elif ch == "<":
            in_tag = True
        elif ch == ">":
            in_tag = False
        out.append(ch)
        i += 1
    return "".join(out)


def _fill(slot: Any, items: list[Any]) -> None:
    parent = slot.getparent()
    index = parent.index(slot)
    prev = slot.getprevious()
    text_parts: list[str] = []
    inserted: list[Any] = []
    last_atomic = False
    for item in items:
        if isinstance(item, etree._Element):
            inserted.append(copy.deepcopy(item))
            inserted[-1].tail = None
            last_atomic = False
        else:
            piece = (" " if last_atomic else "") + atom_text(item)
            if inserted:
                inserted[-1].tail = (inserted[-1].tail or "") + piece
            else:
                text_parts.append(piece)
            last_atomic = True
    lead = "".join(text_parts)
    if lead:
        if prev is None:
            parent.text = (parent.text or "") + lead
        else:
            prev.tail = (prev.tail or "") + lead
    for offset, el in enumerate(inserted):
        parent.insert(index + offset, el)
    tail = slot.tail
    parent.remove(slot)
    if tail:
        anchor = inserted[-1] if inserted else (prev if prev is not None else None)
        if anchor is None:
            parent.text = (parent.text or "") + tail
        else:
            anchor.tail = (anchor.tail or "") + tail
