-- Delivery to a service of another database of the instance: the owner of the initiating
-- service is impersonated in the target database, which SQL Server allows only out of a
-- TRUSTWORTHY database (else the message waits in sys.transmission_queue with Error 916);
-- there it is the user of its login (no user: guest, when guest may connect) and needs
-- SEND on the target service (Error 300). A service owned by dbo is not checked
-- (docs/decisions.md). Each step begins a new dialog: the first message is checked.
SET NOCOUNT ON
CREATE LOGIN applogin WITH PASSWORD = 'Str0ng!Passw0rd'
CREATE DATABASE xini
CREATE DATABASE xtgt
GO
USE xtgt
CREATE USER app_there FOR LOGIN applogin
CREATE MESSAGE TYPE [//x/m]
CREATE CONTRACT [//x/c] ([//x/m] SENT BY INITIATOR)
CREATE QUEUE dbo.tq
CREATE SERVICE [//x/target] ON QUEUE dbo.tq ([//x/c])
GO
USE xini
CREATE USER app FOR LOGIN applogin
CREATE USER nologin WITHOUT LOGIN
CREATE MESSAGE TYPE [//x/m]
CREATE CONTRACT [//x/c] ([//x/m] SENT BY INITIATOR)
CREATE QUEUE dbo.iq
CREATE SERVICE [//x/app] AUTHORIZATION app ON QUEUE dbo.iq
CREATE SERVICE [//x/nologin] AUTHORIZATION nologin ON QUEUE dbo.iq
CREATE SERVICE [//x/dbo] ON QUEUE dbo.iq
GO
CREATE PROCEDURE dbo.start @from sysname, @body varchar(10) AS
BEGIN
    DECLARE @h uniqueidentifier
    BEGIN DIALOG @h FROM SERVICE @from TO SERVICE '//x/target' ON CONTRACT [//x/c]
        WITH ENCRYPTION = OFF
    SEND ON CONVERSATION @h MESSAGE TYPE [//x/m] (@body)
END
GO
-- not TRUSTWORTHY: the owner's impersonation stays in its database
EXEC dbo.start '//x/app', 'one'
-- a dbo-owned service is delivered
EXEC dbo.start '//x/dbo', 'dbo'
SELECT from_service_name, transmission_status FROM sys.transmission_queue
GO
-- TRUSTWORTHY: the owner is its login's user there, which lacks SEND
ALTER DATABASE xini SET TRUSTWORTHY ON
GO
EXEC dbo.start '//x/app', 'two'
SELECT transmission_status FROM sys.transmission_queue
    WHERE CAST(message_body AS varchar(10)) = 'two'
-- a user without a login is guest there, and guest may not connect to xtgt
EXEC dbo.start '//x/nologin', 'three'
SELECT transmission_status FROM sys.transmission_queue
    WHERE CAST(message_body AS varchar(10)) = 'three'
GO
USE xtgt
GRANT SEND ON SERVICE::[//x/target] TO app_there
GO
USE xini
EXEC dbo.start '//x/app', 'four'
SELECT COUNT(*) AS still_held_four FROM sys.transmission_queue
    WHERE CAST(message_body AS varchar(10)) = 'four'
GO
USE xtgt
-- (the messages held before are retried by the broker's clock: not listed here)
SELECT CAST(message_body AS varchar(10)) AS delivered FROM dbo.tq
    WHERE CAST(message_body AS varchar(10)) IN ('dbo', 'four') ORDER BY delivered
GO
USE master
DROP DATABASE xini
DROP DATABASE xtgt
DROP LOGIN applogin
