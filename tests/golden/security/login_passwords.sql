-- ALTER LOGIN … WITH PASSWORD = 'new' OLD_PASSWORD = 'old': a login without ALTER ANY LOGIN
-- changes its own password only giving the old one; a wrong old password, like a login it
-- may not alter, is Msg 15151 (Cannot alter the login …). MUST_CHANGE and UNLOCK follow the
-- password; OLD_PASSWORD, MUST_CHANGE and UNLOCK elsewhere are syntax errors.
SET NOCOUNT ON
CREATE LOGIN pw_user WITH PASSWORD = 'Str0ng!Passw0rd1'
CREATE LOGIN pw_other WITH PASSWORD = 'Str0ng!Passw0rd1'
GO
EXECUTE AS LOGIN = 'pw_user'
ALTER LOGIN pw_user WITH PASSWORD = 'N3w!Passw0rd'
ALTER LOGIN pw_user WITH PASSWORD = 'N3w!Passw0rd' OLD_PASSWORD = 'wrong'
ALTER LOGIN pw_user WITH PASSWORD = 'N3w!Passw0rd' OLD_PASSWORD = 'Str0ng!Passw0rd1'
ALTER LOGIN pw_user WITH DEFAULT_DATABASE = tempdb, DEFAULT_LANGUAGE = us_english
ALTER LOGIN pw_user WITH NAME = pw_renamed
ALTER LOGIN pw_user DISABLE
ALTER LOGIN pw_user WITH CHECK_POLICY = OFF
ALTER LOGIN pw_other WITH PASSWORD = 'N3w!Passw0rd' OLD_PASSWORD = 'Str0ng!Passw0rd1'
REVERT
SELECT name, default_database_name, is_disabled FROM sys.sql_logins
WHERE name LIKE 'pw[_]%' ORDER BY name
GO
-- The password did change: the old one no longer matches, the new one does.
ALTER LOGIN pw_user WITH PASSWORD = 'Th1rd!Passw0rd' OLD_PASSWORD = 'Str0ng!Passw0rd1'
ALTER LOGIN pw_user WITH PASSWORD = 'Th1rd!Passw0rd' OLD_PASSWORD = 'N3w!Passw0rd'
ALTER LOGIN pw_user WITH PASSWORD = 'F0urth!Passw0rd' UNLOCK
ALTER LOGIN pw_user WITH PASSWORD = 'F1fth!Passw0rd' MUST_CHANGE, CHECK_EXPIRATION = ON,
    CHECK_POLICY = ON
ALTER LOGIN pw_user WITH PASSWORD = 'S1xth!Passw0rd' OLD_PASSWORD = 'F1fth!Passw0rd',
    NAME = pw_renamed
ALTER LOGIN nosuch WITH PASSWORD = 'N3w!Passw0rd' OLD_PASSWORD = 'Str0ng!Passw0rd1'
SELECT name, is_policy_checked, is_expiration_checked FROM sys.sql_logins
WHERE name LIKE 'pw[_]%' ORDER BY name
GO
ALTER LOGIN pw_renamed WITH NAME = pw_user OLD_PASSWORD = 'S1xth!Passw0rd'
GO
ALTER LOGIN pw_renamed WITH CHECK_POLICY = OFF UNLOCK
GO
CREATE LOGIN pw_new WITH PASSWORD = 'Str0ng!Passw0rd1' OLD_PASSWORD = 'x'
GO
DROP LOGIN nosuch
DROP LOGIN pw_renamed
DROP LOGIN pw_other
