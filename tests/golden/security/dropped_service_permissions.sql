-- DROP SERVICE takes the permissions on the service with it: a service created later with
-- the same name (and, here, the same id) starts without them, as in SQL Server.
SET NOCOUNT ON
CREATE DATABASE dsp
GO
USE dsp
CREATE QUEUE dbo.q
CREATE SERVICE [//dsp/target] ON QUEUE dbo.q
GRANT SEND ON SERVICE::[//dsp/target] TO PUBLIC
SELECT class_desc, USER_NAME(grantee_principal_id) AS grantee, permission_name, state_desc
    FROM sys.database_permissions WHERE class = 17
DROP SERVICE [//dsp/target]
SELECT COUNT(*) AS left_after_drop FROM sys.database_permissions WHERE class = 17
CREATE SERVICE [//dsp/target] ON QUEUE dbo.q
SELECT COUNT(*) AS on_the_new_service FROM sys.database_permissions WHERE class = 17
GO
