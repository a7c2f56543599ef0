-- BEGIN DIALOG and SEND with the service, contract and message type names in variables, as
-- the generic "send a message" procedures pass them; names from the SEND and BEGIN DIALOG
-- CONVERSATION pages' examples (AdventureWorks expense processing).
CREATE DATABASE AdventureWorks2022;
GO
USE AdventureWorks2022;
CREATE MESSAGE TYPE [//Adventure-Works.com/Expenses/SubmitExpense] VALIDATION = WELL_FORMED_XML;
CREATE CONTRACT [//Adventure-Works.com/Expenses/ExpenseProcessing]
    ([//Adventure-Works.com/Expenses/SubmitExpense] SENT BY INITIATOR);
CREATE QUEUE ExpenseClientQueue;
CREATE QUEUE ExpenseQueue;
CREATE SERVICE [//Adventure-Works.com/Expenses/ExpenseClient] ON QUEUE ExpenseClientQueue;
CREATE SERVICE [//Adventure-Works.com/Expenses] ON QUEUE ExpenseQueue
    ([//Adventure-Works.com/Expenses/ExpenseProcessing]);
GO
CREATE PROCEDURE dbo.usp_SendMessage
    @from sysname, @to nvarchar(256), @contract sysname, @type sysname, @body xml
AS
BEGIN
    DECLARE @h uniqueidentifier;
    BEGIN DIALOG CONVERSATION @h
        FROM SERVICE @from
        TO SERVICE @to
        ON CONTRACT @contract
        WITH ENCRYPTION = OFF;
    SEND ON CONVERSATION @h MESSAGE TYPE @type (@body);
END
GO
EXEC dbo.usp_SendMessage N'//Adventure-Works.com/Expenses/ExpenseClient',
    N'//Adventure-Works.com/Expenses', N'//Adventure-Works.com/Expenses/ExpenseProcessing',
    N'//Adventure-Works.com/Expenses/SubmitExpense', N'<expense amount="12.50"/>';
RECEIVE service_name, service_contract_name, message_type_name,
    CAST(message_body AS xml) AS body FROM ExpenseQueue;
GO
-- A name in a variable is used as it is: what names nothing is the usual error.
DECLARE @h uniqueidentifier, @from sysname = N'//Adventure-Works.com/Expenses/Nobody';
BEGIN DIALOG @h FROM SERVICE @from TO SERVICE N'//Adventure-Works.com/Expenses';
GO
DECLARE @h uniqueidentifier, @c sysname = N'//Adventure-Works.com/Expenses/NoContract';
BEGIN DIALOG @h FROM SERVICE [//Adventure-Works.com/Expenses/ExpenseClient]
    TO SERVICE N'//Adventure-Works.com/Expenses' ON CONTRACT @c;
GO
DECLARE @h uniqueidentifier, @t sysname = N'NoSuchType';
BEGIN DIALOG @h FROM SERVICE [//Adventure-Works.com/Expenses/ExpenseClient]
    TO SERVICE N'//Adventure-Works.com/Expenses'
    ON CONTRACT [//Adventure-Works.com/Expenses/ExpenseProcessing];
SEND ON CONVERSATION @h MESSAGE TYPE @t (N'<x/>');
GO
-- NULL in place of a name: the name is missing.
DECLARE @h uniqueidentifier, @from sysname;
BEGIN DIALOG @h FROM SERVICE @from TO SERVICE N'//Adventure-Works.com/Expenses';
GO
DECLARE @h uniqueidentifier, @c sysname;
BEGIN DIALOG @h FROM SERVICE [//Adventure-Works.com/Expenses/ExpenseClient]
    TO SERVICE N'//Adventure-Works.com/Expenses' ON CONTRACT @c;
GO
DECLARE @h uniqueidentifier, @t sysname;
BEGIN DIALOG @h FROM SERVICE [//Adventure-Works.com/Expenses/ExpenseClient]
    TO SERVICE N'//Adventure-Works.com/Expenses'
    ON CONTRACT [//Adventure-Works.com/Expenses/ExpenseProcessing];
SEND ON CONVERSATION @h MESSAGE TYPE @t (N'<x/>');
GO
