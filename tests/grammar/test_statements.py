"""Procedural T-SQL, DML and DDL statements; statement termination; ``sql`` / spans."""

from __future__ import annotations

import pytest
from grammar_helpers import no_sql, one

from tsqlbroker.grammar import ast, parse_batch

C = ast.Column
V = ast.Variable
O = ast.ObjectName


def n(v: int) -> ast.Literal:
    return ast.Literal("int", v, str(v))


def kinds(sql: str) -> list[str]:
    return [type(s).__name__ for s in parse_batch(sql).statements]


# --- statement termination ----------------------------------------------------------------------
@pytest.mark.parametrize("sql,expected", [
    ("DECLARE @x int SEND ON CONVERSATION @h (N'x')", ["Declare", "Send"]),
    ("DECLARE @x int\nRECEIVE * FROM q", ["Declare", "Receive"]),
    ("SELECT 1\n;RECEIVE * FROM q", ["SelectStmt", "Receive"]),
    ("SET @a = 1 ;SEND ON CONVERSATION @h", ["SetVariable", "Send"]),
    ("SELECT 1 ;WITH c AS (SELECT 1 AS a) SELECT a FROM c", ["SelectStmt", "SelectStmt"]),
    ("SELECT 1 WITH c AS (SELECT 1 AS a) SELECT a FROM c", ["SelectStmt", "SelectStmt"]),
    (";WITH c AS (SELECT 1 AS a) SELECT a FROM c;;", ["SelectStmt"]),
    ("SELECT 1 SELECT 2; SELECT 3", ["SelectStmt"] * 3),
    ("BEGIN TRAN\nSET @si = null\nCOMMIT", ["BeginTran", "SetVariable", "CommitTran"]),
    ("RETURN\nSELECT 1", ["Return", "SelectStmt"]),
    ("BEGIN\n;RECEIVE * FROM q\nEND", ["Block"]),
])
def test_statement_boundaries(sql: str, expected: list[str]) -> None:
    assert kinds(sql) == expected


def test_cte_and_xmlnamespaces_attach_to_statement() -> None:
    stmt = one("WITH XMLNAMESPACES (DEFAULT 'urn:a', 'urn:b' AS p), c (n) AS (SELECT 1) "
               "SELECT n FROM c")
    assert isinstance(stmt, ast.SelectStmt)
    assert stmt.xmlnamespaces == (ast.XmlNamespace("urn:a"), ast.XmlNamespace("urn:b", "p"))
    assert [c.name for c in stmt.ctes] == ["c"] and stmt.ctes[0].columns == ("n",)


def test_recursive_cte_and_option() -> None:
    stmt = one("WITH c AS (SELECT 1 AS n UNION ALL SELECT n + 1 FROM c WHERE n < 10) "
               "SELECT n FROM c OPTION (MAXRECURSION 100)")
    assert isinstance(stmt, ast.SelectStmt) and isinstance(stmt.query, ast.Select)
    assert isinstance(stmt.ctes[0].query, ast.SetOperation)
    assert stmt.ctes[0].query.op == "union all"
    assert stmt.query.option == "MAXRECURSION 100"


# --- SELECT -------------------------------------------------------------------------------------
def test_select_clauses() -> None:
    sql = ("SELECT DISTINCT TOP (5) PERCENT WITH TIES a, COUNT(*) AS c INTO #t FROM t WITH "
           "(NOLOCK) WHERE a > 1 GROUP BY a HAVING COUNT(*) > 1 ORDER BY a DESC, 2 "
           "OFFSET 1 ROWS FETCH NEXT 5 ROWS ONLY")
    stmt = one(sql)
    assert isinstance(stmt, ast.SelectStmt) and stmt.sql == sql
    q = stmt.query
    assert isinstance(q, ast.Select)
    assert q.distinct and q.top == ast.Top(n(5), True, True)
    assert q.into == O("#t")
    assert q.from_ == (ast.TableName(O("t"), None, ("NOLOCK",)),)
    assert q.group_by == (C(("a",)),) and q.having is not None
    assert q.order_by == (ast.OrderItem(C(("a",)), True), ast.OrderItem(n(2)))
    assert (q.offset, q.fetch) == (n(1), n(5))


