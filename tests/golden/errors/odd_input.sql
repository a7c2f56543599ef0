-- Odd input gets SQL Server's errors (issue 14 item 8), never Msg 3624.
-- String functions take binary arguments as varchar (LTRIM/RTRIM/UPPER/REVERSE/TRANSLATE);
-- REPLICATE and STUFF keep binary data binary.
PRINT '[' + RTRIM(0x) + ']';
PRINT '[' + LTRIM(0x2041) + ']' + UPPER(0x61) + REVERSE(0x4142);
SELECT REPLICATE(0x01, 3) AS r, STUFF(0x010203, 2, 1, 0xFF) AS s, TRIM(0x20412020) AS t;
GO
-- LIKE converts arguments that are not character strings to character strings.
IF 'x' LIKE 1.5 PRINT 'like' ELSE PRINT 'not like';
IF 1.5 LIKE 1.5 PRINT '1.5 like 1.5';
IF 12 LIKE '1%' PRINT '12 like 1%';
IF 'a%' LIKE 'a!%' ESCAPE '!' PRINT 'escaped';
GO
DECLARE @x xml = '<a/>';
IF @x LIKE '%a%' PRINT 'never';
GO
DECLARE @d decimal(10, 2) = 1;
PRINT 'not reached: the batch does not compile';
CLOSE @d;
GO
DECLARE @c CURSOR;
CLOSE @c;
GO
CREATE QUEUE q1 WITH ACTIVATION (STATUS = OFF, MAX_QUEUE_READERS = 99999999999999999999);
GO
CREATE QUEUE q2 WITH ACTIVATION (STATUS = OFF, MAX_QUEUE_READERS = 32768);
GO
CREATE QUEUE q3 WITH ACTIVATION (STATUS = OFF, MAX_QUEUE_READERS = 32767);
SELECT name, max_readers FROM sys.service_queues WHERE name LIKE 'q%';
GO
CREATE BROKER PRIORITY p1 FOR CONVERSATION SET (PRIORITY_LEVEL = 'x');
GO
CREATE BROKER PRIORITY p2 FOR CONVERSATION SET (PRIORITY_LEVEL = 11);
GO
-- Identifiers: 128 characters are fine, 129 are Msg 103 (bare, bracketed, variables).
CREATE TABLE t128_aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa (a int);
SELECT LEN(name) AS n FROM sys.tables WHERE name LIKE 't128%';
GO
CREATE TABLE t129_aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa (a int);
GO
SELECT 1 AS [b129_bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb];
GO
DECLARE @v129_vvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvv int;
GO
PRINT 'done';
GO
-- SET @v.method(…): only modify() mutates; other methods and other types are refused.
DECLARE @doc xml = '<a/>';
SET @doc.exist('/a');
GO
DECLARE @i int;
SET @i.value('/a', 'int');
GO
DECLARE @s nvarchar(9);
SET @s.modify('delete /a');
GO
PRINT 'after methods';
GO
-- xml methods on a sql_variant (which never holds xml) are Msg 258 when they run.
DECLARE @v sql_variant = '<a>1</a>';
SELECT @v.value('(/a)[1]', 'int');
GO
PRINT 'after sql_variant';
