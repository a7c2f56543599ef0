-- COL_LENGTH('table', 'column'): the defined length in bytes (nvarchar(10) is 20, a (max)
-- type -1), NULL for no such table or column; COLUMNPROPERTY(id, 'column', property) with
-- the documented properties (NULL for an unknown one). Both in the interpreter and per row
-- inside a query; a table the caller may not see answers NULL.
SET NOCOUNT ON
CREATE TABLE dbo.t (id int IDENTITY NOT NULL, c nvarchar(10) NULL, v varchar(20),
    m nvarchar(max), d decimal(9, 2) NOT NULL, b varbinary(8), dt datetime, x xml,
    k AS id * 2)
CREATE USER u WITHOUT LOGIN
GO
IF COL_LENGTH('dbo.t', 'e') IS NULL ALTER TABLE dbo.t ADD e int
GO
IF COL_LENGTH('dbo.t', 'e') IS NOT NULL PRINT 'column e added'
SELECT COL_LENGTH('dbo.t', 'c') AS c, COL_LENGTH('t', 'V') AS v, COL_LENGTH('dbo.t', 'm') AS m,
    COL_LENGTH('dbo.t', 'id') AS id, COL_LENGTH('dbo.t', 'd') AS d, COL_LENGTH('dbo.t', 'b') AS b,
    COL_LENGTH('dbo.t', 'dt') AS dt, COL_LENGTH('dbo.t', 'x') AS x,
    COL_LENGTH('dbo.t', 'nope') AS no_column,
    COL_LENGTH('dbo.nope', 'c') AS no_table, COL_LENGTH(NULL, 'c') AS null_table
DECLARE @id int = OBJECT_ID('dbo.t')
SELECT COLUMNPROPERTY(@id, 'c', 'AllowsNull') AS c_null, COLUMNPROPERTY(@id, 'id', 'AllowsNull') AS id_null,
    COLUMNPROPERTY(@id, 'id', 'IsIdentity') AS id_identity, COLUMNPROPERTY(@id, 'c', 'IsIdentity') AS c_identity,
    COLUMNPROPERTY(@id, 'k', 'IsComputed') AS k_computed, COLUMNPROPERTY(@id, 'c', 'IsComputed') AS c_computed,
    COLUMNPROPERTY(@id, 'd', 'Precision') AS d_precision, COLUMNPROPERTY(@id, 'd', 'Scale') AS d_scale,
    COLUMNPROPERTY(@id, 'c', 'Precision') AS c_precision, COLUMNPROPERTY(@id, 'm', 'Precision') AS m_precision,
    COLUMNPROPERTY(@id, 'id', 'Precision') AS id_precision, COLUMNPROPERTY(@id, 'c', 'Scale') AS c_scale,
    COLUMNPROPERTY(@id, 'c', 'IsRowGuidCol') AS rowguid, COLUMNPROPERTY(@id, 'd', 'ColumnId') AS d_id,
    COLUMNPROPERTY(@id, 'c', 'IsPrimaryKey') AS not_a_property,
    COLUMNPROPERTY(@id, 'nope', 'AllowsNull') AS no_column
GO
-- per row, over the catalog
SELECT name, COL_LENGTH('dbo.t', name) AS len, COLUMNPROPERTY(object_id, name, 'AllowsNull') AS nullable,
    COLUMNPROPERTY(object_id, name, 'ColumnId') AS col_id, COLUMNPROPERTY(object_id, name, 'Precision') AS prec
FROM sys.columns WHERE object_id = OBJECT_ID('dbo.t') ORDER BY column_id
GO
EXECUTE AS USER = 'u'
SELECT COL_LENGTH('dbo.t', 'c') AS hidden_length,
    COLUMNPROPERTY(OBJECT_ID('dbo.t'), 'c', 'AllowsNull') AS hidden_property
REVERT
GO
