-- CREATE TYPE name FROM base_type [NULL | NOT NULL]: the statement page's examples, the type
-- in variables, parameters, CAST and columns, sys.types, ALTER SCHEMA ... TRANSFER TYPE::.
CREATE DATABASE Types
GO
USE Types
GO
-- CREATE TYPE, example A: an alias type based on varchar.
CREATE TYPE SSN FROM varchar(11) NOT NULL;
CREATE TYPE dbo.Phone FROM nvarchar(20) NULL
CREATE TYPE Amount FROM decimal(9, 2)
GO
SELECT name, system_type_id, user_type_id, schema_id, max_length, precision, scale,
    is_nullable, is_user_defined FROM sys.types WHERE is_user_defined = 1 ORDER BY user_type_id
SELECT COUNT(*) AS in_sys_objects FROM sys.objects WHERE name IN ('SSN', 'Phone', 'Amount')
GO
DECLARE @s SSN = '123-45-6789', @a Amount = 10.555
SELECT @s AS s, @a AS a, CAST(12.345 AS Amount) AS cast_amount
GO
-- Columns take the base type and, unless they say otherwise, the type's nullability.
CREATE TABLE People (id int, ssn SSN, phone dbo.Phone, alt_ssn SSN NULL, paid Amount)
INSERT People (id, ssn, phone, paid) VALUES (1, '111-22-3333', N'555-0100', 3.5)
SELECT c.name, TYPE_NAME(c.system_type_id) AS base, c.max_length, c.is_nullable
    FROM sys.columns AS c WHERE c.object_id = OBJECT_ID('People') ORDER BY c.column_id
GO
INSERT People (id, phone) VALUES (2, N'555-0101')
GO
SELECT * FROM People
GO
CREATE PROCEDURE ShowSSN @x SSN AS SELECT @x AS x, LEN(@x) AS len
GO
EXEC ShowSSN '999-88-7777'
GO
-- ALTER SCHEMA, example B: a type moves to another schema.
CREATE SCHEMA Person
GO
CREATE TYPE Person.TestType FROM varchar(10) NOT NULL
GO
CREATE SCHEMA Production
GO
ALTER SCHEMA Production TRANSFER TYPE::Person.TestType
SELECT t.name, s.name AS [schema] FROM sys.types AS t
    JOIN sys.schemas AS s ON s.schema_id = t.schema_id WHERE t.name = 'TestType'
GO
DECLARE @t Production.TestType = 'moved'
SELECT @t AS t
GO
-- Errors.
CREATE TYPE SSN FROM int
CREATE TYPE Bad FROM nosuchtype
DROP TYPE NoSuchType
DROP TYPE IF EXISTS NoSuchType
GO
DECLARE @bad NoSuchType
GO
DROP TABLE People
DROP PROCEDURE ShowSSN
DROP TYPE SSN
DROP TYPE Phone
DROP TYPE Amount
DROP TYPE Production.TestType
SELECT COUNT(*) AS user_types FROM sys.types WHERE is_user_defined = 1
GO
USE master
DROP DATABASE Types
