"""OPENJSON over the enclosing query's columns is not done yet: a clear Msg 40000, no
traceback, and the session carries on (see docs/decisions.md)."""

from __future__ import annotations

from tsqlbroker.interpreter.instance import Instance
from tsqlbroker.interpreter.sink import CollectingSink

from tests.golden.render import render_events


def test_cross_apply_openjson_of_a_column_is_refused_plainly(backend_url: str) -> None:
    inst = Instance(backend_url)
    sink = CollectingSink()
    session = inst.session(sink)
    try:
        session.execute("CREATE TABLE dbo.d (id int, j nvarchar(max));\n"
                        "INSERT dbo.d VALUES (1, N'[1,2]');\n"
                        "SELECT d.id, o.value FROM dbo.d CROSS APPLY OPENJSON(d.j) AS o;\n"
                        "SELECT COUNT(*) AS n FROM dbo.d;\n")
    finally:
        session.close()
        inst.close()
    out = render_events(sink.events)
    assert "Msg 40000, Level 16, State 1, Line 3\nOPENJSON of the enclosing query's columns" \
        in out
    assert out.endswith("n\n1\n(1 row affected)\n")
