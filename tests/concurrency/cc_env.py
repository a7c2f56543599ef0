"""Helpers for the broker concurrency tests: T-SQL clients and a queue whose conversation
groups each hold several conversations.

The groups are made the way an application makes them: the initiator begins several dialogs
WITH RELATED_CONVERSATION_GROUP (groups belong to one side, so the grouped conversations are
the initiator's), and the *target* sends the messages back, so that they arrive on the
initiator's queue in those groups.
"""

from __future__ import annotations

from tsqlbroker.engine.results import ResultSet
from tsqlbroker.interpreter.instance import Instance
from tsqlbroker.interpreter.sink import CollectingSink

SETUP = """
CREATE MESSAGE TYPE [//cc/Msg] VALIDATION = NONE;
CREATE CONTRACT [//cc/Contract] ([//cc/Msg] SENT BY ANY);
-- Readers roll back on purpose: the poison-message rule must not disable the queue.
CREATE QUEUE InitQ WITH POISON_MESSAGE_HANDLING (STATUS = OFF);
CREATE QUEUE TargQ;
CREATE SERVICE [//cc/Init] ON QUEUE InitQ;
CREATE SERVICE [//cc/Targ] ON QUEUE TargQ ([//cc/Contract]);
CREATE TABLE Map (handle uniqueidentifier PRIMARY KEY, g int NOT NULL, c int NOT NULL,
                  grp uniqueidentifier NOT NULL);
"""

# Opens @groups groups of @convs dialogs each. The first SEND of a dialog creates the target
# endpoint; Map then pairs each target handle with its initiator group (by conversation_id).
OPEN_DIALOGS = """
SET NOCOUNT ON;
DECLARE @g int = 0, @c int, @grp uniqueidentifier, @h uniqueidentifier;
WHILE @g < {groups}
BEGIN
    SET @grp = NEWID();
    SET @c = 0;
    BEGIN TRAN;
    WHILE @c < {convs}
    BEGIN
        BEGIN DIALOG @h FROM SERVICE [//cc/Init] TO SERVICE '//cc/Targ'
            ON CONTRACT [//cc/Contract]
            WITH RELATED_CONVERSATION_GROUP = @grp, ENCRYPTION = OFF;
        SEND ON CONVERSATION @h MESSAGE TYPE [//cc/Msg]
            (CAST(CONCAT(@g, ':', @c) AS varbinary(100)));
        SET @c += 1;
    END;
    COMMIT;
    SET @g += 1;
END;
INSERT INTO Map (handle, g, c, grp)
SELECT t.conversation_handle,
       CAST(LEFT(b, CHARINDEX(':', b) - 1) AS int),
       CAST(SUBSTRING(b, CHARINDEX(':', b) + 1, 10) AS int),
       i.conversation_group_id
FROM (SELECT conversation_handle, conversation_id,
             CAST((SELECT TOP (1) message_body FROM TargQ q
                   WHERE q.conversation_handle = e.conversation_handle) AS varchar(100)) AS b
      FROM sys.conversation_endpoints e WHERE is_initiator = 0) AS t
JOIN sys.conversation_endpoints i ON i.conversation_id = t.conversation_id
     AND i.is_initiator = 1;
"""

# The target sends sequence numbers @s0+1 … @s0+@per on every conversation of groups
# [@g0, @g0 + @gcount), in one transaction; bodies are 'group:conversation:sequence'.
SEND_BLOCK = """
SET NOCOUNT ON;
DECLARE @h uniqueidentifier, @g int, @c int, @s int;
BEGIN TRAN;
DECLARE cur CURSOR LOCAL FAST_FORWARD FOR
    SELECT handle, g, c FROM Map WHERE g >= {g0} AND g < {g1} ORDER BY g, c;
OPEN cur;
FETCH NEXT FROM cur INTO @h, @g, @c;
WHILE @@FETCH_STATUS = 0
BEGIN
    SET @s = {s0} + 1;
    WHILE @s <= {s1}
    BEGIN
        SEND ON CONVERSATION @h MESSAGE TYPE [//cc/Msg]
            (CAST(CONCAT(@g, ':', @c, ':', @s) AS varbinary(100)));
        SET @s += 1;
    END;
    FETCH NEXT FROM cur INTO @h, @g, @c;
END;
CLOSE cur;
DEALLOCATE cur;
COMMIT;
"""


class Client:
    """One T-SQL session (a connection of its own) with a collecting sink."""

    def __init__(self, instance: Instance, database: str = "cc") -> None:
        self.sink = CollectingSink()
        self.session = instance.session(self.sink, database)

    def run(self, text: str) -> list[ResultSet]:
        """Run ``text``; fail the test on any error; return its result sets."""
        self.sink.events.clear()
        self.session.execute(text)
        errors = [e.render() for e in self.sink.errors()]
        assert not errors, "\n".join(errors)
        return self.sink.resultsets()

    def rows(self, text: str) -> list[tuple]:
        sets = self.run(text)
        assert sets, f"no result set from {text!r}"
        return sets[-1].rows

    def close(self) -> None:
        self.session.close()


def build(instance: Instance, groups: int, convs: int) -> Client:
    """Database ``cc`` with the services, queues and ``groups`` × ``convs`` open dialogs."""
    admin = Client(instance, "master")
    admin.run("CREATE DATABASE cc")
    admin.run("USE cc")
    admin.run(SETUP)
    admin.run(OPEN_DIALOGS.format(groups=groups, convs=convs))
    return admin


def send_block(client: Client, g0: int, g1: int, s0: int, s1: int) -> None:
    """Send sequence numbers ``s0+1 … s1`` on every conversation of groups ``g0 … g1-1``."""
    client.run(SEND_BLOCK.format(g0=g0, g1=g1, s0=s0, s1=s1))
