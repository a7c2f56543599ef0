"""Service Broker statements: every alternative of the chapter's syntax diagrams (Listings
15-1, 15-4, 15-5, 15-7, 15-9, 15-11, 15-13, 15-15, END CONVERSATION, CONVERSATION TIMER) and
every syntax block of the reference (§1), in both dialects, to the same AST nodes."""

from __future__ import annotations

import pytest
from grammar_helpers import one

from tsqlbroker.grammar import ast

O = ast.ObjectName
S = ast.Literal


def s(text: str) -> ast.Literal:
    return S("string", text, "'" + text.replace("'", "''") + "'")


def n(value: int) -> ast.Literal:
    return S("int", value, str(value))


V = ast.Variable

CASES: list[tuple[str, ast.Stmt]] = [
    # --- Listing 15-1 / 15-4: pre-release ENCODING forms --------------------------------------
    ("CREATE MESSAGE TYPE [//a/m] ENCODING EMPTY", ast.CreateMessageType("//a/m", "EMPTY")),
    ("CREATE MESSAGE TYPE [//a/m] ENCODING VARBINARY AUTHORIZATION dbo",
     ast.CreateMessageType("//a/m", "NONE", owner="dbo")),
    ("CREATE MESSAGE TYPE [//a/m] ENCODING XML", ast.CreateMessageType("//a/m", "WELL_FORMED_XML")),
    ("CREATE MESSAGE TYPE [//a/m] ENCODING XML WITH 'urn:ns' AUTHORIZATION dbo",
     ast.CreateMessageType("//a/m", "VALID_XML", schema_namespace="urn:ns", owner="dbo")),
    ("ALTER MESSAGE TYPE [//a/m] ENCODING XML WITH 'urn:ns'",
     ast.AlterMessageType("//a/m", "VALID_XML", schema_namespace="urn:ns")),
    ("ALTER MESSAGE TYPE [//a/m] AUTHORIZATION dbo", ast.AlterMessageType("//a/m", owner="dbo")),
    ("ALTER MESSAGE TYPE [//a/m] ENCODING EMPTY AUTHORIZATION dbo",
     ast.AlterMessageType("//a/m", "EMPTY", owner="dbo")),
    # --- §1.1 released message types ---------------------------------------------------------
    ("CREATE MESSAGE TYPE [//a/m] AUTHORIZATION dbo VALIDATION = NONE",
     ast.CreateMessageType("//a/m", "NONE", owner="dbo")),
    ("CREATE MESSAGE TYPE [//a/m] VALIDATION = EMPTY", ast.CreateMessageType("//a/m", "EMPTY")),
    ("CREATE MESSAGE TYPE [//a/m] VALIDATION = WELL_FORMED_XML;",
     ast.CreateMessageType("//a/m", "WELL_FORMED_XML")),
    ("CREATE MESSAGE TYPE [//a/m] VALIDATION = VALID_XML WITH SCHEMA COLLECTION dbo.coll",
     ast.CreateMessageType("//a/m", "VALID_XML", O("coll", "dbo"))),
    ("create message type m", ast.CreateMessageType("m")),
    ("ALTER MESSAGE TYPE [//a/m] VALIDATION = VALID_XML WITH SCHEMA COLLECTION coll",
     ast.AlterMessageType("//a/m", "VALID_XML", O("coll"))),
    ("DROP MESSAGE TYPE [//a/m]", ast.DropMessageType(("//a/m",))),
    ("DROP MESSAGE TYPE [//a/m], [//a/n]", ast.DropMessageType(("//a/m", "//a/n"))),
    ("CREATE XMLSCHEMA N'<x/>'",
     ast.CreateXmlSchemaCollection(None, S("nstring", "<x/>", "N'<x/>'"))),
    ("CREATE XML SCHEMA COLLECTION dbo.coll AS N'<x/>'",
     ast.CreateXmlSchemaCollection(O("coll", "dbo"), S("nstring", "<x/>", "N'<x/>'"))),
    ("CREATE XML SCHEMA COLLECTION coll AS @x", ast.CreateXmlSchemaCollection(O("coll"), V("@x"))),
    ("ALTER XML SCHEMA COLLECTION coll ADD @x", ast.AlterXmlSchemaCollection(O("coll"), V("@x"))),
    ("DROP XML SCHEMA COLLECTION dbo.coll", ast.DropXmlSchemaCollection(O("coll", "dbo"))),
    # --- Listing 15-5 / §1.2 contracts ---------------------------------------------------------
    (("CREATE CONTRACT [//a/c] ([//a/m] SENT BY INITIATOR, [//a/n] SENT BY TARGET, "
     "[//a/o] SENT BY ANY)"),
     ast.CreateContract("//a/c", (ast.ContractUsage("//a/m", "INITIATOR"),
                                  ast.ContractUsage("//a/n", "TARGET"),
                                  ast.ContractUsage("//a/o", "ANY")))),
    ("CREATE CONTRACT [//a/c] ([//a/m] SENT BY initiator) AUTHORIZATION dbo",
     ast.CreateContract("//a/c", (ast.ContractUsage("//a/m", "INITIATOR"),), "dbo")),
    ("CREATE CONTRACT [//a/c] AUTHORIZATION dbo ([DEFAULT] SENT BY ANY)",
     ast.CreateContract("//a/c", (ast.ContractUsage("DEFAULT", "ANY"),), "dbo")),
    ("DROP CONTRACT [//a/c]", ast.DropContract(("//a/c",))),
    ("DROP CONTRACT [//a/c], c2", ast.DropContract(("//a/c", "c2"))),
    # --- Listing 15-7 / §1.3 queues --------------------------------------------------------------
    ("CREATE QUEUE q", ast.CreateQueue(O("q"))),
    ("CREATE QUEUE dbo.q WITH STATUS = OFF", ast.CreateQueue(O("q", "dbo"), status=False)),
    (("CREATE QUEUE q WITH STATUS = ON, ACTIVATION (STATUS = OFF, PROCEDURE_NAME = p, "
     "MAX_QUEUE_READERS = 5, EXECUTE AS SELF)"),
     ast.CreateQueue(O("q"), status=True, activation=ast.QueueActivation(
         False, O("p"), 5, "SELF"))),
    (("CREATE QUEUE q WITH ACTIVATION (PROCEDURE_NAME = p, MAX_QUEUE_READERS = 1, "
     "EXECUTE AS USER = 'bob')"),
     ast.CreateQueue(O("q"), activation=ast.QueueActivation(None, O("p"), 1, "bob"))),
    (("CREATE QUEUE db.dbo.q WITH STATUS = ON, RETENTION = OFF, ACTIVATION (STATUS = ON, "
     "PROCEDURE_NAME = dbo.p, MAX_QUEUE_READERS = 5, EXECUTE AS OWNER), "
     "POISON_MESSAGE_HANDLING (STATUS = ON) ON [DEFAULT]"),
     ast.CreateQueue(O("q", "dbo", "db"), True, False,
                     ast.QueueActivation(True, O("p", "dbo"), 5, "OWNER"), True, "DEFAULT")),
    (("CREATE QUEUE q WITH activation (status = on, max_queue_readers = 1, "
     "procedure_name = [p], execute as owner)"),
     ast.CreateQueue(O("q"), activation=ast.QueueActivation(True, O("p"), 1, "OWNER"))),
    (("CREATE QUEUE q WITH ACTIVATION (PROCEDURE_NAME = p, MAX_QUEUE_READERS = 1, "
     "EXECUTE AS 'someuser')"),
     ast.CreateQueue(O("q"), activation=ast.QueueActivation(None, O("p"), 1, "someuser"))),
    ("CREATE QUEUE q WITH STATUS = ON ACTIVATION (PROCEDURE_NAME = p, MAX_QUEUE_READERS = 2,)",
     ast.CreateQueue(O("q"), True, activation=ast.QueueActivation(None, O("p"), 2))),
    ("CREATE QUEUE q WITH POISON_MESSAGE_HANDLING (STATUS = OFF) ON fg1",
     ast.CreateQueue(O("q"), poison_message_handling=False, filegroup="fg1")),
    ("ALTER QUEUE q WITH STATUS = OFF", ast.AlterQueue(O("q"), status=False)),
    ("ALTER QUEUE q WITH ACTIVATION (DROP)",
     ast.AlterQueue(O("q"), activation=ast.QueueActivation(drop=True))),
    ("ALTER QUEUE q WITH ACTIVATION (STATUS = OFF)",
     ast.AlterQueue(O("q"), activation=ast.QueueActivation(status=False))),
    ("ALTER QUEUE q WITH RETENTION = ON, POISON_MESSAGE_HANDLING (STATUS = OFF)",
     ast.AlterQueue(O("q"), retention=True, poison_message_handling=False)),
    ("ALTER QUEUE q REBUILD", ast.AlterQueue(O("q"), action="rebuild")),
    ("ALTER QUEUE q REBUILD WITH (MAXDOP = 2)", ast.AlterQueue(O("q"), action="rebuild")),
    ("ALTER QUEUE q REORGANIZE", ast.AlterQueue(O("q"), action="reorganize")),
    ("ALTER QUEUE q REORGANIZE WITH (LOB_COMPACTION = ON)",
     ast.AlterQueue(O("q"), action="reorganize")),
    ("ALTER QUEUE q MOVE TO fg2", ast.AlterQueue(O("q"), action="move")),
    ('ALTER QUEUE q MOVE TO "default"', ast.AlterQueue(O("q"), action="move")),
    ("DROP QUEUE dbo.q", ast.DropQueue(O("q", "dbo"))),
    # --- Listing 15-9 / §1.4 services ------------------------------------------------------------
    ("CREATE SERVICE s ON QUEUE q", ast.CreateService("s", O("q"))),
    ("CREATE SERVICE [//a/s] AUTHORIZATION dbo ON QUEUE dbo.q ([//a/c], [DEFAULT])",
     ast.CreateService("//a/s", O("q", "dbo"), ("//a/c", "DEFAULT"), "dbo")),
    ("CREATE SERVICE s ON QUEUE q ([//a/c]) AUTHORIZATION dbo RETENTION = ON",
     ast.CreateService("s", O("q"), ("//a/c",), "dbo", True)),
    ("CREATE SERVICE s ON QUEUE q RETENTION = OFF",
     ast.CreateService("s", O("q"), retention=False)),
    ("ALTER SERVICE s ON QUEUE q2", ast.AlterService("s", O("q2"))),
    ("ALTER SERVICE s (ADD CONTRACT c1, DROP CONTRACT c2)",
     ast.AlterService("s", None, ("c1",), ("c2",))),
    ("ALTER SERVICE s ON QUEUE dbo.q2 (ADD CONTRACT [//a/c])",
     ast.AlterService("s", O("q2", "dbo"), ("//a/c",))),
    ("DROP SERVICE [//a/s]", ast.DropService("//a/s")),
    # --- §1.5 routes, §1.6 bindings, §1.7 endpoints, §1.8 priorities --------------------------
    (("CREATE ROUTE r WITH SERVICE_NAME = '//a/s', BROKER_INSTANCE = 'B1', LIFETIME = 10, "
     "ADDRESS = 'TCP://host:4022', MIRROR_ADDRESS = 'TCP://m:4022'"),
     ast.CreateRoute("r", (("service_name", s("//a/s")), ("broker_instance", s("B1")),
                           ("lifetime", n(10)), ("address", s("TCP://host:4022")),
                           ("mirror_address", s("TCP://m:4022"))))),
    ("CREATE ROUTE r AUTHORIZATION dbo WITH ADDRESS = 'LOCAL'",
     ast.CreateRoute("r", (("address", s("LOCAL")),), "dbo")),
    ("ALTER ROUTE r WITH ADDRESS = 'TRANSPORT'",
     ast.AlterRoute("r", (("address", s("TRANSPORT")),))),
    ("DROP ROUTE r", ast.DropRoute("r")),
    ("CREATE REMOTE SERVICE BINDING b TO SERVICE '//a/s' WITH USER = u1",
     ast.CreateRemoteServiceBinding("b", "//a/s", "u1")),
    (("CREATE REMOTE SERVICE BINDING b AUTHORIZATION dbo TO SERVICE '//a/s' "
     "WITH USER = u1, ANONYMOUS = ON"),
     ast.CreateRemoteServiceBinding("b", "//a/s", "u1", True, "dbo")),
    ("ALTER REMOTE SERVICE BINDING b WITH USER = u2", ast.AlterRemoteServiceBinding("b", "u2")),
    ("ALTER REMOTE SERVICE BINDING b WITH ANONYMOUS = OFF",
     ast.AlterRemoteServiceBinding("b", anonymous=False)),
    ("DROP REMOTE SERVICE BINDING b", ast.DropRemoteServiceBinding("b")),
    (("CREATE ENDPOINT BrokerEndpoint STATE = STARTED AS TCP (LISTENER_PORT = 4022) "
     "FOR SERVICE_BROKER (AUTHENTICATION = WINDOWS NEGOTIATE, "
     "ENCRYPTION = REQUIRED ALGORITHM AES)"),
     ast.CreateEndpoint("BrokerEndpoint", "STARTED", (("listener_port", "4022"),),
                        (("authentication", "WINDOWS NEGOTIATE"),
                         ("encryption", "REQUIRED ALGORITHM AES")))),
    (("CREATE ENDPOINT e AUTHORIZATION sa AS TCP (LISTENER_PORT = 4022, LISTENER_IP = ALL) "
     "FOR SERVICE_BROKER (AUTHENTICATION = CERTIFICATE c1 MESSAGE_FORWARDING = ENABLED "
     "MESSAGE_FORWARD_SIZE = 10)"),
     ast.CreateEndpoint("e", None, (("listener_port", "4022"), ("listener_ip", "ALL")),
                        (("authentication", "CERTIFICATE c1"), ("message_forwarding", "ENABLED"),
                         ("message_forward_size", "10")), "sa")),
    (("CREATE ENDPOINT e AS TCP (LISTENER_PORT = 4022 LISTENER_IP = (127.0.0.1)) "
     "FOR SERVICE_BROKER ()"),
     ast.CreateEndpoint("e", None, (("listener_port", "4022"),
                                    ("listener_ip", "(127.0.0.1)")))),
    ("ALTER ENDPOINT e STATE = STOPPED", ast.CreateEndpoint("e", "STOPPED", alter=True)),
    ("DROP ENDPOINT e", ast.DropEndpoint("e")),
    (("CREATE BROKER PRIORITY p FOR CONVERSATION SET (CONTRACT_NAME = c, "
     "LOCAL_SERVICE_NAME = [//a/s], REMOTE_SERVICE_NAME = '//a/t', PRIORITY_LEVEL = 3)"),
     ast.CreateBrokerPriority("p", (("contract_name", s("c")),
                                    ("local_service_name", s("//a/s")),
                                    ("remote_service_name", s("//a/t")),
                                    ("priority_level", n(3))))),
    (("CREATE BROKER PRIORITY p FOR CONVERSATION SET (CONTRACT_NAME = ANY "
     "PRIORITY_LEVEL = DEFAULT)"),
     ast.CreateBrokerPriority("p", (("contract_name", None), ("priority_level", None)))),
    ("CREATE BROKER PRIORITY p FOR CONVERSATION", ast.CreateBrokerPriority("p")),
    ("ALTER BROKER PRIORITY p FOR CONVERSATION SET (PRIORITY_LEVEL = 7)",
     ast.CreateBrokerPriority("p", (("priority_level", n(7)),), alter=True)),
    ("DROP BROKER PRIORITY p", ast.DropBrokerPriority("p")),
    ("ALTER AUTHORIZATION ON SERVICE::[//a/s] TO dbo",
     ast.AlterAuthorization("SERVICE", "//a/s", "dbo")),
    ("ALTER AUTHORIZATION ON MESSAGE TYPE::[//a/m] TO u",
     ast.AlterAuthorization("MESSAGE TYPE", "//a/m", "u")),
    ("ALTER AUTHORIZATION ON REMOTE SERVICE BINDING::b TO SCHEMA OWNER",
     ast.AlterAuthorization("REMOTE SERVICE BINDING", "b", "SCHEMA OWNER")),
    ("ALTER AUTHORIZATION ON dbo.q TO u", ast.AlterAuthorization(None, "dbo.q", "u")),
    # --- §1.9 database options -------------------------------------------------------------------
    ("ALTER DATABASE Trader1 SET ENABLE_BROKER", ast.AlterDatabase("Trader1", "enable_broker")),
    ("ALTER DATABASE d SET DISABLE_BROKER", ast.AlterDatabase("d", "disable_broker")),
    ("ALTER DATABASE CURRENT SET NEW_BROKER WITH ROLLBACK IMMEDIATE",
     ast.AlterDatabase(None, "new_broker", None, "rollback immediate")),
    ("ALTER DATABASE d SET ERROR_BROKER_CONVERSATIONS WITH ROLLBACK AFTER 5 SECONDS",
     ast.AlterDatabase("d", "error_broker_conversations", None, "rollback after 5")),
    ("ALTER DATABASE d SET HONOR_BROKER_PRIORITY ON",
     ast.AlterDatabase("d", "honor_broker_priority", "on")),
    ("ALTER DATABASE d SET TRUSTWORTHY ON WITH NO_WAIT",
     ast.AlterDatabase("d", "trustworthy", "on", "no_wait")),
    # --- Listing 15-11 / §1.10 BEGIN DIALOG ------------------------------------------------------
    ("BEGIN DIALOG @h FROM SERVICE s TO SERVICE 't'", ast.BeginDialog("@h", "s", s("t"))),
    (("BEGIN DIALOG CONVERSATION @h FROM SERVICE [//a/s] TO SERVICE '//a/t', 'CURRENT DATABASE' "
     "ON CONTRACT [//a/c] WITH RELATED_CONVERSATION = @r, LIFETIME = 600, ENCRYPTION = OFF;"),
     ast.BeginDialog("@h", "//a/s", s("//a/t"), s("CURRENT DATABASE"), "//a/c", V("@r"),
                     lifetime=n(600), encryption=False)),
    (("BEGIN DIALOG @h FROM SERVICE s TO SERVICE 't', @guid ON CONTRACT c "
     "WITH RELATED_CONVERSATION_GROUP = @g LIFETIME = 600 ENCRYPTION = ON"),
     ast.BeginDialog("@h", "s", s("t"), V("@guid"), "c", related_group=V("@g"),
                     lifetime=n(600), encryption=True)),
    (("BEGIN DIALOG @h FROM SERVICE s TO SERVICE 't', 'B1' ON CONTRACT c "
     "WITH RELATED_SERVICE_INSTANCE = @si"),
     ast.BeginDialog("@h", "s", s("t"), s("B1"), "c", related_group=V("@si"))),
    (("BEGIN DIALOG @h FROM SERVICE s TO SERVICE @target ON CONTRACT c "
     "WITH ENCRYPTION = OFF, LIFETIME = @l"),
     ast.BeginDialog("@h", "s", V("@target"), None, "c", lifetime=V("@l"), encryption=False)),
    # --- Listing 15-13 SEND ----------------------------------------------------------------------
    ("SEND ON CONVERSATION @h", ast.Send((V("@h"),))),
    ("SEND ON CONVERSATION @h MESSAGE TYPE [//a/m]", ast.Send((V("@h"),), "//a/m")),
    ("SEND ON CONVERSATION @h MESSAGE TYPE [//a/m] (@body)",
     ast.Send((V("@h"),), "//a/m", V("@body"))),
    ("SEND ON CONVERSATION @h (N'x')", ast.Send((V("@h"),), None, S("nstring", "x", "N'x'"))),
    ("SEND ON CONVERSATION (@h1, @h2) MESSAGE TYPE m (@b)",
     ast.Send((V("@h1"), V("@h2")), "m", V("@b"))),
    # --- Listing 15-15 RECEIVE / WAITFOR / GET CONVERSATION GROUP ---------------------------------
    ("RECEIVE * FROM q", ast.Receive((ast.SelectItem(ast.Star()),), O("q"))),
    ("RECEIVE TOP (1) * FROM dbo.q", ast.Receive((ast.SelectItem(ast.Star()),), O("q", "dbo"),
                                                  n(1))),
    ("RECEIVE TOP 5 conversation_handle, message_type_name AS mt FROM q",
     ast.Receive((ast.SelectItem(ast.Column(("conversation_handle",))),
                  ast.SelectItem(ast.Column(("message_type_name",)), alias="mt")), O("q"), n(5))),
    ("RECEIVE mt = message_type_name FROM q INTO @t",
     ast.Receive((ast.SelectItem(ast.Column(("message_type_name",)), alias="mt"),), O("q"),
                 into="@t")),
    ("RECEIVE * FROM q INTO dbo.t",
     ast.Receive((ast.SelectItem(ast.Star()),), O("q"), into=O("t", "dbo"))),
    ("RECEIVE TOP(1) @h = conversation_handle FROM q WHERE conversation_handle = @h2",
     ast.Receive((ast.SelectItem(ast.Column(("conversation_handle",)), assign_to="@h",
                                 assign_op="="),), O("q"), n(1), None, "conversation_handle",
                 V("@h2"))),
    ("RECEIVE * FROM q WHERE conversation_group_id = @g",
     ast.Receive((ast.SelectItem(ast.Star()),), O("q"), where_column="conversation_group_id",
                 where_value=V("@g"))),
    ("RECEIVE * FROM q WHERE SERVICE_INSTANCE_ID = @g",
     ast.Receive((ast.SelectItem(ast.Star()),), O("q"), where_column="conversation_group_id",
                 where_value=V("@g"))),
    ("WAITFOR (RECEIVE * FROM q), TIMEOUT 5000",
     ast.Waitfor(ast.Receive((ast.SelectItem(ast.Star()),), O("q")), n(5000))),
    ("WAITFOR (RECEIVE * FROM q)", ast.Waitfor(ast.Receive((ast.SelectItem(ast.Star()),),
                                                           O("q")))),
    ("WAITFOR (GET CONVERSATION GROUP @g FROM q), TIMEOUT 1000",
     ast.Waitfor(ast.GetConversationGroup("@g", O("q")), n(1000))),
    ("WAITFOR (GET SERVICE INSTANCE @g FROM q)",
     ast.Waitfor(ast.GetConversationGroup("@g", O("q")))),
    ("GET CONVERSATION GROUP @g FROM dbo.q", ast.GetConversationGroup("@g", O("q", "dbo"))),
    ("GET SERVICE INSTANCE @si FROM q", ast.GetConversationGroup("@si", O("q"))),
    # --- END CONVERSATION, TIMER, MOVE -----------------------------------------------------------
    ("END CONVERSATION @h", ast.EndConversation(V("@h"))),
    ("END CONVERSATION @h WITH ERROR = 50000 DESCRIPTION = 'failed'",
     ast.EndConversation(V("@h"), n(50000), s("failed"))),
    ("END CONVERSATION @h WITH CLEANUP;", ast.EndConversation(V("@h"), cleanup=True)),
    ("END CONVERSATION @h WITH ERROR = @code DESCRIPTION = @text",
     ast.EndConversation(V("@h"), V("@code"), V("@text"))),
    ("END CONVERSATION @h WITH ERROR = -1 DESCRIPTION = N'x'",
     ast.EndConversation(V("@h"), S("int", -1, "-1"), S("nstring", "x", "N'x'"))),
    ("BEGIN CONVERSATION TIMER (@h) TIMEOUT = 120",
     ast.BeginConversationTimer(V("@h"), n(120))),
    ("MOVE CONVERSATION @h TO @g", ast.MoveConversation(V("@h"), V("@g"))),
]


