-- Metadata visibility of sys.transmission_queue: a message waiting for transmission is seen
-- with the local service that sent it (a permission on the service, or one at the database
-- level implying it, ALTER ANY SERVICE); dbo sees every message.
SET NOCOUNT ON
CREATE LOGIN tqv_login WITH PASSWORD = 'Pa55word!x', CHECK_POLICY = OFF
CREATE DATABASE tqv
GO
USE tqv
CREATE QUEUE dbo.qa
CREATE QUEUE dbo.qb
CREATE SERVICE [//tqv/a] ON QUEUE dbo.qa ([DEFAULT])
CREATE SERVICE [//tqv/b] ON QUEUE dbo.qb ([DEFAULT])
CREATE USER u FOR LOGIN tqv_login
CREATE USER admin WITHOUT LOGIN
GRANT SEND ON SERVICE::[//tqv/a] TO u
GRANT ALTER ANY SERVICE TO admin
GO
DECLARE @h uniqueidentifier
BEGIN DIALOG @h FROM SERVICE [//tqv/a] TO SERVICE '//nowhere/x' WITH ENCRYPTION = OFF;
SEND ON CONVERSATION @h ('from a')
BEGIN DIALOG @h FROM SERVICE [//tqv/b] TO SERVICE '//nowhere/y' WITH ENCRYPTION = OFF;
SEND ON CONVERSATION @h ('from b')
GO
SELECT from_service_name, to_service_name FROM sys.transmission_queue
    ORDER BY from_service_name
EXECUTE AS LOGIN = 'tqv_login'
SELECT from_service_name, CAST(message_body AS varchar(10)) AS body
    FROM sys.transmission_queue
REVERT
EXECUTE AS USER = 'admin'
SELECT COUNT(*) AS messages FROM sys.transmission_queue
REVERT
GO
REVOKE SEND ON SERVICE::[//tqv/a] FROM u
EXECUTE AS LOGIN = 'tqv_login'
SELECT COUNT(*) AS messages FROM sys.transmission_queue
REVERT
GO
USE master
DROP DATABASE tqv
DROP LOGIN tqv_login
