-- Certificates and the database master key need their permissions: CREATE CERTIFICATE (Msg 262),
-- ALTER / CONTROL on a certificate or its ownership (Msg 15151), CONTROL on the database for the
-- master key (Msg 15247).
CREATE DATABASE sec_keys
GO
USE sec_keys
SET NOCOUNT ON
CREATE USER keeper WITHOUT LOGIN
CREATE USER visitor WITHOUT LOGIN
CREATE MASTER KEY ENCRYPTION BY PASSWORD = 'Mast3r!Key#Pass'
CREATE CERTIFICATE dbo_cert WITH SUBJECT = 'dbo certificate'
GO
EXECUTE AS USER = 'visitor'
CREATE CERTIFICATE visitor_cert WITH SUBJECT = 'nope'
DROP CERTIFICATE dbo_cert
ALTER CERTIFICATE dbo_cert WITH ACTIVE FOR BEGIN_DIALOG = OFF
OPEN MASTER KEY DECRYPTION BY PASSWORD = 'Mast3r!Key#Pass'
ALTER MASTER KEY ADD ENCRYPTION BY PASSWORD = 'An0ther!Key#Pass'
DROP MASTER KEY
REVERT
GRANT CREATE CERTIFICATE TO keeper
GRANT CONTROL ON CERTIFICATE::dbo_cert TO keeper
EXECUTE AS USER = 'keeper'
CREATE CERTIFICATE keeper_cert ENCRYPTION BY PASSWORD = 'Cert!Pass#123' WITH SUBJECT = 'keeper'
DROP CERTIFICATE keeper_cert
ALTER CERTIFICATE dbo_cert WITH ACTIVE FOR BEGIN_DIALOG = OFF
REVERT
SELECT name, USER_NAME(principal_id) AS owner, is_active_for_begin_dialog
FROM sys.certificates ORDER BY name
GO
USE master
DROP DATABASE sec_keys
