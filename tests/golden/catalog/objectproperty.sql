-- OBJECTPROPERTY / OBJECTPROPERTYEX (id, property) in the interpreter and per row inside a
-- query: kind tests answer 0 or 1 for any object; properties of a table, trigger or function
-- answer NULL for other kinds of object; an unknown property or id, and an object the
-- caller may not see (metadata visibility), answer NULL; OBJECTPROPERTYEX adds BaseType.
SET NOCOUNT ON
CREATE TABLE dbo.t (id int IDENTITY CONSTRAINT pk_t PRIMARY KEY, c nvarchar(10) NULL,
    d int CONSTRAINT df_t DEFAULT 0 CONSTRAINT ck_t CHECK (d >= 0),
    u int CONSTRAINT uq_t UNIQUE)
CREATE TABLE dbo.r (id int CONSTRAINT fk_r REFERENCES dbo.t (id))
CREATE QUEUE dbo.q
CREATE USER u WITHOUT LOGIN
GO
CREATE VIEW dbo.v AS SELECT id, c FROM dbo.t
GO
CREATE PROCEDURE dbo.p AS SELECT 1
GO
CREATE FUNCTION dbo.fs (@x int) RETURNS int AS BEGIN RETURN @x END
GO
CREATE FUNCTION dbo.fi () RETURNS TABLE AS RETURN SELECT 1 AS one
GO
CREATE FUNCTION dbo.ft () RETURNS @r TABLE (a int) AS BEGIN RETURN END
GO
CREATE TRIGGER dbo.tr_after ON dbo.t AFTER INSERT, DELETE AS SELECT 1
GO
CREATE TRIGGER dbo.tr_instead ON dbo.v INSTEAD OF UPDATE AS SELECT 1
GO
DISABLE TRIGGER dbo.tr_instead ON dbo.v
GO
IF OBJECTPROPERTY(OBJECT_ID(N'dbo.p'), N'IsProcedure') = 1 PRINT 'dbo.p is a procedure'
IF OBJECTPROPERTY(OBJECT_ID(N'dbo.t'), N'IsProcedure') = 0 PRINT 'dbo.t is not'
SELECT OBJECTPROPERTY(OBJECT_ID('dbo.t'), 'IsTable') AS is_table,
    OBJECTPROPERTY(OBJECT_ID('dbo.t'), 'IsUserTable') AS user_table,
    OBJECTPROPERTY(OBJECT_ID('dbo.t'), 'IsSystemTable') AS system_table,
    OBJECTPROPERTY(OBJECT_ID('dbo.t'), 'TableHasIdentity') AS has_identity,
    OBJECTPROPERTY(OBJECT_ID('dbo.r'), 'TableHasIdentity') AS r_identity,
    OBJECTPROPERTY(OBJECT_ID('dbo.t'), 'TableHasPrimaryKey') AS has_pk,
    OBJECTPROPERTY(OBJECT_ID('dbo.r'), 'TableHasPrimaryKey') AS r_pk,
    OBJECTPROPERTY(OBJECT_ID('dbo.p'), 'TableHasIdentity') AS proc_identity,
    OBJECTPROPERTY(OBJECT_ID('dbo.t'), 'IsMSShipped') AS shipped,
    OBJECTPROPERTY(OBJECT_ID('dbo.t'), 'OwnerId') AS owner_id,
    OBJECTPROPERTY(OBJECT_ID('dbo.t'), 'IsEncrypted') AS encrypted,
    OBJECTPROPERTY(OBJECT_ID('dbo.t'), 'NoSuchProperty') AS unknown_property,
    OBJECTPROPERTY(12345, 'IsTable') AS unknown_id, OBJECTPROPERTY(NULL, 'IsTable') AS null_id
