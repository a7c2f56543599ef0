"""A RECEIVE builds only the costlier queue columns (message_id, message_enqueue_time,
message_body) that its items read (engine/broker/receive.py, ``_result_row``): whichever
items it has — columns, expressions, assignments, a subquery, ``*`` — it returns what a
SELECT on the queue showed for the same message. A datepart keyword in an item
(``DATEADD(day, …)``) is no queue column."""

from __future__ import annotations

from typing import Any

from tsqlbroker.interpreter.instance import Instance
from tsqlbroker.interpreter.sink import CollectingSink

SETUP = """
CREATE DATABASE cols;
GO
USE cols;
CREATE MESSAGE TYPE m VALIDATION = NONE;
CREATE CONTRACT c (m SENT BY INITIATOR);
CREATE QUEUE IQ;
CREATE QUEUE TQ;
CREATE SERVICE I ON QUEUE IQ;
CREATE SERVICE T ON QUEUE TQ (c);
GO
DECLARE @h uniqueidentifier, @i int = 1;
BEGIN DIALOG @h FROM SERVICE I TO SERVICE 'T' ON CONTRACT c WITH ENCRYPTION = OFF;
WHILE @i <= 7
BEGIN
    SEND ON CONVERSATION @h MESSAGE TYPE m (CAST(@i AS varbinary(4)));
    SET @i += 1;
END;
"""

SHOWN = """
SELECT message_sequence_number, message_id, message_enqueue_time, message_body
FROM TQ ORDER BY message_sequence_number;
"""

# One message each, in sequence order; each gives (sequence number, id, time, body).
RECEIVES = [
    "RECEIVE TOP (1) message_sequence_number, message_id, NULL, NULL FROM TQ;",
    ("RECEIVE TOP (1) message_sequence_number, NULL, "
     "COALESCE(message_enqueue_time, SYSUTCDATETIME()), message_body FROM TQ;"),
    """DECLARE @n bigint, @id uniqueidentifier, @b varbinary(max);
       RECEIVE TOP (1) @n = message_sequence_number, @id = message_id, @b = message_body FROM TQ;
       SELECT @n, @id, NULL, @b;""",
    ("RECEIVE TOP (1) message_sequence_number, "
     "(SELECT MAX(x) FROM (SELECT message_id AS x) AS s), NULL, NULL FROM TQ;"),
    """DECLARE @t TABLE (n bigint, id uniqueidentifier, b varbinary(max));
       RECEIVE TOP (1) message_sequence_number, message_id, message_body FROM TQ INTO @t;
       SELECT n, id, NULL, b FROM @t;""",
]


def _run(s: Any, sink: CollectingSink, text: str) -> list[tuple[Any, ...]]:
    sink.events.clear()
    assert s.execute(text), sink.errors()
    return sink.resultsets()[-1].rows


def test_receive_returns_the_columns_it_names_as_select_shows_them(
        instance: Instance) -> None:
    sink = CollectingSink()
    s = instance.session(sink, "master")
    try:
        for batch in SETUP.split("GO\n"):
            assert s.execute(batch), sink.errors()
        shown = {r[0]: r for r in _run(s, sink, SHOWN)}
        assert sorted(shown) == [0, 1, 2, 3, 4, 5, 6]
        assert all(r[1] is not None and r[2] is not None for r in shown.values())
        for text in RECEIVES:
            [(n, mid, when, body)] = _run(s, sink, f"BEGIN TRAN; {text} COMMIT;")
            want = shown[n]
            if mid is not None or "message_id" in text:
                assert str(mid).upper() == str(want[1]).upper(), text
            if when is not None or "message_enqueue_time" in text:
                assert when == want[2], text
            if body is not None or "message_body" in text:
                assert bytes(body) == bytes(want[3]), text
        # '*' still shows its columns (message_id is not one of them).
        [row] = _run(s, sink, "BEGIN TRAN; RECEIVE TOP (1) * FROM TQ; COMMIT;")
        names = [c.lower() for c in sink.resultsets()[-1].columns]
        got = dict(zip(names, row, strict=True))
        want = shown[got["message_sequence_number"]]
        assert got["message_enqueue_time"] is not None
        assert bytes(got["message_body"]) == bytes(want[3])
        # A datepart keyword is no queue column.
        assert _run(s, sink, "BEGIN TRAN; RECEIVE TOP (1) DATEDIFF(second, message_enqueue_time, "
                    "DATEADD(minute, 1, message_enqueue_time)) FROM TQ; COMMIT;") == [(60,)]
    finally:
        s.close()
