-- SQL_VARIANT_PROPERTY of values with a declared type and of sql_variant variables.
DECLARE @v1 sql_variant = CAST(3 AS int)
SELECT SQL_VARIANT_PROPERTY(@v1, 'BaseType') AS base, SQL_VARIANT_PROPERTY(@v1, 'Precision') AS p,
       SQL_VARIANT_PROPERTY(@v1, 'MaxLength') AS max_length
SELECT SQL_VARIANT_PROPERTY(CAST(46279.1 AS decimal(8,2)), 'BaseType') AS 'Base Type',
       SQL_VARIANT_PROPERTY(CAST(46279.1 AS decimal(8,2)), 'Precision') AS 'Precision',
       SQL_VARIANT_PROPERTY(CAST(46279.1 AS decimal(8,2)), 'Scale') AS 'Scale',
       SQL_VARIANT_PROPERTY(CAST(46279.1 AS decimal(8,2)), 'MaxLength') AS 'MaxLength'
SELECT SQL_VARIANT_PROPERTY(N'abc', 'Collation') AS collation_name,
       SQL_VARIANT_PROPERTY(CAST('x' AS varchar(20)), 'MaxLength') AS varchar_length,
       SQL_VARIANT_PROPERTY(CAST('x' AS nvarchar(20)), 'MaxLength') AS nvarchar_bytes,
       SQL_VARIANT_PROPERTY(GETDATE(), 'Precision') AS datetime_precision,
       SQL_VARIANT_PROPERTY(GETDATE(), 'Scale') AS datetime_scale,
       SQL_VARIANT_PROPERTY($1, 'Scale') AS money_scale,
       SQL_VARIANT_PROPERTY(1, 'Collation') AS int_collation,
       SQL_VARIANT_PROPERTY(1, 'nonsense') AS other,
       SQL_VARIANT_PROPERTY(NULL, 'BaseType') AS null_value
