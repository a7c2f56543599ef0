-- Access to other databases (Msg 916) under logins, EXECUTE AS and TRUSTWORTHY; SEND's own
-- permission (RECEIVE on the queue of the service that sends).
CREATE DATABASE acc_home
CREATE DATABASE acc_other
GO
USE acc_other
SET NOCOUNT ON
CREATE TABLE dbo.other_t (a int)
INSERT dbo.other_t VALUES (7)
GRANT SELECT ON dbo.other_t TO public
GO
USE acc_home
SET NOCOUNT ON
CREATE TABLE dbo.home_t (a int)
CREATE USER clerk WITHOUT LOGIN
GRANT SELECT ON dbo.home_t TO clerk
CREATE LOGIN acc_login WITH PASSWORD = 'Str0ng!Passw0rd'
CREATE USER acc_user FOR LOGIN acc_login
GO
PRINT '-- a database user impersonated stays in its database'
EXECUTE AS USER = 'clerk'
SELECT COUNT(*) AS home_rows FROM dbo.home_t
SELECT a FROM acc_other.dbo.other_t
USE acc_other
SELECT USER_NAME() AS still_user, DB_NAME() AS still_in
REVERT
GO
PRINT '-- a login reaches another database as its user there, or as guest if guest may connect'
EXECUTE AS LOGIN = 'acc_login'
SELECT USER_NAME() AS home_user
SELECT a FROM acc_other.dbo.other_t
USE acc_other
REVERT
USE acc_other
GRANT CONNECT TO guest
USE acc_home
EXECUTE AS LOGIN = 'acc_login'
SELECT a FROM acc_other.dbo.other_t
USE acc_other
SELECT USER_NAME() AS other_user, DB_NAME() AS now_in
USE acc_home
SELECT USER_NAME() AS back_home
REVERT
GO
PRINT '-- TRUSTWORTHY lets an impersonated user out as its login (guest here)'
ALTER DATABASE acc_home SET TRUSTWORTHY ON
EXECUTE AS USER = 'acc_user'
SELECT a FROM acc_other.dbo.other_t
REVERT
ALTER DATABASE acc_home SET TRUSTWORTHY OFF
EXECUTE AS USER = 'acc_user'
SELECT a FROM acc_other.dbo.other_t
REVERT
GO
PRINT '-- a user whose CONNECT is revoked cannot USE its database'
REVOKE CONNECT FROM acc_user
USE master
EXECUTE AS LOGIN = 'acc_login'
USE acc_home
SELECT DB_NAME() AS stays_in
REVERT
GO
PRINT '-- SEND needs RECEIVE on the queue of the service it sends from'
USE acc_home
SET NOCOUNT ON
CREATE QUEUE dbo.init_q
CREATE SERVICE init_svc ON QUEUE dbo.init_q
CREATE QUEUE dbo.target_q
CREATE SERVICE target_svc ON QUEUE dbo.target_q ([DEFAULT])
GRANT SEND ON SERVICE::target_svc TO clerk
GRANT RECEIVE ON dbo.init_q TO clerk
GO
DECLARE @h uniqueidentifier
EXECUTE AS USER = 'clerk'
BEGIN DIALOG @h FROM SERVICE init_svc TO SERVICE 'target_svc' WITH ENCRYPTION = OFF
SEND ON CONVERSATION @h (0x01)
REVERT
REVOKE RECEIVE ON dbo.init_q FROM clerk
EXECUTE AS USER = 'clerk'
SEND ON CONVERSATION @h (0x02)
REVERT
SELECT COUNT(*) AS delivered FROM dbo.target_q
GO
USE master
DROP DATABASE acc_home
DROP DATABASE acc_other
DROP LOGIN acc_login
