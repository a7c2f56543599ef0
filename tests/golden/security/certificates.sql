-- Certificates and the database master key, as a Service Broker set-up between instances
-- uses them (the key material is random: only its shape is shown).
CREATE DATABASE sec_cert
GO
USE sec_cert
GO
SET NOCOUNT ON
CREATE CERTIFICATE NoKeyYet WITH SUBJECT = 'needs a master key'
SELECT COUNT(*) AS keys FROM sys.symmetric_keys
CREATE MASTER KEY ENCRYPTION BY PASSWORD = 'Str0ng!Passw0rd'
CREATE MASTER KEY ENCRYPTION BY PASSWORD = 'Str0ng!Passw0rd'
SELECT name, principal_id, symmetric_key_id, key_length, key_algorithm, algorithm_desc
FROM sys.symmetric_keys
CREATE USER TargetUser WITHOUT LOGIN
CREATE CERTIFICATE TargetCert AUTHORIZATION TargetUser
    WITH SUBJECT = 'Target service certificate', START_DATE = '20240101', EXPIRY_DATE = '20341231'
CREATE CERTIFICATE DialogCert WITH SUBJECT = N'Dialog cert' ACTIVE FOR BEGIN_DIALOG = OFF
CREATE CERTIFICATE PwCert ENCRYPTION BY PASSWORD = 'An0ther!Pass' WITH SUBJECT = 'pw'
CREATE CERTIFICATE targetcert WITH SUBJECT = 'duplicate name'
SELECT c.name, c.certificate_id, u.name AS owner, c.pvt_key_encryption_type,
       c.pvt_key_encryption_type_desc, c.is_active_for_begin_dialog, c.issuer_name, c.subject,
       c.key_length, LEN(c.cert_serial_number) AS serial_chars, DATALENGTH(c.thumbprint) AS thumb_bytes,
       DATALENGTH(c.sid) AS sid_bytes, LEFT(c.string_sid, 8) AS sid_prefix
FROM sys.certificates AS c JOIN sys.database_principals AS u ON u.principal_id = c.principal_id
ORDER BY c.certificate_id
SELECT name, CONVERT(varchar(10), start_date, 120) AS starts, CONVERT(varchar(10), expiry_date, 120) AS expires
FROM sys.certificates WHERE name = 'TargetCert'
SELECT CASE WHEN DATEDIFF(day, start_date, expiry_date) BETWEEN 365 AND 366 THEN 'one year' END AS default_validity
FROM sys.certificates WHERE name = 'DialogCert'
PRINT CERT_ID('TargetCert')
PRINT COALESCE(CAST(CERT_ID('nope') AS varchar(10)), 'no such certificate')
ALTER CERTIFICATE DialogCert WITH ACTIVE FOR BEGIN_DIALOG = ON
ALTER CERTIFICATE PwCert REMOVE PRIVATE KEY
SELECT name, is_active_for_begin_dialog, pvt_key_encryption_type_desc FROM sys.certificates
WHERE name IN ('DialogCert', 'PwCert') ORDER BY name
CREATE USER CertUser FROM CERTIFICATE DialogCert
SELECT name, type, type_desc, default_schema_name FROM sys.database_principals WHERE name = 'CertUser'
SELECT CASE WHEN u.sid = c.sid THEN 'same sid' END AS mapping
FROM sys.database_principals AS u JOIN sys.certificates AS c ON c.name = 'DialogCert'
WHERE u.name = 'CertUser'
PRINT '-- errors'
DROP CERTIFICATE DialogCert
DROP USER TargetUser
DROP MASTER KEY
DROP CERTIFICATE nope
CREATE USER Orphan FROM CERTIFICATE nope
OPEN MASTER KEY DECRYPTION BY PASSWORD = 'wrong'
OPEN MASTER KEY DECRYPTION BY PASSWORD = 'Str0ng!Passw0rd'
CLOSE MASTER KEY
PRINT '-- key without the service master key'
ALTER MASTER KEY DROP ENCRYPTION BY SERVICE MASTER KEY
CREATE CERTIFICATE Closed WITH SUBJECT = 'master key closed'
OPEN MASTER KEY DECRYPTION BY PASSWORD = 'Str0ng!Passw0rd'
CREATE CERTIFICATE Opened WITH SUBJECT = 'master key open'
ALTER MASTER KEY ADD ENCRYPTION BY SERVICE MASTER KEY
CLOSE MASTER KEY
ALTER MASTER KEY REGENERATE WITH ENCRYPTION BY PASSWORD = 'N3w!Passw0rd'
OPEN MASTER KEY DECRYPTION BY PASSWORD = 'Str0ng!Passw0rd'
OPEN MASTER KEY DECRYPTION BY PASSWORD = 'N3w!Passw0rd'
PRINT '-- clean up'
DROP USER CertUser
DROP CERTIFICATE DialogCert
DROP CERTIFICATE TargetCert
DROP CERTIFICATE Opened
DROP USER TargetUser
DROP CERTIFICATE PwCert
DROP MASTER KEY
SELECT COUNT(*) AS certificates FROM sys.certificates
SELECT COUNT(*) AS keys FROM sys.symmetric_keys
GO
USE master
DROP DATABASE sec_cert
