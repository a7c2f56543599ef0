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
-- TotalBytes: the 2-byte header, the base type's properties and the value's bytes.
SELECT SQL_VARIANT_PROPERTY(CAST(1 AS int), 'TotalBytes') AS int_bytes,
       SQL_VARIANT_PROPERTY(CAST(46279.1 AS decimal(8,2)), 'TotalBytes') AS decimal_bytes,
       SQL_VARIANT_PROPERTY(CAST('ABC' AS varchar(10)), 'TotalBytes') AS varchar_bytes,
       SQL_VARIANT_PROPERTY(N'abc', 'TotalBytes') AS nvarchar_bytes,
       SQL_VARIANT_PROPERTY(0x0102, 'TotalBytes') AS binary_bytes,
       SQL_VARIANT_PROPERTY(CAST('2020-01-01' AS datetime2), 'TotalBytes') AS datetime2_bytes,
       SQL_VARIANT_PROPERTY(NEWID(), 'totalbytes') AS guid_bytes
-- Precision and scale of the date and time types, as the current page lists them.
SELECT SQL_VARIANT_PROPERTY(CAST('2020-01-01' AS date), 'Precision') AS date_p,
       SQL_VARIANT_PROPERTY(CAST('2020-01-01' AS datetime2), 'Precision') AS dt2_p,
       SQL_VARIANT_PROPERTY(CAST('2020-01-01' AS datetime2(0)), 'Precision') AS dt2_0_p,
       SQL_VARIANT_PROPERTY(CAST('2020-01-01' AS datetime2(3)), 'Scale') AS dt2_3_s,
       SQL_VARIANT_PROPERTY(CAST('10:00' AS time(3)), 'Precision') AS time3_p,
       SQL_VARIANT_PROPERTY(CAST('10:00' AS time), 'Scale') AS time_s,
       SQL_VARIANT_PROPERTY(SYSDATETIMEOFFSET(), 'Precision') AS dto_p