SELECT OBJECTPROPERTY(OBJECT_ID('dbo.tr_after'), 'ExecIsAfterTrigger') AS after_,
    OBJECTPROPERTY(OBJECT_ID('dbo.tr_after'), 'ExecIsInsteadOfTrigger') AS instead,
    OBJECTPROPERTY(OBJECT_ID('dbo.tr_after'), 'ExecIsInsertTrigger') AS ins,
    OBJECTPROPERTY(OBJECT_ID('dbo.tr_after'), 'ExecIsUpdateTrigger') AS upd,
    OBJECTPROPERTY(OBJECT_ID('dbo.tr_after'), 'ExecIsDeleteTrigger') AS del,
    OBJECTPROPERTY(OBJECT_ID('dbo.tr_after'), 'ExecIsTriggerDisabled') AS disabled,
    OBJECTPROPERTY(OBJECT_ID('dbo.tr_instead'), 'ExecIsInsteadOfTrigger') AS v_instead,
    OBJECTPROPERTY(OBJECT_ID('dbo.tr_instead'), 'ExecIsTriggerDisabled') AS v_disabled,
    OBJECTPROPERTY(OBJECT_ID('dbo.t'), 'ExecIsTriggerDisabled') AS table_disabled,
    OBJECTPROPERTY(OBJECT_ID('dbo.v'), 'HasInsteadOfTrigger') AS v_has_instead
SELECT OBJECTPROPERTY(OBJECT_ID('dbo.fs'), 'IsScalarFunction') AS fs_scalar,
    OBJECTPROPERTY(OBJECT_ID('dbo.fi'), 'IsInlineFunction') AS fi_inline,
    OBJECTPROPERTY(OBJECT_ID('dbo.ft'), 'IsInlineFunction') AS ft_inline,
    OBJECTPROPERTY(OBJECT_ID('dbo.ft'), 'IsTableFunction') AS ft_table,
    OBJECTPROPERTY(OBJECT_ID('dbo.fs'), 'IsDeterministic') AS fs_deterministic,
    OBJECTPROPERTY(OBJECT_ID('dbo.v'), 'IsSchemaBound') AS v_schemabound,
    OBJECTPROPERTY(OBJECT_ID('dbo.t'), 'IsSchemaBound') AS t_schemabound,
    OBJECTPROPERTY(OBJECT_ID('dbo.q'), 'IsQueue') AS q_queue,
    OBJECTPROPERTYEX(OBJECT_ID('dbo.q'), 'BaseType') AS q_type,
    OBJECTPROPERTYEX(OBJECT_ID('dbo.v'), 'IsView') AS v_view_ex,
    OBJECTPROPERTY(OBJECT_ID('dbo.v'), 'BaseType') AS not_in_objectproperty
GO
-- per row, over the catalog
SELECT name, OBJECTPROPERTYEX(object_id, 'BaseType') AS base_type,
    OBJECTPROPERTY(object_id, 'IsConstraint') AS cnst,
    OBJECTPROPERTY(object_id, 'IsPrimaryKey') AS pk, OBJECTPROPERTY(object_id, 'IsForeignKey') AS fk,
    OBJECTPROPERTY(object_id, 'IsCheckCnst') AS ck, OBJECTPROPERTY(object_id, 'IsDefaultCnst') AS df,
    OBJECTPROPERTY(object_id, 'IsUniqueCnst') AS uq, OBJECTPROPERTY(object_id, 'IsView') AS vw,
    OBJECTPROPERTY(object_id, 'IsTrigger') AS trg, OBJECTPROPERTY(object_id, 'IsTable') AS tbl,
    OBJECTPROPERTY(object_id, 'TableHasPrimaryKey') AS has_pk,
    OBJECTPROPERTY(object_id, 'ExecIsInsteadOfTrigger') AS instead
FROM sys.objects ORDER BY name
DECLARE @prop sysname = 'IsProcedure'
SELECT name FROM sys.objects WHERE OBJECTPROPERTY(object_id, @prop) = 1
GO
-- metadata visibility: u sees only dbo.p (EXECUTE granted)
GRANT EXECUTE ON dbo.p TO u
GO
EXECUTE AS USER = 'u'
SELECT OBJECTPROPERTY(OBJECT_ID('dbo.p'), 'IsProcedure') AS p_visible,
    OBJECTPROPERTY(OBJECT_ID('dbo.t'), 'IsUserTable') AS t_hidden
SELECT name, OBJECTPROPERTY(object_id, 'IsProcedure') AS proc_
FROM sys.objects ORDER BY name
REVERT
GO
-- the id of a hidden object still answers NULL per row
EXECUTE AS USER = 'u'
SELECT COUNT(*) AS hidden FROM (SELECT OBJECT_ID('dbo.t') AS id) AS x
WHERE OBJECTPROPERTY(x.id, 'IsTable') IS NULL
REVERT
GO
-- per row, the property name must be known before the query runs
SELECT name, OBJECTPROPERTY(object_id, name) AS by_column FROM sys.objects
GO
