"""sp_helptext's line splitting (one row per line, 255-character pieces, line ends kept)."""

from __future__ import annotations

from tsqlbroker.interpreter.sysprocs import split_module_text


def test_lines_keep_their_ends() -> None:
    assert split_module_text("CREATE VIEW v\r\nAS SELECT 1") == ["CREATE VIEW v\r\n", "AS SELECT 1"]


def test_long_line_is_cut_at_255() -> None:
    rows = split_module_text("x" * 600 + "\n")
    assert [len(r) for r in rows] == [255, 255, 91]
    assert "".join(rows) == "x" * 600 + "\n"
