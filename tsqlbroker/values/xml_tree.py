"""Helpers on parsed xml trees (lxml elements) shared by the xml value, the XQuery evaluator
and XML DML, and what those two need of an xml value (:class:`XmlDocument`).

This module imports neither :mod:`xml_value` nor the modules it calls, so that
:mod:`xml_value` can import :mod:`xquery_eval` and :mod:`xml_modify` at the top without a cycle.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any, Protocol

from lxml import etree

from tsqlbroker.values.xquery import DEFAULT_PREFIX, Translated, translate

Resolver = Callable[[str, str], Any]  # (kind 'variable'|'column', name) -> value


class XmlDocument(Protocol):
    """An xml value as the XQuery evaluator and XML DML use it (an ``XmlValue``)."""

    sql_type_name: str

    @property
    def root(self) -> Any:
        """The wrapper element holding the document's or fragment's nodes."""

    def evaluate(self, query: str, namespaces: dict[str, str] | None, resolver: Resolver | None,
                 method: str, bound: dict[str, Any] | None = None) -> tuple[Any, Translated]:
        """The XPath result of ``query`` and its translation."""

    def copy(self) -> XmlDocument:
        """A deep copy (XML DML changes the copy)."""


def is_xml(value: Any) -> bool:
    """Is ``value`` an xml value (an :class:`XmlDocument`)?"""
    return getattr(value, "sql_type_name", None) == "xml"


def strip_blank(el: Any) -> None:
    """Drop whitespace-only text nodes (SQL Server keeps them only with xml:space)."""
    preserve = "{http://www.w3.org/XML/1998/namespace}space"
    stack = [el]
    while stack:
        e = stack.pop()
        if e.get(preserve) == "preserve":
            continue
        if e.text is not None and not e.text.strip():
            e.text = None
        for child in e:
            if child.tail is not None and not child.tail.strip():
                child.tail = None
            if isinstance(child.tag, str):
                stack.append(child)


def append_text(parent: Any, last: Any, text: str) -> None:
    """Add ``text`` after ``last`` (a child of ``parent``), or at the start when None."""
    if last is None:
        parent.text = (parent.text or "") + text
    else:
        last.tail = (last.tail or "") + text


def atom_text(item: Any) -> str:
    """The text of an XPath result item: an element's string value, XQuery's spelling of a
    boolean or number, else ``str``."""
    if isinstance(item, etree._Element):
        return "".join(item.itertext())
    if isinstance(item, bool):
        return "true" if item else "false"
    if isinstance(item, float):
        if math.isnan(item):
            return "NaN"
        if item.is_integer() and abs(item) < 1e15:
            return str(int(item))
        return repr(item)
    return str(item)


def namespace_decls(prolog: str, namespaces: dict[str, str] | None, method: str) -> str:
    """``xmlns`` attributes declaring the namespaces in scope for a constructor: those of
    WITH XMLNAMESPACES and of the query prolog."""
    declared = translate(prolog + ".", tuple(sorted((namespaces or {}).items())), method)
    return "".join(
        f' xmlns="{uri}"' if prefix == DEFAULT_PREFIX else f' xmlns:{prefix}="{uri}"'
        for prefix, uri in declared.namespaces)
