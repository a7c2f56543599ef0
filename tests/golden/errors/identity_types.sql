-- IDENTITY only on integer types and decimal / numeric with scale 0 (Msg 2749).
CREATE TABLE dbo.a (id image IDENTITY(1,1), name real);
GO
CREATE TABLE dbo.b (id decimal(5,2) IDENTITY);
GO
CREATE TABLE dbo.c (id numeric(9,0) IDENTITY(10,5), v bigint);
INSERT dbo.c (v) VALUES (1), (2);
SELECT id, v FROM dbo.c ORDER BY id;
SELECT COUNT(*) AS tables FROM sys.tables;
DROP TABLE dbo.c;
