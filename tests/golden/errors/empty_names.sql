-- An empty name ([] or "") of a table or column is Msg 1038, as SQL Server's parser says,
-- not a storage failure.
CREATE TABLE dbo.t ([] int, b varchar(10));
GO
CREATE TABLE [] (a int);
GO
CREATE TABLE dbo.t (a int);
ALTER TABLE dbo.t ADD [] int;
GO
SELECT COUNT(*) AS tables FROM sys.tables;
SELECT COUNT(*) AS columns FROM sys.columns WHERE object_id = OBJECT_ID('dbo.t');
DROP TABLE dbo.t;
