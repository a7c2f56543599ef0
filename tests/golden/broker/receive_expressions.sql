-- RECEIVE column lists as SELECT allows them: expressions over the queue's columns, CASE,
-- xml methods, correlated subqueries (bare queue columns or qualified with the queue's
-- name), assignments, and INTO a table variable whose nchar / char columns truncate and
-- pad as they do everywhere (RECEIVE page, examples F and I).
CREATE DATABASE AdventureWorks2022;
GO
USE AdventureWorks2022;
CREATE MESSAGE TYPE [//Adventure-Works.com/Expenses/SubmitExpense] VALIDATION = WELL_FORMED_XML;
CREATE CONTRACT [//Adventure-Works.com/Expenses/ExpenseSubmission]
    ([//Adventure-Works.com/Expenses/SubmitExpense] SENT BY INITIATOR);
CREATE QUEUE ExpenseClientQueue;
CREATE QUEUE ExpenseQueue;
CREATE SERVICE [//Adventure-Works.com/ExpenseClient] ON QUEUE ExpenseClientQueue;
CREATE SERVICE [//Adventure-Works.com/Expenses] ON QUEUE ExpenseQueue
    ([//Adventure-Works.com/Expenses/ExpenseSubmission]);
CREATE TABLE dbo.ExpenseCategories (message_type sysname, category nvarchar(20));
INSERT INTO dbo.ExpenseCategories
    VALUES (N'//Adventure-Works.com/Expenses/SubmitExpense', N'submission');
GO
CREATE PROCEDURE dbo.SendExpenses @n int AS
BEGIN
    DECLARE @h uniqueidentifier, @i int = 1, @body nvarchar(100);
    BEGIN DIALOG @h FROM SERVICE [//Adventure-Works.com/ExpenseClient]
        TO SERVICE '//Adventure-Works.com/Expenses'
        ON CONTRACT [//Adventure-Works.com/Expenses/ExpenseSubmission] WITH ENCRYPTION = OFF;
    WHILE @i <= @n
    BEGIN
        SET @body = N'<ExpenseReport><EmployeeID>' + CAST(@i AS nvarchar(10))
                  + N'</EmployeeID></ExpenseReport>';
        SEND ON CONVERSATION @h MESSAGE TYPE [//Adventure-Works.com/Expenses/SubmitExpense] (@body);
        SET @i += 1;
    END
END
GO
EXEC dbo.SendExpenses 6;
GO
-- Example I: a CASE that casts the body to xml.
RECEIVE TOP (1) message_type_name,
        CASE
            WHEN validation = 'X' THEN CAST(message_body as XML)
            ELSE NULL
         END AS message_body
         FROM ExpenseQueue;
GO
-- Correlated subqueries: a bare queue column, one qualified with the queue's name, EXISTS,
-- and a subquery inside a larger expression.
DECLARE @prefix nvarchar(10) = N'#';
RECEIVE TOP (1)
    message_sequence_number,
    CAST(message_body AS xml).value('(/ExpenseReport/EmployeeID)[1]', 'int') AS employee_id,
    (SELECT category FROM dbo.ExpenseCategories WHERE message_type = message_type_name) AS category,
    (SELECT state_desc FROM sys.conversation_endpoints e
        WHERE e.conversation_handle = ExpenseQueue.conversation_handle) AS conversation_state,
    CASE WHEN EXISTS (SELECT 1 FROM sys.services s WHERE s.name = service_name)
         THEN 'local' ELSE 'remote' END AS service_kind,
    @prefix + CAST(message_sequence_number + (SELECT COUNT(*) FROM dbo.ExpenseCategories)
                   AS nvarchar(10)) AS numbered
FROM ExpenseQueue;
GO
-- Assignments with a subquery.
DECLARE @state nvarchar(60), @seq bigint;
RECEIVE TOP (1)
    @state = (SELECT state_desc FROM sys.conversation_endpoints
              WHERE conversation_handle = ExpenseQueue.conversation_handle),
    @seq = message_sequence_number
FROM ExpenseQueue;
SELECT @state AS state, @seq AS seq;
GO
-- Example F: INTO a table variable; validation (nchar(2), 'X ') fits NCHAR (nchar(1)).
DECLARE @procTable TABLE(
     service_instance_id UNIQUEIDENTIFIER,
     handle UNIQUEIDENTIFIER,
     message_sequence_number BIGINT,
     service_name NVARCHAR(512),
     service_contract_name NVARCHAR(256),
     message_type_name NVARCHAR(256),
     validation NCHAR,
     message_body VARBINARY(MAX)) ;

RECEIVE TOP (1)
    conversation_group_id,
    conversation_handle,
    message_sequence_number,
    service_name,
    service_contract_name,
    message_type_name,
    validation,
    message_body
FROM ExpenseQueue
INTO @procTable ;

SELECT message_sequence_number, service_name, validation + N'|' AS validation,
       DATALENGTH(validation) AS validation_bytes
FROM @procTable;
GO
-- nchar / char columns and casts pad to their length; trailing blanks past it are cut.
DECLARE @t TABLE (v nchar(4), c char(1), s varchar(3));
RECEIVE TOP (1) validation, validation, N'ab   ' FROM ExpenseQueue INTO @t;
SELECT v + N'|' AS v, DATALENGTH(v) AS v_bytes, c + '|' AS c, s + '|' AS s FROM @t;
RECEIVE validation + N'|' AS v2, CAST(validation AS nchar(3)) + N'|' AS v3,
        DATALENGTH(validation) AS bytes FROM ExpenseQueue;
GO
