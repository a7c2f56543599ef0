-- LEN of a sql_variant: no implicit conversion to a string, Msg 8116 (a variable, a
-- column in a query, SERVERPROPERTY's value); a CAST to a string type first works.
DECLARE @v sql_variant = CAST(N'abc ' AS nvarchar(10))
SELECT LEN(CAST(@v AS nvarchar(10))) AS cast_first
GO
DECLARE @v sql_variant = CAST(N'abc ' AS nvarchar(10))
SELECT LEN(@v) AS l
GO
SELECT LEN(SERVERPROPERTY('Edition')) AS l
GO
CREATE TABLE dbo.v (id int, v sql_variant)
INSERT dbo.v VALUES (1, CAST(42 AS int)), (2, CAST('xy ' AS varchar(5)))
SELECT id, LEN(CAST(v AS varchar(10))) AS cast_first FROM dbo.v ORDER BY id
GO
SELECT id, LEN(v) AS l FROM dbo.v ORDER BY id
GO
-- SQL_VARIANT_PROPERTY of a (max) value: its argument becomes a sql_variant, which
-- cannot hold one: Msg 206 as for CAST(… AS sql_variant); a sized string keeps its length.
DECLARE @s nvarchar(20) = N'abc'
SELECT SQL_VARIANT_PROPERTY(@s, 'MaxLength') AS ml, SQL_VARIANT_PROPERTY(@s, 'BaseType') AS bt
GO
DECLARE @m varchar(max) = 'abc'
SELECT SQL_VARIANT_PROPERTY(@m, 'MaxLength') AS ml
GO
DECLARE @m nvarchar(max) = N'abc'
SELECT SQL_VARIANT_PROPERTY(@m, 'BaseType') AS bt
GO
DECLARE @x varbinary(max) = 0x01
SELECT SQL_VARIANT_PROPERTY(@x, 'MaxLength') AS ml
GO
SELECT SQL_VARIANT_PROPERTY(CAST('abc' AS varchar(max)), 'MaxLength') AS ml
GO
