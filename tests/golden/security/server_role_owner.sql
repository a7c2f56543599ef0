-- ALTER AUTHORIZATION ON SERVER ROLE::r TO principal: the new owner is recorded
-- (sys.server_principals.owning_principal_id) and the permissions on the role are dropped;
-- it needs ALTER ANY SERVER ROLE, ownership of the role or TAKE OWNERSHIP / CONTROL on it
-- (else Msg 15151, as for a role that is not there); a fixed server role keeps its owner,
-- the new owner is a login or a created server role (Msg 15151 *login*), naming another
-- one than oneself needs IMPERSONATE on it (Msg 15247); ALTER_AUTHORIZATION_SERVER is sent.
SET NOCOUNT ON
CREATE DATABASE SrvRoleOwner;
GO
USE SrvRoleOwner;
CREATE QUEUE SrvQueue;
CREATE SERVICE SrvService ON QUEUE SrvQueue
    ([http://schemas.microsoft.com/SQL/Notifications/PostEventNotification]);
GO
CREATE EVENT NOTIFICATION srv_owner ON SERVER FOR ALTER_AUTHORIZATION_SERVER
TO SERVICE 'SrvService', 'current database';
GO
CREATE LOGIN ro_first WITH PASSWORD = 'Str0ng!Passw0rd1'
CREATE LOGIN ro_second WITH PASSWORD = 'Str0ng!Passw0rd1'
CREATE LOGIN ro_taker WITH PASSWORD = 'Str0ng!Passw0rd1'
CREATE LOGIN ro_plain WITH PASSWORD = 'Str0ng!Passw0rd1'
CREATE SERVER ROLE Owned
CREATE SERVER ROLE Other
GRANT ALTER ON SERVER ROLE::Owned TO ro_plain
ALTER AUTHORIZATION ON SERVER ROLE::Owned TO ro_first
SELECT name, SUSER_NAME(owning_principal_id) AS owner FROM sys.server_principals
WHERE name IN ('Owned', 'Other') ORDER BY name
-- the GRANT on the role went with the change of owner
SELECT COUNT(*) AS on_owned FROM sys.server_permissions
WHERE class = 101 AND major_id = SUSER_ID('Owned')
GO
-- Refused: a fixed role, no such role, no such owner, a fixed role or public as owner, the
-- role itself.
ALTER AUTHORIZATION ON SERVER ROLE::sysadmin TO ro_first
ALTER AUTHORIZATION ON SERVER ROLE::NoSuchRole TO ro_first
ALTER AUTHORIZATION ON SERVER ROLE::Owned TO nosuch
ALTER AUTHORIZATION ON SERVER ROLE::Owned TO securityadmin
ALTER AUTHORIZATION ON SERVER ROLE::Owned TO public
ALTER AUTHORIZATION ON SERVER ROLE::Owned TO Owned
GO
-- A role may own a role.
ALTER AUTHORIZATION ON SERVER ROLE::Other TO Owned
SELECT SUSER_NAME(owning_principal_id) AS other_owner FROM sys.server_principals
WHERE name = 'Other'
GO
-- Its owner may give it away, to itself without IMPERSONATE only.
EXECUTE AS LOGIN = 'ro_first'
ALTER AUTHORIZATION ON SERVER ROLE::Owned TO ro_second
ALTER AUTHORIZATION ON SERVER ROLE::Owned TO ro_first
REVERT
GRANT IMPERSONATE ON LOGIN::ro_second TO ro_first
EXECUTE AS LOGIN = 'ro_first'
ALTER AUTHORIZATION ON SERVER ROLE::Owned TO ro_second
REVERT
SELECT SUSER_NAME(owning_principal_id) AS owner_now FROM sys.server_principals
WHERE name = 'Owned'
GO
-- Neither owner nor holder of TAKE OWNERSHIP: not found; TAKE OWNERSHIP suffices.
EXECUTE AS LOGIN = 'ro_taker'
ALTER AUTHORIZATION ON SERVER ROLE::Owned TO ro_taker
REVERT
GRANT TAKE OWNERSHIP ON SERVER ROLE::Owned TO ro_taker
EXECUTE AS LOGIN = 'ro_taker'
ALTER AUTHORIZATION ON SERVER ROLE::Owned TO ro_taker
REVERT
GRANT CONTROL ON SERVER ROLE::Owned TO ro_plain
EXECUTE AS LOGIN = 'ro_plain'
ALTER AUTHORIZATION ON SERVER ROLE::Owned TO ro_plain
REVERT
SELECT SUSER_NAME(owning_principal_id) AS owner_last FROM sys.server_principals
WHERE name = 'Owned'
GO
-- A login that owns a server role cannot be dropped.
DROP LOGIN ro_plain
GO
DECLARE @ev TABLE (n int IDENTITY, body xml);
WAITFOR (RECEIVE CAST(message_body AS xml) FROM SrvQueue INTO @ev), TIMEOUT 5000;
SELECT n, body.value('(/EVENT_INSTANCE/EventType)[1]', 'sysname') AS EventType,
       body.value('(/EVENT_INSTANCE/ObjectName)[1]', 'sysname') AS ObjectName,
       body.value('(/EVENT_INSTANCE/ObjectType)[1]', 'sysname') AS ObjectType,
       body.value('(/EVENT_INSTANCE/OwnerName)[1]', 'sysname') AS OwnerName,
       body.value('(/EVENT_INSTANCE/LoginName)[1]', 'sysname') AS LoginName
FROM @ev ORDER BY n;
GO
DROP EVENT NOTIFICATION srv_owner ON SERVER;
GO
