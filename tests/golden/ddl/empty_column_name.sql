-- A column named [] or "" is Msg 1038, as SQL Server refuses an empty name.
CREATE TABLE dbo.empty_name ([] int)
GO
CREATE TABLE dbo.empty_name (id int, "" varchar(10))
GO
SELECT OBJECT_ID('dbo.empty_name') AS not_created
GO
