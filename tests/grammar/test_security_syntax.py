"""Security statements (GRANT / REVOKE / DENY, users, logins, certificates, the database master
key, EXECUTE AS / REVERT), INSERT … EXEC ('string'), and non-reserved keywords as implicit
column aliases."""

from __future__ import annotations

import pytest
from grammar_helpers import one

from tsqlbroker.errors import ParseError
from tsqlbroker.grammar import ast, parse_batch

O = ast.ObjectName
P = ast.Permission
PS = ast.PermissionStatement
SEC = ast.Securable
PK = ast.PrivateKeyOptions

CASES: list[tuple[str, ast.Stmt]] = [
    # --- permissions -------------------------------------------------------------------------
    ("GRANT SEND ON SERVICE::[//x/Svc] TO PUBLIC",
     PS("GRANT", (P("SEND"),), SEC("SERVICE", O("//x/Svc")), ("PUBLIC",))),
    ("GRANT CONNECT TO [user]", PS("GRANT", (P("CONNECT"),), None, ("user",))),
    ("GRANT RECEIVE ON queue1 TO u", PS("GRANT", (P("RECEIVE"),), SEC(None, O("queue1")), ("u",))),
    ("GRANT EXEC ON dbo.take_order TO u, v WITH GRANT OPTION AS dbo",
     PS("GRANT", (P("EXECUTE"),), SEC(None, O("take_order", "dbo")), ("u", "v"),
        with_grant_option=True, as_principal="dbo")),
    ("GRANT SELECT (a, b), UPDATE ON OBJECT::dbo.t TO u",
     PS("GRANT", (P("SELECT", ("a", "b")), P("UPDATE")), SEC("OBJECT", O("t", "dbo")), ("u",))),
    ("GRANT VIEW DEFINITION ON MESSAGE TYPE::[//m] TO u",
     PS("GRANT", (P("VIEW DEFINITION"),), SEC("MESSAGE TYPE", O("//m")), ("u",))),
    ("GRANT REFERENCES ON REMOTE SERVICE BINDING::b TO u",
     PS("GRANT", (P("REFERENCES"),), SEC("REMOTE SERVICE BINDING", O("b")), ("u",))),
    ("GRANT CREATE TABLE, ALTER ANY USER, CREATE QUEUE TO u",
     PS("GRANT", (P("CREATE TABLE"), P("ALTER ANY USER"), P("CREATE QUEUE")), None, ("u",))),
    ("GRANT CONTROL ON DATABASE::shop TO u",
     PS("GRANT", (P("CONTROL"),), SEC("DATABASE", O("shop")), ("u",))),
    ("GRANT CONNECT ON ENDPOINT::BrokerEndpoint TO [DOMAIN\\svc]",
     PS("GRANT", (P("CONNECT"),), SEC("ENDPOINT", O("BrokerEndpoint")), ("DOMAIN\\svc",))),
    ("GRANT ALL PRIVILEGES ON t TO u", PS("GRANT", (P("ALL"),), SEC(None, O("t")), ("u",))),
    ("REVOKE GRANT OPTION FOR EXECUTE ON p FROM u CASCADE",
     PS("REVOKE", (P("EXECUTE"),), SEC(None, O("p")), ("u",), grant_option_for=True,
        cascade=True)),
    ("REVOKE SEND ON SERVICE::s TO public AS dbo",
     PS("REVOKE", (P("SEND"),), SEC("SERVICE", O("s")), ("public",), as_principal="dbo")),
    ("DENY SELECT ON t TO u CASCADE",
     PS("DENY", (P("SELECT"),), SEC(None, O("t")), ("u",), cascade=True)),
    # --- users and logins --------------------------------------------------------------------
    ("CREATE USER u WITHOUT LOGIN", ast.CreateUser("u", "WITHOUT LOGIN")),
    ("CREATE USER u FOR LOGIN l WITH DEFAULT_SCHEMA = dbo",
     ast.CreateUser("u", "LOGIN", "l", (("default_schema", "dbo"),))),
    ("CREATE USER u FROM LOGIN [l]", ast.CreateUser("u", "LOGIN", "l")),
    ("CREATE USER u FOR CERTIFICATE c", ast.CreateUser("u", "CERTIFICATE", "c")),
    ("CREATE USER u FROM CERTIFICATE c", ast.CreateUser("u", "CERTIFICATE", "c")),
    ("CREATE USER u", ast.CreateUser("u")),
    ("ALTER USER u WITH NAME = v, DEFAULT_SCHEMA = s, LOGIN = l",
     ast.AlterUser("u", (("name", "v"), ("default_schema", "s"), ("login", "l")))),
    ("DROP USER u", ast.DropUser("u")),
    ("DROP USER IF EXISTS u", ast.DropUser("u", True)),
    (("CREATE LOGIN l WITH PASSWORD = N'p''w' MUST_CHANGE, CHECK_EXPIRATION = ON, "
     "CHECK_POLICY = OFF, DEFAULT_DATABASE = shop"),
     ast.CreateLogin("l", "PASSWORD", options=(
         ("password", "p'w"), ("must_change", True), ("check_expiration", True),
         ("check_policy", False), ("default_database", "shop")))),
    ("CREATE LOGIN [D\\x] FROM WINDOWS", ast.CreateLogin("D\\x", "WINDOWS")),
    ("CREATE LOGIN [D\\x] FROM WINDOWS WITH DEFAULT_DATABASE = shop",
     ast.CreateLogin("D\\x", "WINDOWS", options=(("default_database", "shop"),))),
    ("CREATE LOGIN cl FROM CERTIFICATE c", ast.CreateLogin("cl", "CERTIFICATE", "c")),
    ("ALTER LOGIN l ENABLE", ast.AlterLogin("l", True)),
    ("ALTER LOGIN l DISABLE", ast.AlterLogin("l", False)),
    ("ALTER LOGIN l WITH PASSWORD = 'n'", ast.AlterLogin("l", options=(("password", "n"),))),
    ("ALTER LOGIN l WITH PASSWORD = 'n' OLD_PASSWORD = 'o'",
     ast.AlterLogin("l", options=(("password", "n"), ("old_password", "o")))),
    ("ALTER LOGIN l WITH PASSWORD = 'n' UNLOCK MUST_CHANGE, CHECK_POLICY = ON",
     ast.AlterLogin("l", options=(("password", "n"), ("unlock", True), ("must_change", True),
                                  ("check_policy", True)))),
    ("CREATE SERVER ROLE r AUTHORIZATION l", ast.CreateRole("r", "l", server=True)),
    ("ALTER SERVER ROLE r WITH NAME = r2",
     ast.AlterRole("r", options=(("name", "r2"),), server=True)),
    ("DROP SERVER ROLE r", ast.DropRole("r", server=True)),
    ("DROP LOGIN l", ast.DropLogin("l")),
    # --- certificates ------------------------------------------------------------------------
    (("CREATE CERTIFICATE c AUTHORIZATION u WITH SUBJECT = 'Svc', EXPIRY_DATE = '20301231' "
     "ACTIVE FOR BEGIN_DIALOG = ON"),
     ast.CreateCertificate("c", "u", "Svc", expiry_date="20301231",
                           active_for_begin_dialog=True)),
    (("CREATE CERTIFICATE c ENCRYPTION BY PASSWORD = 'p' WITH SUBJECT = N'x', "
     "START_DATE = '2020-01-01', EXPIRY_DATE = '2021-01-01'"),
     ast.CreateCertificate("c", subject="x", start_date="2020-01-01",
                           expiry_date="2021-01-01", password="p")),
    ("CREATE CERTIFICATE c FROM FILE = 'c.cer'", ast.CreateCertificate("c", file="c.cer")),
    (("CREATE CERTIFICATE c AUTHORIZATION u FROM FILE = 'c.cer' WITH PRIVATE KEY "
     "(FILE = 'c.pvk', DECRYPTION BY PASSWORD = 'd', ENCRYPTION BY PASSWORD = 'e') "
     "ACTIVE FOR BEGIN_DIALOG = OFF"),
     ast.CreateCertificate("c", "u", file="c.cer", private_key=PK("c.pvk", "d", "e"),
                           active_for_begin_dialog=False)),
    ("ALTER CERTIFICATE c REMOVE PRIVATE KEY", ast.AlterCertificate("c", True)),
    ("ALTER CERTIFICATE c WITH ACTIVE FOR BEGIN_DIALOG = OFF",
     ast.AlterCertificate("c", active_for_begin_dialog=False)),
    ("ALTER CERTIFICATE c WITH PRIVATE KEY (FILE = 'k', DECRYPTION BY PASSWORD = 'd')",
     ast.AlterCertificate("c", private_key=PK("k", "d"))),
    ("DROP CERTIFICATE c", ast.DropCertificate("c")),
    ("BACKUP CERTIFICATE c TO FILE = 'c.cer'", ast.BackupCertificate("c", "c.cer")),
    (("BACKUP CERTIFICATE c TO FILE = 'c.cer' WITH PRIVATE KEY (FILE = 'c.pvk', "
     "ENCRYPTION BY PASSWORD = 'e')"),
     ast.BackupCertificate("c", "c.cer", PK("c.pvk", encryption_password="e"))),
    # --- the database master key -------------------------------------------------------------
    ("CREATE MASTER KEY ENCRYPTION BY PASSWORD = 'Pa$$w0rd'", ast.CreateMasterKey("Pa$$w0rd")),
    ("CREATE MASTER KEY", ast.CreateMasterKey()),
    ("ALTER MASTER KEY FORCE REGENERATE WITH ENCRYPTION BY PASSWORD = 'q'",
     ast.AlterMasterKey("REGENERATE", "q", force=True)),
    ("ALTER MASTER KEY REGENERATE WITH ENCRYPTION BY PASSWORD = 'q'",
     ast.AlterMasterKey("REGENERATE", "q")),
    ("ALTER MASTER KEY ADD ENCRYPTION BY SERVICE MASTER KEY",
     ast.AlterMasterKey("ADD", service_master_key=True)),
    ("ALTER MASTER KEY DROP ENCRYPTION BY PASSWORD = 'q'", ast.AlterMasterKey("DROP", "q")),
    ("DROP MASTER KEY", ast.DropMasterKey()),
    ("OPEN MASTER KEY DECRYPTION BY PASSWORD = 'q'", ast.OpenMasterKey("q")),
    ("CLOSE MASTER KEY", ast.CloseMasterKey()),
    # --- impersonation -----------------------------------------------------------------------
    ("EXECUTE AS USER = 'u'", ast.ExecuteAs("USER", "u")),
    ("EXEC AS LOGIN = N'l' WITH NO REVERT", ast.ExecuteAs("LOGIN", "l", no_revert=True)),
    ("EXECUTE AS CALLER", ast.ExecuteAs("CALLER")),
    ("EXECUTE AS USER = 'u' WITH COOKIE INTO @c",
     ast.ExecuteAs("USER", "u", cookie_variable="@c")),
    ("REVERT", ast.Revert()),
    ("REVERT WITH COOKIE = @c;", ast.Revert("@c")),
]


