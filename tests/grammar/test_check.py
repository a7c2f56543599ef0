"""check_files: the ``tsqlbroker parse`` command's engine."""

from __future__ import annotations

import io
from pathlib import Path

from grammar_helpers import LISTINGS

from tsqlbroker.grammar.check import check_files


def run(paths: list[str], show_ast: bool = False) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = check_files(paths, show_ast, out, err)
    return code, out.getvalue(), err.getvalue()


def test_all_good_files_exit_zero() -> None:
    code, out, err = run([str(LISTINGS / "15-08_queues.sql"), str(LISTINGS / "15-16_receive.sql")])
    assert (code, out, err) == (0, "", "")


def test_every_error_of_every_batch_is_reported(tmp_path: Path) -> None:
    f = tmp_path / "bad.sql"
    f.write_text("SELECT 1\nGO\nSELECT FROM t\nGO\nSELECT 2\nGO\nPRINT\n", encoding="utf-8")
    code, _out, err = run([str(f)])
    assert code == 1
    lines = [ln for ln in err.splitlines() if ln.startswith(str(f))]
    assert lines == [f"{f}:3: Msg 156, Level 15, State 1, Line 3",
                     f"{f}:7: Msg 102, Level 15, State 1, Line 7"]
    assert "Incorrect syntax near the keyword 'FROM'." in err


def test_ast_output(tmp_path: Path) -> None:
    code, out, _err = run([str(LISTINGS / "15-17_receive_waitfor.sql")], show_ast=True)
    assert code == 0
    assert "batch 1 (line 1)" in out
    assert "Waitfor  @line 7" in out
    assert "Receive  @line 9(queue=tradeEntryQueue)" in out
    assert "assign_to='@dh'" in out


def test_unreadable_file_is_a_clear_message(tmp_path: Path) -> None:
    missing = tmp_path / "nope.sql"
    code, _out, err = run([str(missing), str(LISTINGS / "15-16_receive.sql")])
    assert code == 1
    assert err == f"{missing}: cannot read file: No such file or directory\n"
    binary = tmp_path / "bin.sql"
    binary.write_bytes(b"\xff\xfe\x00\xd8")
    code, _out, err = run([str(binary)])
    assert code == 1 and err == (f"{binary}: cannot read file: invalid UTF-16 byte 0x00 at "
                                 "offset 2 (line 1); scripts are UTF-8 or UTF-16 text\n")


def test_utf16_script_with_bom(tmp_path: Path) -> None:
    f = tmp_path / "ssms.sql"
    f.write_bytes("\ufeffSELECT N'\u00e9'\r\nGO\r\n".encode("utf-16-le"))
    assert run([str(f)]) == (0, "", "")
