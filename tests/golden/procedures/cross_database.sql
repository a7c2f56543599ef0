CREATE DATABASE OtherDb
GO
USE OtherDb
CREATE TABLE things (name varchar(10))
INSERT INTO things VALUES ('other')
GO
CREATE PROCEDURE dbo.where_am_i AS
BEGIN
    PRINT DB_NAME()
    SELECT name FROM things
END
GO
USE master
SET NOCOUNT ON
EXEC OtherDb.dbo.where_am_i
PRINT DB_NAME()
GO
CREATE PROCEDURE sp_show_db AS PRINT DB_NAME()
GO
USE OtherDb
EXEC sp_show_db