def test_select_assignment_and_aliases() -> None:
    stmt = one("SELECT @x = a, @y += b, name = c, d 'lit', e AS [my col], f g FROM t")
    assert isinstance(stmt, ast.SelectStmt) and isinstance(stmt.query, ast.Select)
    items = stmt.query.items
    assert (items[0].assign_to, items[0].assign_op) == ("@x", "=")
    assert (items[1].assign_to, items[1].assign_op) == ("@y", "+=")
    assert [i.alias for i in items[2:]] == ["name", "lit", "my col", "g"]


def test_joins_and_sources() -> None:
    stmt = one("SELECT * FROM t INNER JOIN u ON t.id = u.id LEFT OUTER JOIN v x ON x.id = t.id "
               "CROSS JOIN w CROSS APPLY dbo.f(t.a) f OUTER APPLY (SELECT 1 AS one) d, @tv tv, "
               "(VALUES (1, 'a')) AS vv(n, s)")
    assert isinstance(stmt, ast.SelectStmt) and isinstance(stmt.query, ast.Select)
    first, tv, values = stmt.query.from_
    assert isinstance(first, ast.Join) and first.kind == "outer apply"
    assert isinstance(first.right, ast.DerivedTable) and first.right.alias == "d"
    assert isinstance(first.left, ast.Join) and first.left.kind == "cross apply"
    assert isinstance(first.left.right, ast.FunctionTable)
    assert first.left.right.call == ast.FunctionCall(O("f", "dbo"), (C(("t", "a")),))
    assert first.left.left.kind == "cross"
    assert first.left.left.left.kind == "left"
    assert first.left.left.left.right == ast.TableName(O("v"), "x")
    assert tv == ast.TableVariableRef("@tv", "tv")
    assert isinstance(values, ast.ValuesTable) and values.column_aliases == ("n", "s")


def test_set_operations() -> None:
    stmt = one("SELECT a FROM t UNION SELECT b FROM u EXCEPT (SELECT c FROM v) "
               "INTERSECT SELECT d FROM w ORDER BY 1")
    assert isinstance(stmt, ast.SelectStmt)
    q = stmt.query
    assert isinstance(q, ast.SetOperation) and q.op == "except"
    assert q.order_by == (ast.OrderItem(n(1)),)
    assert isinstance(q.right, ast.SetOperation) and q.right.op == "intersect"
    assert isinstance(q.left, ast.SetOperation) and q.left.op == "union"


# --- DML ----------------------------------------------------------------------------------------
def test_insert_forms() -> None:
    ins = one("INSERT INTO t (a, b) VALUES (1, DEFAULT), (2, 3)")
    assert isinstance(ins, ast.Insert) and ins.columns == ("a", "b")
    assert ins.source == ast.ValuesSource(((n(1), ast.DefaultValue()), (n(2), n(3))))
    assert ins.sql == "INSERT INTO t (a, b) VALUES (1, DEFAULT), (2, 3)"
    sel = one("INSERT t SELECT a FROM u")
    assert isinstance(sel, ast.Insert) and isinstance(sel.source, ast.Select)
    ex = one("INSERT INTO @tv EXEC p 1")
    assert isinstance(ex, ast.Insert) and ex.target == "@tv"
    assert isinstance(ex.source, ast.ExecProc)
    dv = one("INSERT INTO t DEFAULT VALUES;")
    assert isinstance(dv, ast.Insert) and dv.source == ast.DefaultValuesSource()
    assert dv.sql == "INSERT INTO t DEFAULT VALUES"
    out = one("INSERT INTO t (a) OUTPUT inserted.a, inserted.* INTO @out VALUES (1)")
    assert isinstance(out, ast.Insert) and out.output is not None
    assert out.output.into == "@out"
    assert out.output.items[1].expr == ast.Star(("inserted",))