@pytest.mark.parametrize(("sql", "expected"), CASES, ids=[c[0][:50] for c in CASES])
def test_security_statement(sql: str, expected: ast.Stmt) -> None:
    assert one(sql) == expected


def test_security_statements_in_a_batch_carry_spans() -> None:
    stmts = parse_batch("CREATE USER u WITHOUT LOGIN\nGRANT SEND ON SERVICE::s TO u\n"
                        "EXECUTE AS USER = 'u'\nREVERT").statements
    assert [type(s).__name__ for s in stmts] == ["CreateUser", "PermissionStatement",
                                                  "ExecuteAs", "Revert"]
    assert [s.span.line for s in stmts if s.span] == [1, 2, 3, 4]


def test_execute_procedure_is_not_execute_as() -> None:
    stmt = one("EXECUTE dbo.p @a = 1")
    assert isinstance(stmt, ast.ExecProc)


@pytest.mark.parametrize("sql", [
    "GRANT ON t TO u",                       # no permission
    "GRANT SELECT ON t",                      # no principal
    "CREATE CERTIFICATE c",                   # neither SUBJECT nor FILE
    "CREATE USER u WITHOUT",
    "OPEN MASTER KEY",
    "EXECUTE AS USER",
])
def test_incomplete_security_statements_are_syntax_errors(sql: str) -> None:
    with pytest.raises(ParseError):
        parse_batch(sql)


