-- Session and metadata functions inside storage queries: the session's values (as outside a
-- query) and catalog look-ups per row, the same on every backend.
SET NOCOUNT ON
CREATE TABLE dbo.audit (id int PRIMARY KEY, who sysname NULL, login sysname NULL, db sysname NULL)
INSERT dbo.audit (id) VALUES (1), (2)
GO
CREATE TABLE dbo.orders (order_id int PRIMARY KEY, amount money)
GO
SELECT id, USER_NAME() AS u, SUSER_SNAME() AS s, SUSER_NAME() AS sn, CURRENT_USER AS cu,
       SESSION_USER AS su, SYSTEM_USER AS sy, ORIGINAL_LOGIN() AS ol, DB_NAME() AS d,
       APP_NAME() AS app
FROM dbo.audit ORDER BY id
GO
UPDATE dbo.audit SET who = USER_NAME(), login = SYSTEM_USER, db = DB_NAME() WHERE id = 2
INSERT dbo.audit (id, who, login, db) SELECT id + 10, CURRENT_USER, SUSER_SNAME(), DB_NAME()
FROM dbo.audit WHERE id = 1
SELECT id, who, login, db FROM dbo.audit ORDER BY id
SELECT COUNT(*) AS mine FROM dbo.audit WHERE who = USER_NAME() AND login = SUSER_SNAME()
GO
SELECT id, CASE WHEN @@SPID = @@SPID THEN 'same' END AS spid, @@TRANCOUNT AS tc,
       DB_ID() - DB_ID(DB_NAME()) AS zero
FROM dbo.audit WHERE id = 1
SELECT name, OBJECT_NAME(object_id) AS by_id, OBJECT_SCHEMA_NAME(object_id) AS sch,
       SCHEMA_NAME(schema_id) AS sch2, type
FROM sys.objects WHERE type = 'U' ORDER BY name
SELECT o.name, COL_NAME(o.object_id, 1) AS first_col, OBJECT_ID('dbo.orders', 'U') - o.object_id AS d
FROM sys.objects AS o WHERE o.name = 'orders'
SELECT COUNT(*) AS n FROM sys.tables WHERE OBJECT_ID('dbo.audit') = object_id
SELECT COUNT(*) AS n FROM sys.tables WHERE OBJECT_ID('dbo.audit', 'V') IS NULL
SELECT name FROM sys.schemas WHERE SCHEMA_ID(name) = SCHEMA_ID('DBO')
SELECT TOP 1 OBJECT_NAME(-12345) AS missing, SCHEMA_NAME(999) AS none FROM sys.objects
SELECT name, USER_NAME(principal_id) AS un, USER_ID(name) AS ui FROM sys.database_principals
WHERE principal_id < 5 ORDER BY principal_id
SELECT name, TYPE_NAME(user_type_id) AS tn, TYPE_ID(name) AS ti FROM sys.types
WHERE name IN ('int', 'nvarchar', 'xml') ORDER BY name
SELECT name, SUSER_NAME(principal_id) AS sn, SUSER_SNAME(sid) AS ss FROM sys.server_principals
WHERE name = 'sa'
GO
EXECUTE AS USER = 'dbo'
SELECT TOP 1 USER_NAME() AS u FROM dbo.audit
REVERT
GO
BEGIN TRY
  SELECT 1/0
END TRY
BEGIN CATCH
  SELECT id, ERROR_NUMBER() AS num, ERROR_MESSAGE() AS msg FROM dbo.audit WHERE id = 1
END CATCH
GO