def test_update_delete_merge_truncate() -> None:
    up = one("UPDATE t SET a = 1, b += 2, @v = c = 3 FROM t JOIN u ON t.id = u.id WHERE u.x = 1")
    assert isinstance(up, ast.Update) and up.target == O("t")
    assert up.assignments == (ast.Assignment(C(("a",)), n(1)),
                              ast.Assignment(C(("b",)), n(2), "+="),
                              ast.Assignment(C(("c",)), n(3), "=", "@v"))
    assert len(up.from_) == 1 and up.where is not None
    top = one("UPDATE TOP (5) @tv SET a = 1 OUTPUT deleted.a")
    assert isinstance(top, ast.Update) and top.top == ast.Top(n(5)) and top.target == "@tv"
    de = one("DELETE TOP (10) FROM t WHERE a = 1")
    assert isinstance(de, ast.Delete) and de.top == ast.Top(n(10)) and de.where is not None
    de2 = one("DELETE t FROM t JOIN u ON t.id = u.id")
    assert isinstance(de2, ast.Delete) and len(de2.from_) == 1
    mg = one("MERGE INTO t AS tgt USING s ON tgt.id = s.id WHEN MATCHED AND s.x = 1 THEN "
             "UPDATE SET tgt.a = s.a WHEN NOT MATCHED BY TARGET THEN INSERT (id) VALUES (s.id) "
             "WHEN NOT MATCHED BY SOURCE THEN DELETE OUTPUT $action;")
    assert isinstance(mg, ast.Merge) and mg.target_alias == "tgt"
    assert [(w.matched, w.by_source, w.action) for w in mg.whens] == [
        (True, False, "update"), (False, False, "insert"), (False, True, "delete")]
    assert mg.whens[1].columns == ("id",) and mg.whens[1].values == (C(("s", "id")),)
    assert mg.sql.endswith("OUTPUT $action")
    assert no_sql(one("TRUNCATE TABLE dbo.t")) == ast.Truncate(O("t", "dbo"))


# --- DDL ----------------------------------------------------------------------------------------
def test_create_table() -> None:
    sql = ("CREATE TABLE #t (id int IDENTITY(1,1) PRIMARY KEY CLUSTERED, "
           "name nvarchar(50) COLLATE Latin1_General_CI_AS NOT NULL "
           "CONSTRAINT df_name DEFAULT (N'x'), code char(3) NULL UNIQUE, "
           "pid int REFERENCES p(id) ON DELETE CASCADE, total AS id * 2, "
           "CONSTRAINT ck CHECK (id > 0), CONSTRAINT fk FOREIGN KEY (pid) REFERENCES p (id), "
           "PRIMARY KEY NONCLUSTERED (id, code DESC))")
    t = one(sql)
    assert isinstance(t, ast.CreateTable) and t.name == O("#t") and t.sql == sql
    id_, name, code, pid, total = t.columns
    assert id_.identity == (1, 1) and id_.primary_key
    assert name.nullable is False and name.collation == "Latin1_General_CI_AS"
    assert name.default_name == "df_name" and name.constraint_names == ("df_name",)
    assert code.nullable is True and code.unique
    assert pid.references == ast.ForeignKeyRef(O("p"), ("id",), "CASCADE")
    assert total.type is None and total.computed is not None
    kinds_ = [(c.kind, c.name) for c in t.constraints]
    assert kinds_ == [("check", "ck"), ("foreign key", "fk"), ("primary key", None)]
    assert t.constraints[2].columns == ("id", "code") and t.constraints[2].clustered is False


def test_alter_drop_table_and_indexes() -> None:
    assert one("ALTER TABLE t ADD c int NULL").action == "add_column"  # type: ignore[attr-defined]
    con = one("ALTER TABLE t ADD CONSTRAINT uq UNIQUE (c)")
    assert isinstance(con, ast.AlterTable) and con.constraint is not None
    assert con.constraint.name == "uq"
    assert no_sql(one("ALTER TABLE t DROP COLUMN c")) == ast.AlterTable(
        O("t"), "drop_column", target="c")
    assert no_sql(one("ALTER TABLE t DROP CONSTRAINT uq")) == ast.AlterTable(
        O("t"), "drop_constraint", target="uq")
    assert one("DROP TABLE IF EXISTS t, #u") == ast.DropTable((O("t"), O("#u")), True)
    ix = one("CREATE UNIQUE NONCLUSTERED INDEX ix ON t (a, b DESC) INCLUDE (c) WHERE a > 0")
    assert isinstance(ix, ast.CreateIndex) and ix.unique and ix.clustered is False
    assert ix.include == ("c",) and ix.where is not None
    assert one("DROP INDEX ix ON t") == ast.DropIndex("ix", O("t"))
    assert one("DROP INDEX t.ix") == ast.DropIndex("ix", O("t"))


