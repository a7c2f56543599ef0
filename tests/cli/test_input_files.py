"""Script files as SSMS and editors save them: ``parse``, ``run`` and ``:r`` read UTF-8 (with
or without a BOM) and UTF-16 (either byte order, with or without a BOM) alike; other bytes get
one line naming the file, the offset and the line.

Reading a file happens before any store is involved, so these run on ``sqlite://`` only."""

from __future__ import annotations

import codecs
from pathlib import Path

import pytest

from tsqlbroker.grammar.scriptfile import ScriptEncodingError, decode_script, read_script
from tsqlbroker.repl.cli import main

TEXT = "PRINT N'héllo ☃'\r\nGO\r\nPRINT 'two'\r\n"
ENCODINGS = {
    "utf-8": TEXT.encode("utf-8"),
    "utf-8 BOM": codecs.BOM_UTF8 + TEXT.encode("utf-8"),
    "utf-16-le BOM": codecs.BOM_UTF16_LE + TEXT.encode("utf-16-le"),
    "utf-16-be BOM": codecs.BOM_UTF16_BE + TEXT.encode("utf-16-be"),
    "utf-16-le": TEXT.encode("utf-16-le"),
    "utf-16-be": TEXT.encode("utf-16-be"),
}


@pytest.mark.parametrize("name", ENCODINGS)
def test_every_encoding_reads_as_the_same_text(name: str, tmp_path: Path) -> None:
    path = tmp_path / "s.sql"
    path.write_bytes(ENCODINGS[name])
    assert read_script(path) == TEXT


@pytest.mark.parametrize("name", ENCODINGS)
def test_run_include_and_parse_agree(name: str, tmp_path: Path,
                                     capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "s.sql").write_bytes(ENCODINGS[name])
    (tmp_path / "main.sql").write_text(":r s.sql\nPRINT 'three'\n", encoding="utf-8")
    assert main(["parse", str(tmp_path / "s.sql")]) == 0
    assert main(["--url", "sqlite://", "run", str(tmp_path / "s.sql")]) == 0
    assert capsys.readouterr().out.splitlines() == ["héllo ☃", "two"]
    assert main(["--url", "sqlite://", "run", str(tmp_path / "main.sql")]) == 0
    assert capsys.readouterr().out.splitlines() == ["héllo ☃", "two", "three"]


def test_invalid_utf8_names_file_offset_and_line() -> None:
    data = b"PRINT 1\nPRINT 'caf\xe9'\n"
    with pytest.raises(ScriptEncodingError) as info:
        decode_script(data, "odd.sql")
    assert str(info.value) == ("Cannot read 'odd.sql': invalid UTF-8 byte 0xE9 at offset 18 "
                               "(line 2); scripts are UTF-8 or UTF-16 text.")


def test_invalid_utf16_names_its_line() -> None:
    # A lone low surrogate on the third line of a UTF-16-LE file with a BOM.
    data = codecs.BOM_UTF16_LE + "a\r\nb\r\n".encode("utf-16-le") + b"\x00\xdc" + b"c\x00"
    with pytest.raises(ScriptEncodingError) as info:
        decode_script(data, "u.sql")
    assert info.value.line == 3 and info.value.offset == 14
    assert "invalid UTF-16 byte" in str(info.value)


def test_bad_bytes_are_one_line_for_parse_run_and_include(tmp_path: Path,
                                                          capsys: pytest.CaptureFixture[str]
                                                          ) -> None:
    bad = tmp_path / "latin1.sql"
    bad.write_bytes(b"PRINT 'caf\xe9'\nGO\n")
    (tmp_path / "main.sql").write_text("PRINT 'one'\nGO\n:r latin1.sql\n", encoding="utf-8")
    reason = "invalid UTF-8 byte 0xE9 at offset 10 (line 1); scripts are UTF-8 or UTF-16 text"
    line = f"Cannot read '{bad}': {reason}."
    assert main(["parse", str(bad)]) == 1
    assert capsys.readouterr().err == f"{bad}: cannot read file: {reason}\n"
    assert main(["--url", "sqlite://", "run", str(bad)]) == 1
    assert capsys.readouterr().err == f"Sqlcmd: Error: {line}\n"
    assert main(["--url", "sqlite://", "run", str(tmp_path / "main.sql")]) == 1
    assert capsys.readouterr().err == f"Sqlcmd: Error: {line}\n"
