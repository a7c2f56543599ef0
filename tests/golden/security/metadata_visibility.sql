-- Metadata visibility: a principal sees in the catalog views only what it holds some
-- permission on (its own, public's, its roles'; on the object, its schema or the database);
-- a module's definition needs VIEW DEFINITION (or ALTER / CONTROL); dbo sees everything.
SET NOCOUNT ON
CREATE DATABASE vis
GO
USE vis
CREATE TABLE dbo.t1 (a int CONSTRAINT pk_t1 PRIMARY KEY)
CREATE TABLE dbo.t2 (a int, b int)
CREATE TABLE dbo.t3 (a int CONSTRAINT pk_t3 PRIMARY KEY CONSTRAINT ck_t3 CHECK (a > 0))
GO
CREATE TRIGGER dbo.tr_t1 ON dbo.t1 AFTER INSERT AS SELECT 1
GO
CREATE TRIGGER dbo.tr_t3 ON dbo.t3 AFTER INSERT AS SELECT 1
GO
CREATE PROCEDURE dbo.p1 AS SELECT 1
GO
CREATE QUEUE dbo.q1
CREATE QUEUE dbo.q2
CREATE MESSAGE TYPE [//m/a]
CREATE CONTRACT [//c/a] ([//m/a] SENT BY ANY)
CREATE SERVICE [//s/a] ON QUEUE dbo.q1 ([//c/a])
CREATE SERVICE [//s/b] ON QUEUE dbo.q2
CREATE USER u WITHOUT LOGIN
CREATE USER r WITHOUT LOGIN
CREATE USER vd WITHOUT LOGIN
CREATE USER sch WITHOUT LOGIN
GRANT VIEW DEFINITION TO vd
GRANT SELECT ON SCHEMA::dbo TO sch
ALTER ROLE db_datareader ADD MEMBER r
GRANT SELECT ON dbo.t1 TO u
GRANT SELECT (b) ON dbo.t2 TO u
GRANT EXECUTE ON dbo.p1 TO u
GRANT RECEIVE ON dbo.q1 TO u
GRANT SEND ON SERVICE::[//s/b] TO u
GO
EXECUTE AS USER = 'u'
SELECT name, type FROM sys.objects ORDER BY name
SELECT name FROM sys.tables ORDER BY name
SELECT name FROM sys.procedures
SELECT name FROM sys.service_queues
SELECT name FROM sys.services
SELECT COUNT(*) AS n_system_types FROM sys.service_message_types WHERE name LIKE 'http://schemas%'
SELECT name FROM sys.service_message_types WHERE name NOT LIKE 'http://schemas%'
SELECT name FROM sys.service_contracts
SELECT OBJECT_NAME(object_id) AS o, definition FROM sys.sql_modules
SELECT OBJECT_NAME(object_id) AS t, name FROM sys.columns ORDER BY t, column_id
SELECT TABLE_NAME FROM INFORMATION_SCHEMA.TABLES ORDER BY 1
SELECT name FROM sys.key_constraints ORDER BY name
SELECT name FROM sys.check_constraints
SELECT name FROM sys.triggers ORDER BY name
SELECT OBJECT_DEFINITION(OBJECT_ID('dbo.p1')) AS p1_text
EXEC sp_helptext 'dbo.p1'
EXEC sp_helptext 'dbo.tr_t3'
REVERT
GRANT VIEW DEFINITION ON dbo.p1 TO u
EXECUTE AS USER = 'u'
SELECT OBJECT_NAME(object_id) AS o, definition FROM sys.sql_modules
SELECT OBJECT_DEFINITION(OBJECT_ID('dbo.p1')) AS p1_text
EXEC sp_helptext 'dbo.p1'
REVERT
EXECUTE AS USER = 'vd'
SELECT COUNT(*) AS vd_objects FROM sys.objects
SELECT name FROM sys.services ORDER BY name
SELECT name FROM sys.service_contracts WHERE name NOT LIKE 'DEFAULT'
SELECT name FROM sys.routes
REVERT
EXECUTE AS USER = 'sch'
SELECT COUNT(*) AS sch_objects FROM sys.objects
SELECT name FROM sys.services
REVERT
EXECUTE AS USER = 'r'
SELECT name, type FROM sys.objects ORDER BY name
SELECT name FROM sys.service_queues
REVERT
SELECT COUNT(*) AS dbo_sees FROM sys.objects
GO
USE master
DROP DATABASE vis