def test_views_procedures_functions_are_whole_batches() -> None:
    v = one("CREATE OR ALTER VIEW dbo.v (a) AS SELECT 1 AS a")
    assert isinstance(v, ast.CreateView) and v.or_alter and v.columns == ("a",)
    assert v.query.sql == "SELECT 1 AS a"
    p = one("CREATE PROC dbo.p @a int = 5, @b varchar(10) OUTPUT, @t dbo.tt READONLY\n"
            "WITH EXECUTE AS OWNER, RECOMPILE AS\nSET NOCOUNT ON\nSELECT @a\nRETURN 0")
    assert isinstance(p, ast.CreateProcedure)
    assert [(x.name, x.output, x.readonly) for x in p.params] == [
        ("@a", False, False), ("@b", True, False), ("@t", False, True)]
    assert p.params[0].default == n(5)
    assert p.execute_as == "OWNER" and p.options == ("recompile",)
    assert [type(s).__name__ for s in p.body] == ["SetOption", "SelectStmt", "Return"]
    assert p.source.startswith("CREATE PROC dbo.p") and p.source.endswith("RETURN 0")
    alt = one("ALTER PROCEDURE p (@x int) AS BEGIN SELECT @x END")
    assert isinstance(alt, ast.CreateProcedure) and alt.alter and len(alt.body) == 1
    f = one("CREATE FUNCTION dbo.f(@a int, @b int = 2) RETURNS int AS BEGIN RETURN @a + @b END")
    assert isinstance(f, ast.CreateFunction) and f.returns == ast.DataType("int")
    assert [x.name for x in f.params] == ["@a", "@b"] and isinstance(f.body[0], ast.Return)
    assert one("DROP PROCEDURE IF EXISTS p, q") == ast.DropProcedure((O("p"), O("q")), True)
    assert one("DROP FUNCTION f") == ast.DropFunction((O("f"),))
    assert one("DROP VIEW v") == ast.DropView((O("v"),))


def test_databases() -> None:
    assert one("USE [master]") == ast.Use("master")
    assert one("CREATE DATABASE Trader1") == ast.CreateDatabase("Trader1")
    assert one("DROP DATABASE IF EXISTS a, b") == ast.DropDatabase(("a", "b"), True)


# --- procedural ------------------------------------------------------------------------------------
def test_declare_forms() -> None:
    d = one("DECLARE @a int = 1, @b varchar(10), @c AS decimal(10,2) = -1.5")
    assert isinstance(d, ast.Declare)
    assert [(i.name, i.type.name) for i in d.items] == [("@a", "int"), ("@b", "varchar"),
                                                        ("@c", "decimal")]
    assert d.items[2].default == ast.Literal("decimal", -__import__("decimal").Decimal("1.5"),
                                             "-1.5")
    t = one("DECLARE @t TABLE (id int PRIMARY KEY, v nvarchar(max))")
    assert isinstance(t, ast.DeclareTable) and [c.name for c in t.columns] == ["id", "v"]
    c = one("DECLARE c CURSOR LOCAL FAST_FORWARD FOR SELECT a FROM t")
    assert isinstance(c, ast.DeclareCursor) and c.options == ("local", "fast_forward")
    assert c.query.sql == "SELECT a FROM t"
    u = one("DECLARE c CURSOR FOR SELECT a FROM t FOR UPDATE OF a")
    assert isinstance(u, ast.DeclareCursor) and u.for_update == ("a",)


def test_cursor_statements() -> None:
    stmts = parse_batch("OPEN c FETCH NEXT FROM c INTO @a, @b FETCH ABSOLUTE 5 FROM c "
                        "FETCH c CLOSE c DEALLOCATE c").statements
    assert stmts == (ast.OpenCursor("c"), ast.FetchCursor("c", "next", None, ("@a", "@b")),
                     ast.FetchCursor("c", "absolute", n(5)), ast.FetchCursor("c"),
                     ast.CloseCursor("c"), ast.DeallocateCursor("c"))
    sc = one("SET @c = CURSOR FAST_FORWARD FOR SELECT 1")
    assert isinstance(sc, ast.SetCursorVariable) and sc.options == ("fast_forward",)


@pytest.mark.parametrize("op", ["=", "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^="])
def test_set_variable_operators(op: str) -> None:
    assert one(f"SET @a {op} 1") == ast.SetVariable("@a", n(1), op)


