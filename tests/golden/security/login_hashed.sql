-- CREATE / ALTER LOGIN … WITH PASSWORD = 0x… HASHED keeps the given SQL Server hash (0x0200:
-- SHA-512, 0x0100: SHA-1 of SQL Server 2005 / 2008), LOGINPROPERTY(…, 'PasswordHash') returns
-- it (to CONTROL SERVER only), and a hash in no known form is Msg 15021; SID = 0x… gives the
-- login its SID (16 bytes, else Msg 15419; one in use: Msg 15433). A binary password without
-- HASHED, or HASHED after a string, is a syntax error.
SET NOCOUNT ON
CREATE LOGIN hashed_new WITH PASSWORD =
    0x0200A1B2C3D41654AF0AC1F816E6BC8349E00EB1A80036DDFA58C19894A903118D1323AD48E855D348F850FF64E9AABC15D922BBA083CD74929B65257223468CAD0D3146E6BF HASHED,
    SID = 0x5F2C9E1A0B7D4C3E8F6A1B2C3D4E5F60, CHECK_POLICY = OFF
-- PWDENCRYPT('P@ssw0rd') on SQL Server 2008 (a public example)
CREATE LOGIN hashed_old WITH PASSWORD = 0x01003BA91A73BB0B9C06A647FC81F3B221EDA8E74AF33C20252F HASHED
CREATE LOGIN clear_pw WITH PASSWORD = 'Str0ng!Passw0rd1'
SELECT name, sid FROM sys.server_principals WHERE name = 'hashed_new'
SELECT CAST(LOGINPROPERTY('hashed_new', 'PasswordHash') AS varbinary(256)) AS hash,
       LOGINPROPERTY('hashed_new', 'PasswordHashAlgorithm') AS algorithm,
       LOGINPROPERTY('hashed_new', 'DefaultDatabase') AS default_db
SELECT CAST(LOGINPROPERTY('hashed_old', 'PasswordHash') AS varbinary(256)) AS hash,
       LOGINPROPERTY('hashed_old', 'PasswordHashAlgorithm') AS algorithm
GO
-- The hash of a password given in clear is tsqlbroker's own (PBKDF2) form, under the header
-- 0x5442; CREATE LOGIN … HASHED takes it back.
DECLARE @h varbinary(256) = CAST(LOGINPROPERTY('clear_pw', 'PasswordHash') AS varbinary(256))
SELECT SUBSTRING(@h, 1, 2) AS header, DATALENGTH(@h) AS length,
       LOGINPROPERTY('clear_pw', 'PasswordHashAlgorithm') AS algorithm
DECLARE @copy nvarchar(max) = N'CREATE LOGIN clear_copy WITH PASSWORD = '
    + CONVERT(nvarchar(max), @h, 1) + N' HASHED'
EXEC (@copy)
SELECT CASE WHEN CAST(LOGINPROPERTY('clear_copy', 'PasswordHash') AS varbinary(256)) = @h
            THEN 'same hash' END AS copied
GO
ALTER LOGIN hashed_old WITH PASSWORD =
    0x0200A1B2C3D41654AF0AC1F816E6BC8349E00EB1A80036DDFA58C19894A903118D1323AD48E855D348F850FF64E9AABC15D922BBA083CD74929B65257223468CAD0D3146E6BF HASHED
SELECT LOGINPROPERTY('hashed_old', 'PasswordHashAlgorithm') AS altered_algorithm
GO
-- Refused.
CREATE LOGIN bad_hash WITH PASSWORD = 0x2131214A212F26285628293328374839 HASHED
GO
ALTER LOGIN hashed_old WITH PASSWORD = 0x0300A1B2 HASHED
GO
CREATE LOGIN bad_sid WITH PASSWORD = 'Str0ng!Passw0rd1', SID = 0x0102
GO
CREATE LOGIN same_sid WITH PASSWORD = 'Str0ng!Passw0rd1', SID = 0x5F2C9E1A0B7D4C3E8F6A1B2C3D4E5F60
GO
CREATE LOGIN no_hashed WITH PASSWORD = 0x01003BA91A73BB0B9C06A647FC81F3B221EDA8E74AF33C20252F
GO
CREATE LOGIN text_hashed WITH PASSWORD = 'Str0ng!Passw0rd1' HASHED
GO
SELECT name FROM sys.server_principals
WHERE name IN ('bad_hash', 'bad_sid', 'same_sid', 'no_hashed', 'text_hashed')
GO
-- Only CONTROL SERVER sees a hash; unknown logins and properties are NULL.
GRANT VIEW ANY DEFINITION TO clear_pw
EXECUTE AS LOGIN = 'clear_pw'
SELECT LOGINPROPERTY('hashed_new', 'PasswordHash') AS hidden,
       LOGINPROPERTY('hashed_new', 'PasswordHashAlgorithm') AS algorithm,
       LOGINPROPERTY('nosuch', 'PasswordHash') AS no_login,
       LOGINPROPERTY('hashed_new', 'NoSuchProperty') AS no_property
REVERT
GO
