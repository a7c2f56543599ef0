-- What the instance says about itself: @@VERSION, SERVERPROPERTY, sp_configure, sys.messages,
-- and KILL's refusals (the golden session is the first, spid 51).
PRINT CASE WHEN @@VERSION LIKE 'Microsoft SQL Server 2019%' AND @@VERSION LIKE '%tsqlbroker%'
           THEN 'version names SQL Server 2019 and tsqlbroker' END
SELECT SERVERPROPERTY('ProductVersion') AS ProductVersion,
       SERVERPROPERTY('ProductMajorVersion') AS major, SERVERPROPERTY('ProductLevel') AS level,
       SERVERPROPERTY('EngineEdition') AS engine, SERVERPROPERTY('Collation') AS collation,
       SERVERPROPERTY('IsClustered') AS is_clustered, SERVERPROPERTY('InstanceName') AS instance,
       SERVERPROPERTY('NoSuchProperty') AS unknown
SELECT CASE WHEN CAST(SERVERPROPERTY('ServerName') AS sysname) = @@SERVERNAME THEN 'same' END
EXEC sp_configure 'show advanced options'
EXEC sp_configure @configname = 'nested triggers'
EXEC sp_configure 'no such option'
EXEC sp_configure 'remote access', 0
SELECT message_id, language_id, severity, text FROM sys.messages
WHERE message_id IN (6104, 6106, 8429) ORDER BY message_id
GO
KILL 51
KILL 9999
KILL 5
BEGIN TRAN
KILL 52
ROLLBACK
GO
KILL 'D5499C66-E398-45CA-BF7E-DC9BEBF2FB20'
GO