@pytest.mark.parametrize("sql,expected", CASES, ids=[c[0][:60] for c in CASES])
def test_broker_statement(sql: str, expected: ast.Stmt) -> None:
    assert one(sql) == expected


def test_receive_columns_named_like_keywords() -> None:
    stmt = one("RECEIVE status, priority, queuing_order, service_instance_id, message_body "
               "FROM q")
    assert isinstance(stmt, ast.Receive)
    assert [i.expr for i in stmt.items] == [
        ast.Column((c,)) for c in ("status", "priority", "queuing_order", "service_instance_id",
                                   "message_body")]


def test_get_transmission_status_is_a_function() -> None:
    stmt = one("SELECT GET_TRANSMISSION_STATUS(@h)")
    assert isinstance(stmt, ast.SelectStmt) and isinstance(stmt.query, ast.Select)
    assert stmt.query.items[0].expr == ast.FunctionCall(O("GET_TRANSMISSION_STATUS"),
                                                        (V("@h"),))


def test_broker_statements_carry_spans() -> None:
    stmt = one("\n\n  END CONVERSATION @h WITH CLEANUP")
    assert stmt.span is not None
    assert (stmt.span.line, stmt.span.column, stmt.span.start_pos) == (3, 3, 4)


def test_receive_expressions_and_aliases() -> None:
    stmt = one("RECEIVE TOP (@n) conversation_handle AS h, CAST(message_body AS xml) body, "
               "message_type_name mt FROM q")
    assert isinstance(stmt, ast.Receive) and stmt.top == V("@n")
    assert [i.alias for i in stmt.items] == ["h", "body", "mt"]
    assert stmt.items[1].expr == ast.Cast(ast.Column(("message_body",)), ast.DataType("xml"))
