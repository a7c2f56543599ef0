"""Message-body validation as the receiving broker does it: EMPTY, WELL_FORMED_XML and
VALID_XML (against the XSDs of an XML schema collection), with lxml.

Bodies are ``varbinary``: T-SQL code usually sends ``CAST(@xml AS varbinary(max))`` or an
``nvarchar`` (UTF-16LE without BOM), sometimes UTF-8 or UTF-16 with a BOM; all are accepted.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from lxml import etree
else:
    # lxml loads when a body is first validated, not at start-up.
    from tsqlbroker.lazy import LazyModule

    etree = LazyModule("lxml.etree", globals(), "etree")

_DECL = re.compile(r"^\s*<\?xml[^>]*\?>", re.DOTALL)
_parser_instance: Any = None


def _parser() -> Any:
    """The one XML parser (no entity expansion, no network), made on first use."""
    global _parser_instance
    if _parser_instance is None:
        _parser_instance = etree.XMLParser(resolve_entities=False, no_network=True)
    return _parser_instance
_compiled: dict[tuple[str, ...], list[tuple[str | None, etree.XMLSchema]]] = {}
_compiled_lock = threading.Lock()


class SchemaError(ValueError):
    """An XSD that does not compile (the message says why)."""


def decode_body(body: bytes) -> str:
    """The text of an XML message body (UTF-16 with/without BOM, or UTF-8)."""
    if body.startswith(b"\xef\xbb\xbf"):
        return body[3:].decode("utf-8")
    if body.startswith(b"\xff\xfe"):
        return body[2:].decode("utf-16-le")
    if body.startswith(b"\xfe\xff"):
        return body[2:].decode("utf-16-be")
    if len(body) >= 2 and len(body) % 2 == 0 and body[1] == 0 and body[0] != 0:
        return body.decode("utf-16-le")
    if len(body) >= 2 and len(body) % 2 == 0 and body[0] == 0 and body[1] != 0:
        return body.decode("utf-16-be")
    return body.decode("utf-8")


def parse_content(text: str) -> list[etree._Element]:
    """The top-level elements of XML *content*: like SQL Server's untyped ``xml``, a body may
    be a fragment with several top-level elements (``<id>1</id><ackid>1</ackid>``) or text."""
    body = _DECL.sub("", text, count=1)
    try:
        return [etree.fromstring(body.encode("utf-8"), _parser())]
    except etree.XMLSyntaxError as first:
        try:
            root = etree.fromstring(f"<r>{body}</r>".encode(), _parser())
        except etree.XMLSyntaxError:
            raise first from None
    return [child for child in root if isinstance(child.tag, str)]


def well_formed_error(body: bytes | None) -> str | None:
    """None if ``body`` is well-formed XML content (NULL counts as empty), else why not."""
    if not body:
        return None
    try:
        parse_content(decode_body(body))
    except (etree.XMLSyntaxError, UnicodeDecodeError, ValueError) as exc:
        return str(exc) or "The XML is not well-formed."
    return None


def split_schemas(xsd_text: str) -> list[etree._Element]:
    """The ``xsd:schema`` elements of a collection's text (one or several documents)."""
    body = _DECL.sub("", xsd_text.strip(), count=1)
    try:
        return [etree.fromstring(body.encode("utf-8"), _parser())]
    except etree.XMLSyntaxError:
        try:
            root = etree.fromstring(f"<r>{body}</r>".encode(), _parser())
        except etree.XMLSyntaxError as exc:
            raise SchemaError(str(exc)) from exc
        return [child for child in root if isinstance(child.tag, str)]


def compile_schemas(texts: Sequence[str]) -> list[tuple[str | None, etree.XMLSchema]]:
    """Compile every schema of ``texts`` → [(targetNamespace, XMLSchema)] (cached)."""
    key = tuple(texts)
    with _compiled_lock:
        hit = _compiled.get(key)
    if hit is not None:
        return hit
    out = []
    for text in texts:
        for doc in split_schemas(text):
            try:
                out.append((doc.get("targetNamespace"), etree.XMLSchema(doc)))
            except etree.XMLSchemaParseError as exc:
                raise SchemaError(str(exc)) from exc
    with _compiled_lock:
        _compiled[key] = out
    return out


def target_namespaces(xsd_text: str) -> list[str | None]:
    """The targetNamespace of each schema in ``xsd_text`` (raises SchemaError if invalid)."""
    docs = split_schemas(xsd_text)
    for doc in docs:
        try:
            etree.XMLSchema(doc)
        except etree.XMLSchemaParseError as exc:
            raise SchemaError(str(exc)) from exc
    return [doc.get("targetNamespace") for doc in docs]


def valid_error(body: bytes | None, texts: Sequence[str]) -> str | None:
    """None if every top-level element of ``body`` validates against the schema (of
    ``texts``) for its namespace, else the reason."""
    if not body:
        return None
    try:
        elements = parse_content(decode_body(body))
    except (etree.XMLSyntaxError, UnicodeDecodeError, ValueError) as exc:
        return str(exc) or "The XML is not well-formed."
    schemas = compile_schemas(texts)
    for element in elements:
        ns = etree.QName(element).namespace
        match = [schema for target, schema in schemas if (target or None) == (ns or None)]
        if not match:
            return (f"XML Validation: Declaration not found for element "
                    f"'{etree.QName(element).localname}' in namespace '{ns or ''}'.")
        doc = etree.ElementTree(element)
        if not match[0].validate(doc):
            err = match[0].error_log.last_error
            return f"XML Validation: {err.message if err is not None else 'invalid content'}"
    return None
