-- DROP MESSAGE TYPE, DROP CONTRACT, DROP REMOTE SERVICE BINDING and DROP ROUTE take the
-- permissions on what they drop with them, as DROP SERVICE does: one created later with
-- the same name (and, here, the same id) starts without them, as in SQL Server.
SET NOCOUNT ON
CREATE DATABASE dbp
GO
USE dbp
CREATE USER u WITHOUT LOGIN
CREATE MESSAGE TYPE [//dbp/m]
CREATE CONTRACT [//dbp/c] ([//dbp/m] SENT BY INITIATOR)
CREATE REMOTE SERVICE BINDING b TO SERVICE '//dbp/far' WITH USER = u
CREATE ROUTE r WITH ADDRESS = 'LOCAL'
GRANT REFERENCES ON MESSAGE TYPE::[//dbp/m] TO PUBLIC
GRANT REFERENCES ON CONTRACT::[//dbp/c] TO PUBLIC
GRANT CONTROL ON REMOTE SERVICE BINDING::b TO PUBLIC
GRANT ALTER ON ROUTE::r TO PUBLIC
SELECT class_desc, USER_NAME(grantee_principal_id) AS grantee, permission_name, state_desc
    FROM sys.database_permissions WHERE class IN (15, 16, 18, 19) ORDER BY class
DROP CONTRACT [//dbp/c]
DROP MESSAGE TYPE [//dbp/m]
DROP REMOTE SERVICE BINDING b
DROP ROUTE r
SELECT COUNT(*) AS left_after_drop FROM sys.database_permissions WHERE class IN (15, 16, 18, 19)
CREATE MESSAGE TYPE [//dbp/m]
CREATE CONTRACT [//dbp/c] ([//dbp/m] SENT BY INITIATOR)
CREATE REMOTE SERVICE BINDING b TO SERVICE '//dbp/far' WITH USER = u
CREATE ROUTE r WITH ADDRESS = 'LOCAL'
SELECT COUNT(*) AS on_the_new_ones FROM sys.database_permissions WHERE class IN (15, 16, 18, 19)
GO
