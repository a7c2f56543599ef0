-- Cross-database ownership chaining: a procedure or view of one database reaches an
-- object of another without a permission check there when both databases have
-- DB_CHAINING ON and the two owners are the same login (here sa, both databases' dbo).
SET NOCOUNT ON
CREATE LOGIN app WITH PASSWORD = 'Secret#123'
CREATE DATABASE chain_a
CREATE DATABASE chain_b
GO
USE chain_b
CREATE USER app FOR LOGIN app
CREATE TABLE dbo.t (id int)
INSERT INTO dbo.t VALUES (7)
GO
USE chain_a
CREATE USER app FOR LOGIN app
GO
CREATE PROCEDURE dbo.read_b AS SELECT id FROM chain_b.dbo.t
GO
CREATE VIEW dbo.v_b AS SELECT id FROM chain_b.dbo.t
GO
GRANT EXECUTE ON dbo.read_b TO app
GRANT SELECT ON dbo.v_b TO app
SELECT name, is_db_chaining_on FROM sys.databases WHERE name LIKE 'chain%' ORDER BY name
EXECUTE AS LOGIN = 'app'
EXEC dbo.read_b
SELECT id FROM dbo.v_b
REVERT
GO
PRINT '-- one database ON is not enough'
ALTER DATABASE chain_a SET DB_CHAINING ON
GO
EXECUTE AS LOGIN = 'app'
EXEC dbo.read_b
REVERT
GO
PRINT '-- both ON: chained'
ALTER DATABASE chain_b SET DB_CHAINING ON
SELECT name, is_db_chaining_on FROM sys.databases WHERE name LIKE 'chain%' ORDER BY name
GO
EXECUTE AS LOGIN = 'app'
EXEC dbo.read_b
SELECT id FROM dbo.v_b
REVERT
GO
PRINT '-- owners that are different logins break the chain'
USE chain_b
CREATE USER tbl_owner WITHOUT LOGIN
ALTER AUTHORIZATION ON dbo.t TO tbl_owner
GO
USE chain_a
EXECUTE AS LOGIN = 'app'
EXEC dbo.read_b
REVERT
GO
PRINT '-- only sysadmin sets DB_CHAINING'
EXECUTE AS LOGIN = 'app'
ALTER DATABASE chain_a SET DB_CHAINING OFF
REVERT
GO
USE master
DROP DATABASE chain_a
DROP DATABASE chain_b
