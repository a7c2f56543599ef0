-- Metadata visibility beyond the object views: principals and permissions (own user,
-- system users and fixed roles to everyone; other users with ALTER ANY USER or a
-- permission on them; roles with membership or ALTER ANY ROLE), certificates (owner or a
-- permission), sequences and synonyms (as objects), the broker's usage views and
-- conversation endpoints (seen with their service or contract), the metadata functions
-- (NULL for what the caller cannot see), sys.schemas (shown to everyone) and the DMVs that
-- need VIEW SERVER STATE.
SET NOCOUNT ON
CREATE LOGIN vis_login WITH PASSWORD = 'Pa55word!x', CHECK_POLICY = OFF
CREATE DATABASE vis2
GO
USE vis2
CREATE TABLE dbo.t1 (a int CONSTRAINT pk_v1 PRIMARY KEY)
CREATE TABLE dbo.t2 (a int, b int)
CREATE SEQUENCE dbo.s1 START WITH 1
CREATE SEQUENCE dbo.s2 START WITH 1
CREATE SYNONYM dbo.syn1 FOR dbo.t1
CREATE SYNONYM dbo.syn2 FOR dbo.t2
GO
CREATE SCHEMA app
GO
CREATE QUEUE dbo.q1
CREATE QUEUE dbo.q2
CREATE MESSAGE TYPE [//m/a]
CREATE CONTRACT [//c/a] ([//m/a] SENT BY ANY)
CREATE CONTRACT [//c/b] ([//m/a] SENT BY ANY)
CREATE SERVICE [//s/a] ON QUEUE dbo.q1 ([//c/a])
CREATE SERVICE [//s/b] ON QUEUE dbo.q2 ([//c/b])
CREATE USER u FOR LOGIN vis_login
CREATE USER other WITHOUT LOGIN
CREATE USER shown WITHOUT LOGIN
CREATE USER admin WITHOUT LOGIN
CREATE ROLE r_in
CREATE ROLE r_out
ALTER ROLE r_in ADD MEMBER u
GRANT SELECT ON dbo.t1 TO u
GRANT UPDATE ON dbo.s1 TO u
GRANT SELECT ON dbo.syn1 TO r_in
GRANT SEND ON SERVICE::[//s/a] TO u
GRANT REFERENCES ON CONTRACT::[//c/a] TO u
GRANT IMPERSONATE ON USER::shown TO u
GRANT SELECT ON dbo.t2 TO other
GRANT SELECT ON dbo.t2 TO r_out
GRANT ALTER ANY USER TO admin
CREATE MASTER KEY ENCRYPTION BY PASSWORD = 'Mk-Pa55word!'
CREATE CERTIFICATE c_dbo WITH SUBJECT = 'dbo cert'
CREATE CERTIFICATE c_u AUTHORIZATION u WITH SUBJECT = 'u cert'
CREATE CERTIFICATE c_ref WITH SUBJECT = 'referenced'
GRANT REFERENCES ON CERTIFICATE::c_ref TO u
DECLARE @h uniqueidentifier
BEGIN DIALOG @h FROM SERVICE [//s/a] TO SERVICE '//s/b' ON CONTRACT [//c/a]
    WITH ENCRYPTION = OFF
SEND ON CONVERSATION @h MESSAGE TYPE [//m/a] ('x')
BEGIN DIALOG @h FROM SERVICE [//s/b] TO SERVICE '//s/a' ON CONTRACT [//c/b]
    WITH ENCRYPTION = OFF
GO
EXECUTE AS USER = 'u'
SELECT name FROM sys.database_principals ORDER BY principal_id
SELECT USER_NAME(grantee_principal_id) AS grantee, permission_name, state_desc
FROM sys.database_permissions ORDER BY grantee, permission_name
SELECT name FROM sys.certificates ORDER BY name
SELECT name FROM sys.sequences
SELECT name FROM sys.synonyms
SELECT name FROM sys.schemas WHERE schema_id < 16384 ORDER BY schema_id
SELECT COUNT(*) AS contract_usages FROM sys.service_contract_usages
SELECT COUNT(*) AS queue_usages FROM sys.service_queue_usages
SELECT COUNT(*) AS message_usages FROM sys.service_contract_message_usages
    WHERE service_contract_id >= 65536
SELECT s.name, e.is_initiator FROM sys.conversation_endpoints e
    JOIN sys.services s ON s.service_id = e.service_id ORDER BY s.name, e.is_initiator
SELECT OBJECT_ID('dbo.t1') - OBJECT_ID('dbo.t1') AS t1_seen, OBJECT_ID('dbo.t2') AS t2,
       OBJECT_ID('dbo.q2') AS q2
REVERT
DECLARE @t2 int = OBJECT_ID('dbo.t2'), @pk int = OBJECT_ID('dbo.pk_v1')
EXECUTE AS USER = 'u'
SELECT OBJECT_NAME(@t2) AS t2_name, OBJECT_SCHEMA_NAME(@t2) AS t2_schema,
       OBJECT_NAME(@pk) AS pk_name
SELECT OBJECT_NAME(o.object_id) AS per_row, COL_NAME(o.object_id, 1) AS col1
FROM (SELECT @t2 AS object_id UNION ALL SELECT OBJECT_ID('dbo.t1')) o ORDER BY per_row
SELECT COUNT(*) AS sessions_seen FROM sys.dm_exec_sessions WHERE session_id <> @@SPID
SELECT COUNT(*) FROM sys.dm_broker_queue_monitors
SELECT COUNT(*) FROM sys.dm_tran_locks
REVERT
EXECUTE AS USER = 'admin'
SELECT name FROM sys.database_principals WHERE principal_id > 4 AND is_fixed_role = 0
    ORDER BY principal_id
SELECT DISTINCT USER_NAME(grantee_principal_id) AS grantee FROM sys.database_permissions
    ORDER BY grantee
REVERT
SELECT COUNT(*) AS dbo_certificates FROM sys.certificates
SELECT USER_NAME(grantee_principal_id) AS grantee, permission_name FROM sys.database_permissions
    ORDER BY grantee, permission_name
SELECT COUNT(*) AS dbo_monitors_ok FROM sys.dm_broker_queue_monitors
GO
USE master
DROP DATABASE vis2
DROP LOGIN vis_login
