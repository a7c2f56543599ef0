-- CREATE / ALTER QUEUE … ACTIVATION (EXECUTE AS …) records the principal: the user named,
-- the user running the statement for SELF, -2 for OWNER (sys.service_queues).
CREATE DATABASE qx
GO
USE qx
CREATE USER worker WITHOUT LOGIN
CREATE USER other WITHOUT LOGIN
GO
CREATE PROCEDURE dbo.act AS RETURN
GO
CREATE QUEUE q_user WITH ACTIVATION (STATUS = OFF, PROCEDURE_NAME = dbo.act,
    MAX_QUEUE_READERS = 1, EXECUTE AS 'worker')
CREATE QUEUE q_self WITH ACTIVATION (STATUS = OFF, PROCEDURE_NAME = dbo.act,
    MAX_QUEUE_READERS = 1, EXECUTE AS SELF)
CREATE QUEUE q_owner WITH ACTIVATION (STATUS = OFF, PROCEDURE_NAME = dbo.act,
    MAX_QUEUE_READERS = 1, EXECUTE AS OWNER)
CREATE QUEUE q_none
SELECT q.name, q.execute_as_principal_id, p.name AS principal
FROM sys.service_queues q LEFT JOIN sys.database_principals p
  ON p.principal_id = q.execute_as_principal_id
ORDER BY q.name
ALTER QUEUE q_user WITH ACTIVATION (EXECUTE AS 'other')
SELECT p.name FROM sys.service_queues q JOIN sys.database_principals p
  ON p.principal_id = q.execute_as_principal_id WHERE q.name = 'q_user'
PRINT '-- a user that does not exist'
CREATE QUEUE q_bad WITH ACTIVATION (STATUS = OFF, PROCEDURE_NAME = dbo.act,
    MAX_QUEUE_READERS = 1, EXECUTE AS 'nobody')
ALTER QUEUE q_user WITH ACTIVATION (EXECUTE AS 'nobody')
SELECT COUNT(*) FROM sys.service_queues WHERE name = 'q_bad'
GO
USE master
DROP DATABASE qx
