-- ALTER DATABASE … ADD FILEGROUP / ADD FILE and CREATE QUEUE … ON filegroup, from the
-- "ALTER DATABASE File and Filegroup options" and CREATE QUEUE pages' examples. The store has
-- no files: the statements are accepted and change nothing (docs/decisions.md).
CREATE DATABASE AdventureWorks2022;
GO
USE master;
GO
ALTER DATABASE AdventureWorks2022
ADD FILEGROUP Test1FG1;
GO
ALTER DATABASE AdventureWorks2022
ADD FILE
(
    NAME = test1dat3,
    FILENAME = 'C:\Program Files\Microsoft SQL Server\MSSQL13.MSSQLSERVER\MSSQL\DATA\t1dat3.ndf',
    SIZE = 5MB,
    MAXSIZE = 100MB,
    FILEGROWTH = 5MB
),
(
    NAME = test1dat4,
    FILENAME = 'C:\Program Files\Microsoft SQL Server\MSSQL13.MSSQLSERVER\MSSQL\DATA\t1dat4.ndf',
    SIZE = 5MB,
    MAXSIZE = 100MB,
    FILEGROWTH = 5MB
)
TO FILEGROUP Test1FG1;
GO
ALTER DATABASE AdventureWorks2022
ADD LOG FILE
(
    NAME = test1log2,
    FILENAME = 'C:\Program Files\Microsoft SQL Server\MSSQL10_50.MSSQLSERVER\MSSQL\DATA\test2log.ldf',
    SIZE = 5MB,
    MAXSIZE = 100MB,
    FILEGROWTH = 5MB
),
(
    NAME = test1log3,
    FILENAME = 'C:\Program Files\Microsoft SQL Server\MSSQL10_50.MSSQLSERVER\MSSQL\DATA\test3log.ldf',
    SIZE = 5MB,
    MAXSIZE = UNLIMITED,
    FILEGROWTH = 10%
);
GO
ALTER DATABASE AdventureWorks2022
MODIFY FILE
(NAME = test1dat3,
SIZE = 200MB);
GO
ALTER DATABASE AdventureWorks2022
MODIFY FILEGROUP Test1FG1 DEFAULT;
GO
ALTER DATABASE AdventureWorks2022
MODIFY FILEGROUP [PRIMARY] DEFAULT;
GO
ALTER DATABASE AdventureWorks2022
REMOVE FILE test1dat4;
GO
ALTER DATABASE AdventureWorks2022
ADD FILEGROUP ExpenseWorkFileGroup;
GO
USE AdventureWorks2022;
GO
CREATE PROCEDURE dbo.expense_procedure AS RETURN;
GO
CREATE QUEUE ExpenseQueue
    ON ExpenseWorkFileGroup ;

CREATE QUEUE ExpenseQueue2
    WITH STATUS = OFF,
      RETENTION = OFF,
      ACTIVATION (
          PROCEDURE_NAME = AdventureWorks2022.dbo.expense_procedure,
          MAX_QUEUE_READERS = 10,
          EXECUTE AS SELF )
    ON [DEFAULT] ;

SELECT name, is_receive_enabled, is_retention_enabled, max_readers, activation_procedure
FROM sys.service_queues WHERE is_ms_shipped = 0 ORDER BY name;
GO
-- No user transaction may be open.
BEGIN TRANSACTION;
ALTER DATABASE CURRENT ADD FILEGROUP Test2FG1;
ROLLBACK;
GO
