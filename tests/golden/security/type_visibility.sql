-- Metadata visibility of user-defined (alias) types in sys.types, TYPE_ID and TYPE_NAME:
-- seen by their owner (dbo), with a permission on TYPE:: (REFERENCES, EXECUTE, VIEW
-- DEFINITION, CONTROL …), on their schema, or at the database level (REFERENCES, VIEW
-- DEFINITION …); DENY VIEW DEFINITION hides one again. Built-in types are seen by all.
SET NOCOUNT ON
CREATE LOGIN tyv_login WITH PASSWORD = 'Pa55word!x', CHECK_POLICY = OFF
CREATE DATABASE tyv
GO
USE tyv
GO
CREATE SCHEMA app
GO
CREATE TYPE dbo.t_code FROM varchar(10) NOT NULL
CREATE TYPE dbo.t_amount FROM decimal(12, 2)
CREATE TYPE app.t_flag FROM bit
CREATE USER u FOR LOGIN tyv_login
CREATE USER viewer WITHOUT LOGIN
GRANT REFERENCES ON TYPE::dbo.t_code TO u
GRANT VIEW DEFINITION ON DATABASE::tyv TO viewer
GO
SELECT class_desc, major_id, permission_name, USER_NAME(grantee_principal_id) AS grantee
    FROM sys.database_permissions WHERE class = 6
EXECUTE AS LOGIN = 'tyv_login'
SELECT name FROM sys.types WHERE is_user_defined = 1 ORDER BY name
SELECT TYPE_ID('t_code') AS code_id, TYPE_ID('t_amount') AS amount_id,
    TYPE_NAME(TYPE_ID('int')) AS builtin FROM (SELECT 1 AS one) x
SELECT COUNT(*) AS builtin_types FROM sys.types WHERE is_user_defined = 0
REVERT
GO
GRANT EXECUTE ON SCHEMA::app TO u
EXECUTE AS LOGIN = 'tyv_login'
SELECT name FROM sys.types WHERE is_user_defined = 1 ORDER BY name
REVERT
EXECUTE AS USER = 'viewer'
SELECT name FROM sys.types WHERE is_user_defined = 1 ORDER BY name
REVERT
GO
DENY VIEW DEFINITION ON TYPE::dbo.t_code TO u
EXECUTE AS LOGIN = 'tyv_login'
SELECT name FROM sys.types WHERE is_user_defined = 1 ORDER BY name
SELECT TYPE_NAME(257) AS first_alias, TYPE_NAME(258) AS second FROM (SELECT 1 AS one) x
REVERT
GO
SELECT name, user_type_id FROM sys.types WHERE is_user_defined = 1 ORDER BY name
DROP TYPE dbo.t_code
SELECT COUNT(*) AS type_permissions FROM sys.database_permissions WHERE class = 6
GO
USE master
DROP DATABASE tyv
DROP LOGIN tyv_login