def test_set_options() -> None:
    stmts = parse_batch("SET NOCOUNT ON; SET XACT_ABORT OFF SET DATEFORMAT dmy "
                        "SET TRANSACTION ISOLATION LEVEL READ COMMITTED "
                        "SET IMPLICIT_TRANSACTIONS OFF SET IDENTITY_INSERT dbo.t ON").statements
    assert stmts == (ast.SetOption("nocount", "on"), ast.SetOption("xact_abort", "off"),
                     ast.SetOption("dateformat", "dmy"),
                     ast.SetOption("transaction isolation level", "read committed"),
                     ast.SetOption("implicit_transactions", "off"),
                     ast.SetOption("identity_insert", "on", O("t", "dbo")))
    assert one("SET STATISTICS IO ON") == ast.SetOption("statistics io", "on")
    assert one("SET DEADLOCK_PRIORITY LOW") == ast.SetOption("deadlock_priority", "low")
    assert one("SET LOCK_TIMEOUT -1") == ast.SetOption("lock_timeout", "-1")
    both = one("SET ANSI_NULLS, QUOTED_IDENTIFIER ON")
    assert both == ast.Block((ast.SetOption("ansi_nulls", "on"),
                              ast.SetOption("quoted_identifier", "on")))


def test_if_else_binds_to_nearest_if() -> None:
    s = one("IF @a = 1 IF @b = 1 PRINT 'x' ELSE PRINT 'y'")
    assert isinstance(s, ast.If) and s.else_ is None
    assert isinstance(s.then, ast.If) and isinstance(s.then.else_, ast.Print)
    s2 = one("IF @a = 1 SELECT 1; ELSE BEGIN SELECT 2 END")
    assert isinstance(s2, ast.If) and isinstance(s2.else_, ast.Block)


def test_control_flow() -> None:
    w = one("WHILE 1 = 1 BEGIN IF @a > 5 BREAK; SET @a += 1; CONTINUE END")
    assert isinstance(w, ast.While) and isinstance(w.body, ast.Block)
    assert [type(s).__name__ for s in w.body.body] == ["If", "SetVariable", "Continue"]
    assert kinds("retry: SET @a = 1 GOTO retry") == ["Label", "SetVariable", "Goto"]
    assert parse_batch("retry:").statements == (ast.Label("retry"),)
    assert one("RETURN 0") == ast.Return(n(0))


def test_transactions() -> None:
    stmts = parse_batch("BEGIN TRAN; BEGIN TRANSACTION t1 COMMIT TRAN t1 COMMIT WORK ROLLBACK "
                        "ROLLBACK TRANSACTION @n SAVE TRAN sp1 BEGIN DISTRIBUTED TRAN "
                        "COMMIT").statements
    assert stmts == (ast.BeginTran(), ast.BeginTran("t1"), ast.CommitTran("t1"),
                     ast.CommitTran(), ast.RollbackTran(), ast.RollbackTran(V("@n")),
                     ast.SaveTran("sp1"), ast.BeginTran(None, True), ast.CommitTran())


def test_try_catch_throw_raiserror_print() -> None:
    tc = one("BEGIN TRY SELECT 1/0 END TRY BEGIN CATCH THROW; END CATCH")
    assert isinstance(tc, ast.TryCatch) and len(tc.try_body) == 1
    assert tc.catch_body == (ast.Throw(),)
    empty = one("BEGIN TRY SELECT 1 END TRY BEGIN CATCH END CATCH")
    assert isinstance(empty, ast.TryCatch) and empty.catch_body == ()
    t = one("THROW 50001, 'boom', 1;")
    assert t == ast.Throw(n(50001), ast.Literal("string", "boom", "'boom'"), n(1))
    r = one("RAISERROR('m %d', 16, 1, 5) WITH NOWAIT, LOG")
    assert isinstance(r, ast.Raiserror) and r.args == (n(5),) and r.options == ("NOWAIT", "LOG")
    assert isinstance(one("PRINT 'x' + CAST(@a AS varchar(10))"), ast.Print)


def test_exec_forms() -> None:
    e = one("EXEC p 1, @b = 2, @c = @d OUTPUT, @e = DEFAULT, @f OUT")
    assert isinstance(e, ast.ExecProc) and e.proc == O("p")
    assert e.args == (ast.ExecArg(n(1)), ast.ExecArg(n(2), "@b"),
                      ast.ExecArg(V("@d"), "@c", True), ast.ExecArg(None, "@e"),
                      ast.ExecArg(V("@f"), None, True))
    assert one("EXEC @rc = dbo.p") == ast.ExecProc(O("p", "dbo"), (), "@rc")
    assert one("EXECUTE @name 1") == ast.ExecProc(V("@name"), (ast.ExecArg(n(1)),))
    sp = one("EXEC sp_executesql @stmt, N'@a int OUTPUT', @a = @x OUTPUT")
    assert isinstance(sp, ast.ExecProc) and sp.proc == O("sp_executesql")
    assert sp.args[2] == ast.ExecArg(V("@x"), "@a", True)
    dyn = one("EXEC ('SELECT ' + @cols + ' FROM t')")
    assert isinstance(dyn, ast.ExecDynamic) and len(dyn.parts) == 3
    assert one("EXEC (@sql)") == ast.ExecDynamic((V("@sql"),))


