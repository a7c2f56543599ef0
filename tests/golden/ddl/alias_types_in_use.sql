-- DROP TYPE of an alias type a column uses: Msg 3732, as the DROP TYPE page says ("will not
-- execute when … tables … contain columns of the alias data type"); sys.columns shows the
-- alias type's user_type_id beside its base system_type_id, as SQL Server does.
CREATE TYPE dbo.Phone FROM varchar(20) NOT NULL;
CREATE TYPE Code FROM char(3) NULL;
CREATE TABLE dbo.Customers (id int, phone dbo.Phone, fax Phone NULL, code Code);
SELECT c.name, TYPE_NAME(c.system_type_id) AS base, TYPE_NAME(c.user_type_id) AS declared,
    c.user_type_id - t.user_type_id AS same_id, c.is_nullable
FROM sys.columns AS c LEFT JOIN sys.types AS t ON t.name = TYPE_NAME(c.user_type_id)
    AND t.is_user_defined = 1
WHERE c.object_id = OBJECT_ID('dbo.Customers') ORDER BY c.column_id;
GO
DROP TYPE dbo.Phone;
GO
DROP TYPE Code;
GO
-- Columns added by ALTER TABLE count too; a dropped column no longer does.
CREATE TABLE dbo.Suppliers (id int);
ALTER TABLE dbo.Suppliers ADD code Code;
ALTER TABLE dbo.Customers DROP COLUMN code;
GO
DROP TYPE Code;
GO
ALTER TABLE dbo.Suppliers DROP COLUMN code;
DROP TYPE Code;
SELECT COUNT(*) AS code_types FROM sys.types WHERE name = 'Code';
GO
-- Once the table is gone the type can go.
DROP TABLE dbo.Customers;
DROP TYPE dbo.Phone;
SELECT COUNT(*) AS user_types FROM sys.types WHERE is_user_defined = 1;
DROP TABLE dbo.Suppliers;
