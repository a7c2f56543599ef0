-- Delivery's SEND check: the owner of the initiating service needs SEND on the target
-- service (dbo, db_owner members and the target's own owner pass). Refused, the dialog's
-- first message stays in sys.transmission_queue with a transmission_status saying why and
-- no target endpoint is made; with the permission it is delivered. CREATE SERVICE …
-- AUTHORIZATION names the owner (sys.services.principal_id): dbo may name anyone, others
-- themselves or a role they belong to (Msg 15151).
SET NOCOUNT ON
CREATE DATABASE sos
GO
USE sos
CREATE USER app WITHOUT LOGIN
CREATE USER other WITHOUT LOGIN
CREATE MESSAGE TYPE [//m/req]
CREATE CONTRACT [//c/req] ([//m/req] SENT BY INITIATOR)
CREATE QUEUE dbo.initq
CREATE QUEUE dbo.targq
CREATE QUEUE dbo.targq2
CREATE SERVICE [//s/init] AUTHORIZATION app ON QUEUE dbo.initq
CREATE SERVICE [//s/target] ON QUEUE dbo.targq ([//c/req])
CREATE SERVICE [//s/own] AUTHORIZATION app ON QUEUE dbo.targq2 ([//c/req])
CREATE SERVICE [//s/ghost] AUTHORIZATION nobody ON QUEUE dbo.initq
SELECT name, USER_NAME(principal_id) AS owner FROM sys.services
    WHERE name LIKE '//s/%' ORDER BY name
GRANT CREATE SERVICE TO other
GRANT REFERENCES ON dbo.initq TO other
GO
EXECUTE AS USER = 'other'
CREATE SERVICE [//s/x] AUTHORIZATION app ON QUEUE dbo.initq
CREATE SERVICE [//s/y] AUTHORIZATION other ON QUEUE dbo.initq
SELECT name AS seen_by_owner FROM sys.services
REVERT
SELECT name, USER_NAME(principal_id) AS owner FROM sys.services WHERE name = '//s/y'
GO
DECLARE @h uniqueidentifier
BEGIN DIALOG @h FROM SERVICE [//s/init] TO SERVICE '//s/target' ON CONTRACT [//c/req]
    WITH ENCRYPTION = OFF
SEND ON CONVERSATION @h MESSAGE TYPE [//m/req] ('one')
SELECT to_service_name, transmission_status FROM sys.transmission_queue
SELECT COUNT(*) AS delivered FROM dbo.targq
SELECT COUNT(*) AS target_endpoints FROM sys.conversation_endpoints WHERE is_initiator = 0
-- the target's own owner may always send to it
BEGIN DIALOG @h FROM SERVICE [//s/init] TO SERVICE '//s/own' ON CONTRACT [//c/req]
    WITH ENCRYPTION = OFF
SEND ON CONVERSATION @h MESSAGE TYPE [//m/req] ('mine')
SELECT COUNT(*) AS delivered_own FROM dbo.targq2
GRANT SEND ON SERVICE::[//s/target] TO app
BEGIN DIALOG @h FROM SERVICE [//s/init] TO SERVICE '//s/target' ON CONTRACT [//c/req]
    WITH ENCRYPTION = OFF
SEND ON CONVERSATION @h MESSAGE TYPE [//m/req] ('two')
SELECT CAST(message_body AS varchar(10)) AS body FROM dbo.targq
SELECT COUNT(*) AS still_held FROM sys.transmission_queue
GO
-- ALTER AUTHORIZATION ON SERVICE:: moves the owner (TAKE OWNERSHIP on it, or db_owner)
ALTER AUTHORIZATION ON SERVICE::[//s/init] TO other
ALTER AUTHORIZATION ON SERVICE::[//s/nothere] TO other
EXECUTE AS USER = 'app'
ALTER AUTHORIZATION ON SERVICE::[//s/target] TO app
REVERT
GRANT TAKE OWNERSHIP ON SERVICE::[//s/target] TO app
EXECUTE AS USER = 'app'
ALTER AUTHORIZATION ON SERVICE::[//s/target] TO other
ALTER AUTHORIZATION ON SERVICE::[//s/target] TO app
REVERT
SELECT name, USER_NAME(principal_id) AS owner FROM sys.services
    WHERE name IN ('//s/init', '//s/target') ORDER BY name
ALTER AUTHORIZATION ON SERVICE::[//s/target] TO SCHEMA OWNER
SELECT USER_NAME(principal_id) AS target_owner FROM sys.services WHERE name = '//s/target'
GO
USE master
DROP DATABASE sos