def test_waitfor_delay_and_time() -> None:
    d = ast.Literal("string", "00:00:01", "'00:00:01'")
    assert one("WAITFOR DELAY '00:00:01'") == ast.WaitforDelay("delay", d)
    assert isinstance(one("WAITFOR TIME @t"), ast.WaitforDelay)


def test_statement_spans_use_file_lines() -> None:
    batch = parse_batch("SELECT 1\n\n  PRINT 'x'", start_line=10)
    first, second = batch.statements
    assert first.span is not None and second.span is not None
    assert (first.span.line, second.span.line, second.span.column) == (10, 12, 3)
    assert batch.text[second.span.start_pos:second.span.end_pos] == "PRINT 'x'"


def test_xml_modify_in_set_and_update() -> None:
    dml = ast.Literal("string", "delete /a", "'delete /a'")
    assert one("SET @x.modify('delete /a')") == ast.SetVariable(
        "@x", ast.MethodCall(V("@x"), "modify", (dml,)), "modify")
    up = one("UPDATE t SET doc.modify('delete /a') WHERE id = 1")
    assert isinstance(up, ast.Update)
    assert up.assignments == (ast.Assignment(C(("doc",)), ast.MethodCall(C(("doc",)), "modify",
                                                                          (dml,)), "modify"),)


def test_for_xml_and_json() -> None:
    stmt = one("SELECT @x = (SELECT @p AS [name] FOR XML PATH('procedure'), TYPE)")
    assert isinstance(stmt, ast.SelectStmt) and isinstance(stmt.query, ast.Select)
    sub = stmt.query.items[0].expr
    assert isinstance(sub, ast.Subquery) and isinstance(sub.query, ast.Select)
    assert sub.query.for_clause == "XML PATH('procedure'), TYPE"
    js = one("SELECT a FROM t ORDER BY a FOR JSON PATH, ROOT('rows'), INCLUDE_NULL_VALUES")
    assert isinstance(js, ast.SelectStmt) and isinstance(js.query, ast.Select)
    assert js.query.for_clause == "JSON PATH, ROOT('rows'), INCLUDE_NULL_VALUES"
    assert js.query.order_by == (ast.OrderItem(C(("a",))),)
    cur = one("DECLARE c CURSOR FOR SELECT a FROM t FOR UPDATE")
    assert isinstance(cur, ast.DeclareCursor) and cur.for_update == ()


def test_batch_may_start_with_a_call_without_exec() -> None:
    batch = parse_batch("dbo.myproc 1, @a = 2 OUTPUT\nSELECT 1")
    assert batch.statements[0] == ast.ExecProc(
        O("myproc", "dbo"), (ast.ExecArg(n(1)), ast.ExecArg(n(2), "@a", True)))
    assert batch.statements[0].span is not None and batch.statements[0].span.line == 1
    assert isinstance(batch.statements[1], ast.SelectStmt)
    assert parse_batch("sp_who").statements == (ast.ExecProc(O("sp_who")),)


def test_cursor_variables() -> None:
    stmts = parse_batch("DECLARE @c CURSOR SET @c = CURSOR FOR SELECT 1 OPEN @c "
                        "FETCH NEXT FROM @c INTO @x CLOSE @c DEALLOCATE @c").statements
    assert stmts[0] == ast.Declare((ast.VarDecl("@c", ast.DataType("cursor")),))
    assert stmts[2:] == (ast.OpenCursor("@c"), ast.FetchCursor("@c", "next", None, ("@x",)),
                         ast.CloseCursor("@c"), ast.DeallocateCursor("@c"))


def test_table_hints() -> None:
    stmt = one("SELECT * FROM [Order] o WITH (NOLOCK, INDEX(ix_a), INDEX = 2, READPAST)")
    assert isinstance(stmt, ast.SelectStmt) and isinstance(stmt.query, ast.Select)
    assert stmt.query.from_ == (ast.TableName(O("Order"), "o",
                                              ("NOLOCK", "INDEX(ix_a)", "INDEX(2)", "READPAST")),)
