-- CREATE / ALTER / DROP SEQUENCE, NEXT VALUE FOR (also as a column default) and
-- sp_sequence_get_range: the examples of SQL Server's statement pages, then the errors.
CREATE DATABASE Seq
GO
USE Seq
GO
CREATE SCHEMA Test
GO
-- CREATE SEQUENCE, examples A to G.
CREATE SEQUENCE Test.CountBy1 START WITH 1 INCREMENT BY 1;
CREATE SEQUENCE Test.CountByNeg1 START WITH 0 INCREMENT BY -1;
CREATE SEQUENCE Test.CountBy5 START WITH 5 INCREMENT BY 5;
CREATE SEQUENCE Test.ID_Seq START WITH 24329 INCREMENT BY 1;
CREATE SEQUENCE Test.TestSequence;
CREATE SEQUENCE SmallSeq AS smallint;
CREATE SEQUENCE Test.DecSeq AS decimal(3, 0) START WITH 125 INCREMENT BY 25
    MINVALUE 100 MAXVALUE 200 CYCLE CACHE 3;
GO
SELECT name, start_value, increment, minimum_value, maximum_value, is_cycling, is_cached,
    cache_size, system_type_id, precision, scale, current_value, is_exhausted, last_used_value
    FROM sys.sequences ORDER BY name
SELECT name, type, type_desc FROM sys.objects WHERE type = 'SO' ORDER BY name
GO
-- NEXT VALUE FOR, example A: each use takes the next value.
SELECT NEXT VALUE FOR Test.CountBy1 AS FirstUse;
SELECT NEXT VALUE FOR Test.CountBy1 AS SecondUse;
-- Example B: in a variable.
DECLARE @myvar1 bigint = NEXT VALUE FOR Test.CountBy1;
DECLARE @myvar2 bigint;
DECLARE @myvar3 bigint;
SET @myvar2 = NEXT VALUE FOR Test.CountBy1;
SELECT @myvar3 = NEXT VALUE FOR Test.CountBy1;
SELECT @myvar1 AS myvar1, @myvar2 AS myvar2, @myvar3 AS myvar3;
-- Descending, and several uses in one row.
SELECT NEXT VALUE FOR Test.CountByNeg1 AS a, NEXT VALUE FOR Test.CountByNeg1 AS b
GO
-- Example G of CREATE SEQUENCE: a decimal sequence that cycles.
SELECT NEXT VALUE FOR Test.DecSeq AS v
SELECT NEXT VALUE FOR Test.DecSeq AS v
SELECT NEXT VALUE FOR Test.DecSeq AS v
SELECT NEXT VALUE FOR Test.DecSeq AS v
SELECT NEXT VALUE FOR Test.DecSeq AS v
SELECT NEXT VALUE FOR Test.DecSeq AS v
GO
-- One value per row; a column default; INSERT ... SELECT.
CREATE TABLE Test.Orders (OrderID int PRIMARY KEY DEFAULT (NEXT VALUE FOR Test.CountBy5),
    Name varchar(20) NOT NULL)
INSERT Test.Orders (Name) VALUES ('Tire'), ('Seat'), ('Brake')
INSERT Test.Orders (OrderID, Name) SELECT NEXT VALUE FOR Test.ID_Seq, Name + ' kit' FROM Test.Orders
SELECT * FROM Test.Orders ORDER BY OrderID
SELECT NEXT VALUE FOR Test.TestSequence AS n, Name FROM Test.Orders WHERE OrderID < 100 ORDER BY n
GO
-- sp_sequence_get_range: a range of the cycling sequence (its next value is 150).
DECLARE @first sql_variant, @last sql_variant, @cycles int, @inc sql_variant,
    @lo sql_variant, @hi sql_variant
EXEC sp_sequence_get_range @sequence_name = N'Test.DecSeq', @range_size = 5,
    @range_first_value = @first OUTPUT, @range_last_value = @last OUTPUT,
    @range_cycle_count = @cycles OUTPUT, @sequence_increment = @inc OUTPUT,
    @sequence_min_value = @lo OUTPUT, @sequence_max_value = @hi OUTPUT
SELECT @first AS first, @last AS last, @cycles AS cycles, @inc AS inc, @lo AS lo, @hi AS hi
SELECT NEXT VALUE FOR Test.DecSeq AS after_range
EXEC sp_sequence_get_range N'Test.CountBy1', 10, @first OUTPUT
SELECT @first AS first, NEXT VALUE FOR Test.CountBy1 AS next_one
GO
-- ALTER SEQUENCE: restart with new bounds and no cycle; then it runs out.
ALTER SEQUENCE Test.CountBy1 RESTART WITH 100 INCREMENT BY 50 MINVALUE 50 MAXVALUE 200
    NO CYCLE NO CACHE
SELECT NEXT VALUE FOR Test.CountBy1 AS v
SELECT NEXT VALUE FOR Test.CountBy1 AS v
SELECT NEXT VALUE FOR Test.CountBy1 AS v
SELECT current_value, is_exhausted, is_cached FROM sys.sequences WHERE name = 'CountBy1'
GO
SELECT NEXT VALUE FOR Test.CountBy1 AS v
GO
ALTER SEQUENCE Test.CountBy1 RESTART
SELECT NEXT VALUE FOR Test.CountBy1 AS restarted
GO
-- Errors.
CREATE SEQUENCE Test.CountBy1
CREATE SEQUENCE Bad AS varchar(10)
CREATE SEQUENCE Bad INCREMENT BY 0
CREATE SEQUENCE Bad START WITH 5 MINVALUE 10
CREATE SEQUENCE Bad MINVALUE 10 MAXVALUE 1
CREATE SEQUENCE Bad AS tinyint START WITH 300
CREATE SEQUENCE Bad CACHE 0
CREATE SEQUENCE Bad RESTART WITH 1
ALTER SEQUENCE Test.CountBy1 START WITH 1
ALTER SEQUENCE Nope RESTART
EXEC sp_sequence_get_range N'Test.CountBy5', 0, NULL
DROP SEQUENCE Nope
DROP SEQUENCE IF EXISTS Nope
GO
SELECT NEXT VALUE FOR Nope
GO
DROP TABLE Test.Orders
DROP SEQUENCE Test.CountBy1, Test.CountByNeg1, Test.CountBy5, Test.ID_Seq, Test.TestSequence
DROP SEQUENCE SmallSeq, Test.DecSeq
SELECT COUNT(*) AS sequences FROM sys.sequences
GO
USE master
DROP DATABASE Seq
