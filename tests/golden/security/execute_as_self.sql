-- WITH EXECUTE AS SELF runs a procedure, function or trigger as the user who created or
-- last altered it (sys.sql_modules.execute_as_principal_id keeps that user's id).
SET NOCOUNT ON
CREATE USER maker WITHOUT LOGIN
CREATE USER visitor WITHOUT LOGIN
GRANT CREATE PROCEDURE, CREATE FUNCTION TO maker
GRANT ALTER ON SCHEMA::dbo TO maker
CREATE TABLE dbo.t (id int)
GO
EXECUTE AS USER = 'maker'
GO
CREATE PROCEDURE dbo.p_self WITH EXECUTE AS SELF AS PRINT 'p_self: ' + USER_NAME()
GO
CREATE FUNCTION dbo.f_self() RETURNS sysname WITH EXECUTE AS SELF
AS BEGIN RETURN USER_NAME() END
GO
CREATE TRIGGER dbo.t_ins ON dbo.t WITH EXECUTE AS SELF AFTER INSERT
AS PRINT 't_ins: ' + USER_NAME()
GO
REVERT
GRANT EXECUTE ON dbo.p_self TO visitor
GRANT EXECUTE ON dbo.f_self TO visitor
GRANT INSERT ON dbo.t TO visitor
GO
EXEC dbo.p_self
SELECT dbo.f_self() AS f_self
INSERT INTO dbo.t VALUES (1)
EXECUTE AS USER = 'visitor'
EXEC dbo.p_self
SELECT dbo.f_self() AS f_self
INSERT INTO dbo.t VALUES (2)
PRINT 'after: ' + USER_NAME()
REVERT
GO
-- ALTER by dbo: the procedure now runs as dbo; its permission stays.
ALTER PROCEDURE dbo.p_self WITH EXECUTE AS SELF AS PRINT 'p_self: ' + USER_NAME()
GO
EXECUTE AS USER = 'visitor'
EXEC dbo.p_self
REVERT
GO
-- Altered to EXECUTE AS CALLER: the caller again.
ALTER PROCEDURE dbo.p_self AS PRINT 'p_self: ' + USER_NAME()
GO
EXECUTE AS USER = 'visitor'
EXEC dbo.p_self
REVERT
GO
-- EXECUTE AS OWNER / a named user on a function and a trigger.
CREATE FUNCTION dbo.f_user() RETURNS sysname WITH EXECUTE AS 'visitor'
AS BEGIN RETURN USER_NAME() END
GO
CREATE FUNCTION dbo.f_owner() RETURNS sysname WITH EXECUTE AS OWNER
AS BEGIN RETURN USER_NAME() END
GO
SELECT dbo.f_user() AS f_user, dbo.f_owner() AS f_owner, USER_NAME() AS outside
GO
-- sys.sql_modules.execute_as_principal_id: NULL for CALLER, -2 for OWNER, the user's id
SELECT OBJECT_NAME(m.object_id) AS module, m.execute_as_principal_id AS principal_id,
       USER_NAME(m.execute_as_principal_id) AS principal
FROM sys.sql_modules m ORDER BY module
GO
-- a user that does not exist: Msg 15151, nothing created
CREATE PROCEDURE dbo.p_nobody WITH EXECUTE AS 'nobody' AS PRINT 'x'
GO
SELECT COUNT(*) AS p_nobody FROM sys.objects WHERE name = 'p_nobody'
