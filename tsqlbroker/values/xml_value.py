"""The ``xml`` value: parsing (text and bytes), SQL Server's serialisation, and the methods
``value()``, ``query()``, ``exist()`` and ``nodes()``.

An xml value may be a document or a fragment (``<id>1</id><ackid>1</ackid>``, bare text), so
the parsed nodes live under a private wrapper element; absolute XQuery paths start at that
wrapper (see :mod:`xquery`). Whitespace-only text nodes are dropped on parse, as SQL Server
drops insignificant whitespace, and serialisation writes no declaration and ``<a />`` for
empty elements.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Callable
from decimal import Decimal
from functools import lru_cache
from typing import Any

from lxml import etree

from tsqlbroker.errors import TSqlError, tsql_error
from tsqlbroker.values.convert import converter
from tsqlbroker.values.types import NVARCHAR_MAX, SqlType, parse_type_spec
from tsqlbroker.values.xml_modify import modify
from tsqlbroker.values.xml_tree import Resolver, append_text, atom_text, strip_blank
from tsqlbroker.values.xquery import ROOT_VAR, Translated, translate
from tsqlbroker.values.xquery_eval import evaluate, is_extended

_WRAP = "tsql__fragment"
_OPEN = f"<{_WRAP}>"
_CLOSE = f"</{_WRAP}>"
_DECL = re.compile(r"^\s*<\?xml\s[^>]*\?>", re.IGNORECASE)
_ENCODING = re.compile(rb"""^\s*<\?xml[^>]*encoding\s*=\s*["']([A-Za-z0-9._-]+)["']""")
_PARSER = etree.XMLParser(resolve_entities=False, huge_tree=True, remove_comments=False)

def _error_number(msg: str) -> int:
    m = msg.lower()
    if "tag mismatch" in m or "ending tag" in m:
        return 9436
    if "premature end" in m or "not found" in m and "endtag" in m:
        return 9400
    if "xml declaration allowed only" in m:
        return 9438
    if "expected ';'" in m or "expecting ';'" in m:
        return 9411
    if "attvalue" in m or "space required" in m:
        return 9410
    if "invalid element name" in m or "entityref" in m or "name" in m:
        return 9421
    if "char" in m:
        return 9420
    return 9421


def _parse_error(text: str, e: etree.XMLSyntaxError) -> TSqlError:
    line, col = e.position if e.position else (1, 1)
    msg = e.msg or ""
    lines = text.split("\n")
    number = _error_number(msg)
    if f"and {_WRAP}" in msg or line > len(lines):
        number = 9400  # ran into our wrapper's end tag: the input ended inside an element
        line, col = len(lines), len(lines[-1]) + 1 if lines else 1
    elif line == 1:
        col -= len(_OPEN)
    return tsql_error(number, line, max(col, 1))


class XmlValue:
    """A parsed xml document or fragment (or, from ``nodes()``, a context node in one)."""

    __slots__ = ("_node", "_root", "_text")
    # values.types.type_of_value reads this: the values layer's types module cannot import
    # this module (it imports types).
    sql_type_name = "xml"

    def __init__(self, root: Any, node: Any = None) -> None:
        self._root = root
        self._node = root if node is None else node
        self._text: str | None = None

    # ------------------------------------------------------------------------- building
    @classmethod
    def parse(cls, text: str, source: str | None = None) -> XmlValue:
        """Parse xml text (a document, a fragment, or text); Msg 94xx on malformed input.

        ``source`` is the string type converted from (``'nvarchar'`` / ``'varchar'``): as
        in SQL Server, a declaration naming a byte encoding in unicode text, or UTF-16 in
        single-byte text, fails with Msg 9402."""
        body = text
        if text.lstrip().startswith("<?"):
            m = _DECL.match(text)
            if m:
                _check_encoding(m.group(0), source)
                body = text[m.end():]
        body = body.removeprefix("\ufeff")
        try:
            root = etree.fromstring(_OPEN + body + _CLOSE, _PARSER)
        except etree.XMLSyntaxError as e:
            raise _parse_error(body, e) from None
        strip_blank(root)
        return cls(root)

    @classmethod
    def from_bytes(cls, data: bytes) -> XmlValue:
        """Parse xml bytes: UTF-16 (with or without BOM), UTF-8 (with or without BOM or
        declaration), or the encoding the declaration names."""
        b = bytes(data)
        if b.startswith(b"\xff\xfe"):
            text = b[2:].decode("utf-16-le", "replace")
        elif b.startswith(b"\xfe\xff"):
            text = b[2:].decode("utf-16-be", "replace")
        elif b.startswith(b"\xef\xbb\xbf"):
            text = b[3:].decode("utf-8", "replace")
        elif len(b) >= 2 and b[1] == 0 and b[0] != 0:
            text = b.decode("utf-16-le", "replace")
        elif len(b) >= 2 and b[0] == 0 and b[1] != 0:
            text = b.decode("utf-16-be", "replace")
        else:
            m = _ENCODING.match(b)
            enc = m.group(1).decode() if m else "utf-8"
            try:
                text = b.decode(enc)
            except (LookupError, UnicodeDecodeError):
                raise tsql_error(9402, 1, 1) from None
        return cls.parse(text)

    @classmethod
    def of_nodes(cls, items: list[Any]) -> XmlValue:
        """A new fragment holding copies of ``items`` (nodes and atomic values)."""
        root = etree.Element(_WRAP)
        last: Any = None
        prev_atomic = False
        for item in items:
            atomic = not isinstance(item, etree._Element)
            if isinstance(item, etree._Element):
                if item.tag == _WRAP:
                    for child in item:
                        root.append(_copy(child))
                        last = root[-1]
                    if item.text:
                        append_text(root, last, item.text)
                    continue
                root.append(_copy(item))
                last = root[-1]
            else:
                # adjacent atomic values serialise separated by one space
                text = (" " if prev_atomic else "") + atom_text(item)
                append_text(root, last, text)
            prev_atomic = atomic
        return cls(root)

    # ---------------------------------------------------------------------------- text
    def to_string(self) -> str:
        """The value as SQL Server writes it: no declaration, ``<a />``, ``&lt;`` …"""
        if self._text is None:
            node = self._node
            if isinstance(node, str):
                self._text = _escape_text(str(node))
            elif node is self._root or node.tag == _WRAP:
                self._text = _serialize_children(node, {})
            else:
                out: list[str] = []
                _serialize(node, _inherited_ns(node), out)
                self._text = "".join(out)
        return self._text

    def __str__(self) -> str:
        return self.to_string()

    def __repr__(self) -> str:
        return f"XmlValue({self.to_string()!r})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, XmlValue) and self.to_string() == other.to_string()

    def __hash__(self) -> int:
        return hash(self.to_string())

    # ------------------------------------------------------------------------- methods
    @property
    def root(self) -> Any:
        """The wrapper element holding the document's or fragment's nodes."""
        return self._root

    def copy(self) -> XmlValue:
        """A deep copy of the whole document (XML DML changes the copy)."""
        return XmlValue(copy.deepcopy(self._root))

    def evaluate(self, query: str, namespaces: dict[str, str] | None, resolver: Resolver | None,
                 method: str, bound: dict[str, Any] | None = None) -> tuple[Any, Translated]:
        """The XPath result of ``query`` (translated for ``method``) on this value, with
        ``sql:variable`` / ``sql:column`` read through ``resolver``."""
        tr = translate(query, tuple(sorted((namespaces or {}).items())), method)
        variables: dict[str, Any] = {ROOT_VAR: [self._root], **(bound or {})}
        for i, (kind, name) in enumerate(tr.externals):
            if resolver is None:
                raise tsql_error(2209, method, f"sql:{kind}")
            variables[f"__v{i}"] = _xpath_value(resolver(kind, name))
        ctx = self._node
        if isinstance(ctx, str):  # an attribute/text context node: evaluate on its parent
            parent = ctx.getparent() if hasattr(ctx, "getparent") else None
            if tr.xpath in (".", "data(.)", "string(.)", "(.)"):
                return [ctx], tr
            ctx = parent if parent is not None else self._root
        try:
            result = ctx.xpath(tr.xpath, namespaces=dict(tr.namespaces) or None,
                               **variables)
        except etree.XPathError as e:
            raise tsql_error(2209, method, query.strip()[:40] or str(e)) from None
        if tr.aggregate:
            result = _aggregate(tr.aggregate, result)
        elif tr.atomize and isinstance(result, list):
            result = [atom_text(item) for item in result]
        return result, tr

    def value(self, query: str, sqltype: Any, namespaces: dict[str, str] | None = None,
              resolver: Resolver | None = None) -> Any:
        """``xml.value(query, 'type')``: one atomic value converted to ``sqltype`` (a SqlType
        or type spec); Msg 2389 unless the query is statically a singleton."""
        tr = translate(query, tuple(sorted((namespaces or {}).items())), "value()")
        if not tr.singleton:
            raise tsql_error(2389, "value()", "value()", "xdt:untypedAtomic *")
        result, _ = self.evaluate(query, namespaces, resolver, "value()")
        target = sqltype if isinstance(sqltype, SqlType) else parse_type_spec(str(sqltype))
        if isinstance(result, list):
            if not result:
                return None
            result = result[0]
        return _value_converter(target)(atom_text(result))

    def query(self, query: str, namespaces: dict[str, str] | None = None,
              resolver: Resolver | None = None) -> XmlValue:
        """``xml.query(query)``: the resulting sequence as a new xml value (paths, and also
        element constructors with ``{…}`` and ``for … where … order by … return``)."""
        if is_extended(query):
            return XmlValue.of_nodes(evaluate(self, query, namespaces, resolver))
        result, _ = self.evaluate(query, namespaces, resolver, "query()")
        items = result if isinstance(result, list) else [result]
        return XmlValue.of_nodes(items)

    def exist(self, query: str, namespaces: dict[str, str] | None = None,
              resolver: Resolver | None = None) -> int:
        """``xml.exist(query)``: 1 if the result is not empty (or is true), else 0."""
        result, _ = self.evaluate(query, namespaces, resolver, "exist()")
        if isinstance(result, list):
            return 1 if result else 0
        if isinstance(result, bool):
            return 1 if result else 0
        return 1

    def modify(self, dml: str, namespaces: dict[str, str] | None = None,
               resolver: Resolver | None = None) -> XmlValue:
        """``xml.modify(dml)``: a new value with the XML DML (insert / delete / replace
        value of) applied; assign it back to the variable or column."""
        return modify(self, dml, namespaces, resolver)

    def nodes(self, query: str, namespaces: dict[str, str] | None = None,
              resolver: Resolver | None = None) -> list[XmlValue]:
        """``xml.nodes(query)``: one context-node value per resulting node."""
        result, _ = self.evaluate(query, namespaces, resolver, "nodes()")
        if not isinstance(result, list):
            raise tsql_error(2209, "nodes()", query.strip()[:40])
        return [XmlValue(self._root, node) for node in result]


# ------------------------------------------------------------------------------- helpers
@lru_cache(maxsize=256)
def stored_xml_text(text: str) -> str:
    """The text SQL Server gives back for xml text it stored: parsed and written again as
    it writes xml (``<a></a>`` and ``<a/>`` are ``<a />``, no declaration, blank text
    nodes dropped), whichever store kept it and however the text got there. Text that does
    not parse (none reaches a column through a conversion) comes back as it is."""
    try:
        return XmlValue.parse(text).to_string()
    except TSqlError:
        return text


@lru_cache(maxsize=256)
def _value_converter(target: Any) -> Callable[[Any], Any]:
    """value()'s conversion of the atomic text to the requested SQL type (built once)."""
    return converter(NVARCHAR_MAX, target)


_DECL_ENCODING = re.compile(r"""encoding\s*=\s*["']([A-Za-z0-9._-]+)["']""", re.IGNORECASE)


def _check_encoding(decl: str, source: str | None) -> None:
    """Msg 9402 when the declared encoding cannot describe text of the source type."""
    m = _DECL_ENCODING.search(decl)
    if m is None or source is None:
        return
    enc = m.group(1).lower().replace("_", "-")
    wide = enc in ("utf-16", "utf-16le", "utf-16be", "ucs-2", "unicode")
    if (source == "nvarchar" and not wide) or (source == "varchar" and wide):
        raise tsql_error(9402, 1, len(decl.lstrip()))


def _copy(el: Any) -> Any:
    c = copy.deepcopy(el)
    c.tail = None
    return c


def _xpath_value(v: Any) -> Any:
    if v is None:
        return ""
    if isinstance(v, bool):
        return v
    if isinstance(v, (int, float)):
        return float(v)
    if isinstance(v, XmlValue):
        return v.to_string()
    if isinstance(v, bytes):
        return "0x" + v.hex().upper()
    try:
        if isinstance(v, Decimal):
            return float(v)
    except ImportError:  # pragma: no cover
        pass
    return str(v).upper() if type(v).__name__ == "UUID" else str(v)


def _aggregate(name: str, result: Any) -> Any:
    values = result if isinstance(result, list) else [result]
    if name == "distinct-values":
        seen: list[str] = []
        for v in values:
            t = atom_text(v)
            if t not in seen:
                seen.append(t)
        return seen
    nums = []
    for v in values:
        try:
            nums.append(float(atom_text(v)))
        except ValueError:
            raise tsql_error(2209, f"{name}()", atom_text(v)[:40]) from None
    if not nums:
        return []
    if name == "avg":
        return sum(nums) / len(nums)
    return max(nums) if name == "max" else min(nums)


def _escape_text(s: str) -> str:
    return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace(
        "\r", "&#xD;")


def _escape_attr(s: str) -> str:
    return _escape_text(s).replace('"', "&quot;").replace("\t", "&#x9;").replace(
        "\n", "&#xA;")


def _inherited_ns(el: Any) -> dict[str | None, str]:
    parent = el.getparent()
    return dict(parent.nsmap) if parent is not None else {}


def _qname(el: Any, tag: str) -> str:
    if tag.startswith("{"):
        uri, local = tag[1:].split("}", 1)
        prefix = el.prefix if el.tag == tag else None
        if el.tag != tag:  # an attribute: find a prefix bound to its namespace
            for p, u in el.nsmap.items():
                if u == uri and p:
                    prefix = p
                    break
            if uri == "http://www.w3.org/XML/1998/namespace":
                prefix = "xml"
        return f"{prefix}:{local}" if prefix else local
    return tag


def _serialize_children(el: Any, ns: dict[str | None, str]) -> str:
    out: list[str] = []
    if el.text:
        out.append(_escape_text(el.text))
    for child in el:
        _serialize(child, dict(el.nsmap) if el.tag != _WRAP else ns, out)
    return "".join(out)


def _serialize(el: Any, parent_ns: dict[str | None, str], out: list[str]) -> None:
    if isinstance(el, etree._Comment):
        out.append(f"<!--{el.text or ''}-->")
    elif isinstance(el, etree._ProcessingInstruction):
        out.append(f"<?{el.target} {el.text or ''}?>" if el.text else f"<?{el.target}?>")
    elif isinstance(el, etree._Entity):
        out.append(f"&{el.name};")
    else:
        name = _qname(el, el.tag)
        parts = [name]
        scope = dict(parent_ns)
        unqualified = not el.tag.startswith("{")
        for prefix, uri in el.nsmap.items():
            if prefix is None and unqualified:
                continue  # lxml reports the inherited default; this element is not in it
            if scope.get(prefix) != uri:
                parts.append(f'xmlns:{prefix}="{_escape_attr(uri)}"' if prefix else
                             f'xmlns="{_escape_attr(uri)}"')
                scope[prefix] = uri
        if unqualified and scope.get(None):
            parts.append('xmlns=""')  # undeclare the default namespace, as SQL Server writes
            scope[None] = ""
        for k, v in el.attrib.items():
            parts.append(f'{_qname(el, k)}="{_escape_attr(v)}"')
        head = " ".join(parts)
        if el.text is None and len(el) == 0:
            out.append(f"<{head} />")
        else:
            out.append(f"<{head}>")
            if el.text:
                out.append(_escape_text(el.text))
            for child in el:
                _serialize(child, scope, out)
            out.append(f"</{name}>")
    if el.tail:
        out.append(_escape_text(el.tail))
