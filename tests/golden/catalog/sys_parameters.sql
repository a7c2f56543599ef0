-- sys.parameters: the parameters of procedures and functions, numbered from 1 in order;
-- a scalar function's return value is parameter 0 with no name; types as sys.columns
-- describes them (alias types by their base type, with their own user_type_id); T-SQL
-- modules keep no defaults here (has_default_value 0, default_value NULL); only the modules
-- the caller may see (metadata visibility).
SET NOCOUNT ON
CREATE TYPE dbo.code FROM nvarchar(5) NOT NULL
CREATE USER u WITHOUT LOGIN
GO
CREATE PROCEDURE dbo.p @a int, @b nvarchar(10) = N'x' OUTPUT, @c decimal(9, 2), @d varchar(max),
    @e dbo.code AS SELECT 1
GO
CREATE FUNCTION dbo.fs (@x datetime, @y varbinary(16)) RETURNS bigint AS BEGIN RETURN 1 END
GO
CREATE FUNCTION dbo.fi (@k bit) RETURNS TABLE AS RETURN SELECT @k AS k
GO
CREATE PROCEDURE dbo.none AS SELECT 1
GO
SELECT OBJECT_NAME(object_id) AS module, name, parameter_id, system_type_id,
    TYPE_NAME(user_type_id) AS type_name, max_length, precision, scale, is_output,
    has_default_value, default_value, is_readonly, is_nullable
FROM sys.parameters ORDER BY module, parameter_id
SELECT COUNT(*) AS user_type_matches FROM sys.parameters
WHERE user_type_id = TYPE_ID('dbo.code')
GO
GRANT EXECUTE ON dbo.fs TO u
GO
EXECUTE AS USER = 'u'
SELECT OBJECT_NAME(object_id) AS module, name FROM sys.parameters ORDER BY module, parameter_id
REVERT
GO
SELECT * FROM sys.parameters WHERE 1 = 0
GO
