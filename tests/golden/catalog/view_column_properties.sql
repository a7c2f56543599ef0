-- COL_LENGTH, COLUMNPROPERTY, sys.columns and INFORMATION_SCHEMA.COLUMNS of a view's columns
-- (the catalog keeps no columns for views: they are described from the view's query):
-- the type its query gives, a base (or lower view's) column's nullability and IDENTITY
-- property carried through, any other column nullable; a column list renames them; also
-- per row in a query over sys.objects.
SET NOCOUNT ON
CREATE TABLE dbo.t (id int IDENTITY NOT NULL, name varchar(20) NOT NULL, amt decimal(9, 2),
    n nvarchar(max), c nchar(4))
GO
CREATE VIEW dbo.v AS SELECT id, name, CAST(amt * 2 AS decimal(12, 2)) AS more, n, t.c
    FROM dbo.t AS t
GO
CREATE VIEW dbo.v2 (k, label) AS SELECT id, name FROM dbo.v
GO
SELECT COL_LENGTH('dbo.v', 'name') AS name_len, COL_LENGTH('v', 'n') AS n_len,
    COL_LENGTH('dbo.v', 'c') AS c_len, COL_LENGTH('dbo.v', 'id') AS id_len,
    COL_LENGTH('dbo.v', 'nope') AS no_column, COL_LENGTH('dbo.v2', 'label') AS label_len
DECLARE @v int = OBJECT_ID('dbo.v')
SELECT COLUMNPROPERTY(@v, 'more', 'ColumnId') AS more_id,
    COLUMNPROPERTY(@v, 'name', 'AllowsNull') AS name_null,
    COLUMNPROPERTY(@v, 'more', 'AllowsNull') AS more_null,
    COLUMNPROPERTY(@v, 'id', 'IsIdentity') AS id_identity,
    COLUMNPROPERTY(@v, 'name', 'IsIdentity') AS name_identity,
    COLUMNPROPERTY(@v, 'more', 'IsComputed') AS more_computed,
    COLUMNPROPERTY(@v, 'name', 'Precision') AS name_precision,
    COLUMNPROPERTY(@v, 'amt', 'Precision') AS base_name
SELECT COLUMNPROPERTY(OBJECT_ID('dbo.v2'), 'label', 'ColumnId') AS label_id,
    COLUMNPROPERTY(OBJECT_ID('dbo.v2'), 'label', 'AllowsNull') AS label_null,
    COLUMNPROPERTY(OBJECT_ID('dbo.v2'), 'name', 'ColumnId') AS old_name
IF COL_LENGTH('dbo.v', 'name') IS NOT NULL PRINT 'the view has a column name'
SELECT o.name, COL_LENGTH('dbo.v', 'n') AS n_len,
    COLUMNPROPERTY(o.object_id, 'name', 'AllowsNull') AS name_null,
    COLUMNPROPERTY(o.object_id, 'k', 'ColumnId') AS k_id
FROM sys.objects AS o WHERE o.type = 'V' ORDER BY o.name
PRINT '-- sys.columns and INFORMATION_SCHEMA.COLUMNS list a view''s columns'
SELECT OBJECT_NAME(object_id) AS object_name, name, column_id, system_type_id, max_length,
    precision, scale, is_nullable, is_identity, is_computed
FROM sys.columns WHERE object_id IN (OBJECT_ID('dbo.v'), OBJECT_ID('dbo.v2'))
ORDER BY object_name, column_id
SELECT TABLE_NAME, COLUMN_NAME, ORDINAL_POSITION, IS_NULLABLE, DATA_TYPE,
    CHARACTER_MAXIMUM_LENGTH
FROM INFORMATION_SCHEMA.COLUMNS WHERE TABLE_NAME LIKE 'v%' ORDER BY TABLE_NAME, ORDINAL_POSITION
PRINT '-- the side of an outer join that may have no row: its columns are nullable in the view'
CREATE TABLE dbo.u (id int NOT NULL, y int NOT NULL)
GO
CREATE VIEW dbo.oj_left AS SELECT t.name, u.y FROM dbo.t AS t LEFT OUTER JOIN dbo.u AS u ON u.id = t.id
GO
CREATE VIEW dbo.oj_right AS SELECT t.name, u.y FROM dbo.t AS t RIGHT JOIN dbo.u AS u ON u.id = t.id
GO
CREATE VIEW dbo.oj_full AS SELECT t.name, u.y FROM dbo.t AS t FULL JOIN dbo.u AS u ON u.id = t.id
GO
CREATE VIEW dbo.oj_inner AS SELECT t.name, u.y FROM dbo.t AS t JOIN dbo.u AS u ON u.id = t.id
GO
SELECT OBJECT_NAME(object_id) AS object_name, name, is_nullable
FROM sys.columns WHERE OBJECT_NAME(object_id) LIKE 'oj[_]%' ORDER BY object_name, column_id
SELECT COLUMNPROPERTY(OBJECT_ID('dbo.oj_left'), 'y', 'AllowsNull') AS left_y_null,
    COLUMNPROPERTY(OBJECT_ID('dbo.oj_left'), 'name', 'AllowsNull') AS left_name_null
