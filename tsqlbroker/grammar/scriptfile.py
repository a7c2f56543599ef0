"""Reading script files the way SSMS and sqlcmd write them, for ``parse``, ``run`` and ``:r``.

UTF-8 (with or without a byte-order mark) and UTF-16 (SSMS's "Unicode": little-endian with a
BOM; big-endian or without a BOM too, recognised by its NUL bytes, which no text script
holds). Bytes that are none of these raise :class:`ScriptEncodingError`, whose text names
the file, the offset and the line: one line for the command line to print.
"""

from __future__ import annotations

import codecs
from pathlib import Path

# How many leading bytes decide whether a file without a BOM is UTF-16.
_SNIFF = 4096


class ScriptEncodingError(ValueError):
    """A script file whose bytes are neither UTF-8 nor UTF-16 text."""

    def __init__(self, path: str, encoding: str, offset: int, line: int, byte: int) -> None:
        self.path = path
        self.encoding = encoding
        self.offset = offset
        self.line = line
        self.byte = byte
        self.reason = (f"invalid {encoding} byte 0x{byte:02X} at offset {offset} (line {line}); "
                       "scripts are UTF-8 or UTF-16 text")
        super().__init__(f"Cannot read '{path}': {self.reason}.")


def sniff_encoding(data: bytes) -> tuple[str, int]:
    """The encoding of a script's bytes and the length of its byte-order mark."""
    if data.startswith(codecs.BOM_UTF8):
        return "UTF-8", len(codecs.BOM_UTF8)
    if data.startswith(codecs.BOM_UTF16_LE):
        return "UTF-16-LE", 2
    if data.startswith(codecs.BOM_UTF16_BE):
        return "UTF-16-BE", 2
    head = data[:_SNIFF]
    if len(head) >= 2 and b"\x00" in head:
        # ASCII text in UTF-16 has a NUL in every other byte: odd offsets for little-endian.
        odd, even = head[1::2].count(0), head[0::2].count(0)
        if odd > even:
            return "UTF-16-LE", 0
        if even > odd:
            return "UTF-16-BE", 0
    return "UTF-8", 0


def decode_script(data: bytes, path: str) -> str:
    """The text of a script file's bytes (see the module docstring)."""
    encoding, bom = sniff_encoding(data)
    try:
        return codecs.decode(data[bom:], encoding)
    except UnicodeDecodeError as exc:
        offset = bom + exc.start
        raise ScriptEncodingError(path, encoding.replace("-LE", "").replace("-BE", ""), offset,
                                  _line_at(data, offset, encoding), data[offset]) from None


def read_script(path: str | Path) -> str:
    """A script file's text; OSError when it cannot be read, ScriptEncodingError when its
    bytes are not text."""
    with open(path, "rb") as f:
        data = f.read()
    return decode_script(data, str(path))


def _line_at(data: bytes, offset: int, encoding: str) -> int:
    """The 1-based line holding byte ``offset``."""
    if encoding == "UTF-8":
        return data.count(b"\n", 0, offset) + 1
    newline = "\n".encode(encoding)
    count = 0
    pos = data.find(newline)
    while 0 <= pos < offset:
        if pos % 2 == 0:  # code units start at even offsets
            count += 1
        pos = data.find(newline, pos + 1)
    return count + 1
