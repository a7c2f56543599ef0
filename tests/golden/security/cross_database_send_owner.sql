-- A dbo-owned initiating service passes delivery's check in another database only when
-- its database is sa's (docs/decisions.md *Cross-database SEND*): the dbo of a database
-- another login owns is that login, impersonated there as any owner is (Error 916 out of
-- a database that is not TRUSTWORTHY, then the SEND check as its login's user).
SET NOCOUNT ON
CREATE LOGIN dbowner WITH PASSWORD = 'Str0ng!Passw0rd'
CREATE DATABASE oini
CREATE DATABASE otgt
GO
USE otgt
CREATE USER dbowner_there FOR LOGIN dbowner
CREATE MESSAGE TYPE [//o/m]
CREATE CONTRACT [//o/c] ([//o/m] SENT BY INITIATOR)
CREATE QUEUE dbo.tq
CREATE SERVICE [//o/target] ON QUEUE dbo.tq ([//o/c])
GO
USE oini
CREATE MESSAGE TYPE [//o/m]
CREATE CONTRACT [//o/c] ([//o/m] SENT BY INITIATOR)
CREATE QUEUE dbo.iq
CREATE SERVICE [//o/dbo] ON QUEUE dbo.iq
GO
CREATE PROCEDURE dbo.start @body varchar(10) AS
BEGIN
    DECLARE @h uniqueidentifier
    BEGIN DIALOG @h FROM SERVICE [//o/dbo] TO SERVICE '//o/target' ON CONTRACT [//o/c]
        WITH ENCRYPTION = OFF
    SEND ON CONVERSATION @h MESSAGE TYPE [//o/m] (@body)
END
GO
-- sa's database: delivered
EXEC dbo.start 'sa'
ALTER AUTHORIZATION ON DATABASE::oini TO dbowner
GO
-- dbowner's database, not TRUSTWORTHY: held (Error 916)
EXEC dbo.start 'one'
SELECT transmission_status FROM sys.transmission_queue
    WHERE CAST(message_body AS varchar(10)) = 'one'
GO
ALTER DATABASE oini SET TRUSTWORTHY ON
GO
-- TRUSTWORTHY: dbowner's user there lacks SEND (Error 300)
EXEC dbo.start 'two'
SELECT transmission_status FROM sys.transmission_queue
    WHERE CAST(message_body AS varchar(10)) = 'two'
GO
USE otgt
GRANT SEND ON SERVICE::[//o/target] TO dbowner_there
GO
USE oini
EXEC dbo.start 'three'
SELECT COUNT(*) AS still_held_three FROM sys.transmission_queue
    WHERE CAST(message_body AS varchar(10)) = 'three'
GO
USE otgt
SELECT CAST(message_body AS varchar(10)) AS delivered FROM dbo.tq
    WHERE CAST(message_body AS varchar(10)) IN ('sa', 'three') ORDER BY delivered
GO
USE master
DROP DATABASE oini
DROP DATABASE otgt
DROP LOGIN dbowner
