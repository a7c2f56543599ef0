"""-U / -P: the command line connects as a SQL login (its password checked, Msg 18456 on
one line otherwise) instead of sa."""

from __future__ import annotations

from pathlib import Path

import pytest

from tsqlbroker.repl.cli import main


def test_login_and_password_on_the_command_line(tmp_path: Path,
                                                capsys: pytest.CaptureFixture[str],
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    url = f"sqlite:///{tmp_path / 'store.db'}"
    assert main(["--url", url, "-Q", ("CREATE LOGIN app WITH PASSWORD = 'Str0ng!pw' "
                 "CREATE USER app FOR LOGIN app CREATE TABLE t (a int) "
                 "GRANT SELECT ON t TO app")]) == 0
    capsys.readouterr()
    assert main(["--url", url, "-U", "app", "-P", "Str0ng!pw", "--format", "json", "-Q",
                 "SELECT SUSER_SNAME() AS l, USER_NAME() AS u INSERT t VALUES (1)"]) == 1
    out = capsys.readouterr().out
    assert '"rows": [["app", "app"]]' in out and '"number": 229' in out
    monkeypatch.setenv("SQLCMDPASSWORD", "wrong")
    assert main(["--url", url, "-U", "app", "-Q", "SELECT 1"]) == 1
    assert capsys.readouterr().err.splitlines() == [
        "Msg 18456, Level 14, State 1, Line 1", "Login failed for user 'app'."]
