-- BEGIN DIALOG … TO SERVICE 'name', { 'service_broker_guid' | 'CURRENT DATABASE' }: the
-- far broker instance is named at once (BEGIN DIALOG CONVERSATION page, example "Beginning a
-- dialog with a specific broker instance"); without one it stays NULL until the first
-- message finds the target.
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
GO
DECLARE @dialog_handle UNIQUEIDENTIFIER, @current UNIQUEIDENTIFIER, @none UNIQUEIDENTIFIER;
DECLARE @guid nvarchar(128) = (SELECT CAST(service_broker_guid AS nvarchar(128))
                               FROM sys.databases WHERE database_id = DB_ID());

BEGIN DIALOG CONVERSATION @dialog_handle
   FROM SERVICE [//Adventure-Works.com/ExpenseClient]
   TO SERVICE '//Adventure-Works.com/Expenses',
              'a326e034-d4cf-4e8b-8d98-4d7e1926c904'
   ON CONTRACT [//Adventure-Works.com/Expenses/ExpenseSubmission] ;

BEGIN DIALOG CONVERSATION @current
   FROM SERVICE [//Adventure-Works.com/ExpenseClient]
   TO SERVICE '//Adventure-Works.com/Expenses', 'CURRENT DATABASE'
   ON CONTRACT [//Adventure-Works.com/Expenses/ExpenseSubmission]
   WITH ENCRYPTION = OFF;

BEGIN DIALOG CONVERSATION @none
   FROM SERVICE [//Adventure-Works.com/ExpenseClient]
   TO SERVICE '//Adventure-Works.com/Expenses'
   ON CONTRACT [//Adventure-Works.com/Expenses/ExpenseSubmission]
   WITH ENCRYPTION = OFF;

SELECT CASE conversation_handle WHEN @dialog_handle THEN 'guid'
                                WHEN @current THEN 'current database' ELSE 'none' END AS dialog,
       state, CASE WHEN far_broker_instance = @guid THEN 'this database''s'
                   ELSE far_broker_instance END AS far_broker_instance,
       CASE WHEN far_broker_instance = @guid THEN 1 ELSE 0 END AS is_this_database
FROM sys.conversation_endpoints ORDER BY dialog;

SEND ON CONVERSATION @current MESSAGE TYPE [//Adventure-Works.com/Expenses/SubmitExpense] (N'<e/>');
SEND ON CONVERSATION @none MESSAGE TYPE [//Adventure-Works.com/Expenses/SubmitExpense] (N'<e/>');

-- Every endpoint of the two delivered dialogs now names this database's broker.
SELECT is_initiator, COUNT(*) AS endpoints,
       SUM(CASE WHEN far_broker_instance = @guid THEN 1 ELSE 0 END) AS this_database
FROM sys.conversation_endpoints WHERE conversation_handle <> @dialog_handle
GROUP BY is_initiator ORDER BY is_initiator;
GO
