-- TYPE_ID('[schema.]name') and TYPE_NAME(user_type_id) anywhere, with or without FROM, of
-- constants, variables and columns: built-in types are in schema sys (sysname is 256); an
-- unqualified name is a built-in type or one of dbo; unknown names and ids give NULL; a
-- user-defined type the caller may not see (metadata visibility) gives NULL too.
SET NOCOUNT ON
SELECT TYPE_ID('int') AS int_id, TYPE_NAME(56) AS name_56, TYPE_ID('sys.int') AS sys_int,
    TYPE_ID('dbo.int') AS dbo_int, TYPE_NAME(256) AS name_256, TYPE_ID('SYSNAME') AS sysname_id,
    TYPE_ID('nope') AS unknown, TYPE_NAME(NULL) AS no_id
GO
CREATE SCHEMA s1
GO
CREATE TYPE dbo.mytype FROM varchar(10)
CREATE TYPE s1.other FROM int
CREATE USER u WITHOUT LOGIN
GO
DECLARE @n sysname = 'dbo.mytype'
SELECT TYPE_ID('dbo.mytype') AS qualified, TYPE_ID('mytype') AS plain,
    TYPE_ID('[dbo].[mytype]') AS bracketed, TYPE_ID(@n) AS variable,
    TYPE_NAME(TYPE_ID('s1.other')) AS other, TYPE_ID('other') AS other_plain
CREATE TABLE dbo.n (nm sysname)
INSERT dbo.n VALUES ('int'), ('mytype'), ('dbo.mytype'), ('s1.other'), ('other'), ('sys.int'),
    ('nope')
SELECT nm, TYPE_ID(nm) AS id, TYPE_NAME(TYPE_ID(nm)) AS back FROM dbo.n ORDER BY nm
SELECT TYPE_ID(@n) AS variable FROM dbo.n WHERE nm = 'int'
GO
EXECUTE AS USER = 'u'
SELECT TYPE_ID('dbo.mytype') AS hidden, TYPE_NAME(257) AS hidden_name, TYPE_ID('int') AS int_id
REVERT
GO
GRANT REFERENCES ON TYPE::dbo.mytype TO u
EXECUTE AS USER = 'u'
SELECT TYPE_ID('dbo.mytype') AS seen, TYPE_NAME(257) AS seen_name
REVERT
GO
SELECT TYPE_ID() AS none
GO