@pytest.mark.parametrize("source", ["EXEC ('SELECT 1')", "EXECUTE (@sql)",
                                    "EXEC (N'SELECT ' + @cols + ' FROM t')"])
def test_insert_exec_dynamic_sql(source: str) -> None:
    stmt = one(f"INSERT INTO #t (a) {source}")
    assert isinstance(stmt, ast.Insert) and isinstance(stmt.source, ast.ExecDynamic)
    assert stmt.columns == ("a",)


@pytest.mark.parametrize("word", ["output", "status", "active", "encryption", "lifetime",
                                  "rows", "row", "range", "persisted", "readonly", "out",
                                  "validation", "retention", "cast", "using", "anonymous"])
@pytest.mark.parametrize("template", ["SELECT a {w}", "SELECT 1 {w}", "SELECT t.a {w} FROM t",
                                      "SELECT 'x' {w}, b FROM t"])
def test_non_reserved_keywords_are_implicit_aliases(word: str, template: str) -> None:
    stmt = one(template.format(w=word))
    assert isinstance(stmt, ast.SelectStmt) and isinstance(stmt.query, ast.Select)
    assert stmt.query.items[0].alias == word


def test_keywords_keep_their_meaning_where_they_fit() -> None:
    stmt = one("EXEC dbo.p @a = @x OUTPUT")
    assert isinstance(stmt, ast.ExecProc) and stmt.args[0].output
    ins = one("INSERT INTO t (a) OUTPUT inserted.a VALUES (1)")
    assert isinstance(ins, ast.Insert) and ins.output is not None


@pytest.mark.parametrize("sql", ["SELECT a from", "SELECT FROM t", "SELECT a select"])
def test_reserved_words_are_never_aliases(sql: str) -> None:
    with pytest.raises(ParseError):
        parse_batch(sql)


@pytest.mark.parametrize(("sql", "expected"), [
    ("CREATE ROLE r", ast.CreateRole("r")),
    ("CREATE ROLE [r w] AUTHORIZATION dbo", ast.CreateRole("r w", "dbo")),
    ("ALTER ROLE r ADD MEMBER u", ast.AlterRole("r", add_member="u")),
    ("ALTER ROLE db_owner DROP MEMBER [u]", ast.AlterRole("db_owner", drop_member="u")),
    ("ALTER ROLE r WITH NAME = s", ast.AlterRole("r", options=(("name", "s"),))),
    ("DROP ROLE r", ast.DropRole("r")),
    ("DROP ROLE IF EXISTS r", ast.DropRole("r", True)),
])
def test_role_statement(sql: str, expected: ast.Stmt) -> None:
    assert one(sql) == expected
