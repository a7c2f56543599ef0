-- CREATE / DROP EVENT NOTIFICATION on a queue, sys.event_notifications, and external
-- activation: a message on the queue makes its monitor send the notification's service an
-- EventNotification message whose body is the QUEUE_ACTIVATION EVENT_INSTANCE document
-- (CREATE EVENT NOTIFICATION page, examples A and C; the queue form as external activators
-- use it).
CREATE DATABASE AdventureWorks2022;
GO
USE AdventureWorks2022;
--Create a queue to receive messages.
CREATE QUEUE NotifyQueue ;
GO
--Create a service on the queue that references
--the event notifications contract.
CREATE SERVICE NotifyService
ON QUEUE NotifyQueue
([http://schemas.microsoft.com/SQL/Notifications/PostEventNotification]);
GO
--Create a route on the service to define the address
--to which Service Broker sends messages for the service.
CREATE ROUTE NotifyRoute
WITH SERVICE_NAME = 'NotifyService',
ADDRESS = 'LOCAL';
GO
-- The application's queue, watched by an external program.
CREATE QUEUE ExpenseQueue;
CREATE SERVICE [//Adventure-Works.com/Expenses] ON QUEUE ExpenseQueue ([DEFAULT]);
GO
CREATE EVENT NOTIFICATION Notify_ExpenseQueue
ON QUEUE ExpenseQueue
FOR QUEUE_ACTIVATION
TO SERVICE 'NotifyService', 'current database' ;
GO
SELECT name, parent_class, parent_class_desc, OBJECT_NAME(parent_id) AS parent,
       service_name, broker_instance
FROM sys.event_notifications WHERE name = 'Notify_ExpenseQueue';
GO
-- A message arrives on the watched queue: the notification follows.
DECLARE @h uniqueidentifier;
BEGIN DIALOG @h FROM SERVICE [//Adventure-Works.com/Expenses]
    TO SERVICE '//Adventure-Works.com/Expenses' WITH ENCRYPTION = OFF;
SEND ON CONVERSATION @h (N'expense report');
GO
DECLARE @type sysname, @contract sysname, @service sysname, @body xml;
WAITFOR (RECEIVE TOP (1) @type = message_type_name, @contract = service_contract_name,
                 @service = service_name, @body = CAST(message_body AS xml)
         FROM NotifyQueue), TIMEOUT 10000;
SELECT @type AS message_type_name, @contract AS service_contract_name, @service AS service_name;
SELECT @body.value('(/EVENT_INSTANCE/EventType)[1]', 'sysname') AS EventType,
       @body.value('(/EVENT_INSTANCE/DatabaseName)[1]', 'sysname') AS DatabaseName,
       @body.value('(/EVENT_INSTANCE/SchemaName)[1]', 'sysname') AS SchemaName,
       @body.value('(/EVENT_INSTANCE/ObjectName)[1]', 'sysname') AS ObjectName,
       @body.value('(/EVENT_INSTANCE/ObjectType)[1]', 'sysname') AS ObjectType,
       @body.value('(/EVENT_INSTANCE/LoginName)[1]', 'sysname') AS LoginName,
       @body.value('(/EVENT_INSTANCE/UserName)[1]', 'sysname') AS UserName,
       CASE WHEN @body.value('(/EVENT_INSTANCE/ServerName)[1]', 'sysname') = @@SERVERNAME
            THEN 1 ELSE 0 END AS is_this_server,
       CASE WHEN @body.exist('/EVENT_INSTANCE/PostTime') = 1
             AND @body.exist('/EVENT_INSTANCE/SPID') = 1 THEN 1 ELSE 0 END AS has_time_and_spid;
-- The external program then reads the queue it was told about.
RECEIVE CAST(message_body AS nvarchar(100)) AS body FROM ExpenseQueue;
GO
-- Stored procedure activation and QUEUE_ACTIVATION notifications exclude each other.
CREATE PROCEDURE dbo.ExpenseProcedure AS RETURN;
GO
ALTER QUEUE ExpenseQueue WITH ACTIVATION (STATUS = ON,
    PROCEDURE_NAME = dbo.ExpenseProcedure, MAX_QUEUE_READERS = 1, EXECUTE AS OWNER);
GO
-- Only queue events on a queue (Msg 1098; a name that is no event type: Msg 1084); the
-- notification's name is unique on its queue.
CREATE EVENT NOTIFICATION Notify_Tables ON QUEUE ExpenseQueue FOR CREATE_TABLE
TO SERVICE 'NotifyService', 'current database';
GO
CREATE EVENT NOTIFICATION Notify_Tables ON QUEUE ExpenseQueue FOR NOT_AN_EVENT
TO SERVICE 'NotifyService', 'current database';
GO
CREATE EVENT NOTIFICATION Notify_ExpenseQueue ON QUEUE ExpenseQueue FOR QUEUE_ACTIVATION
TO SERVICE 'NotifyService', 'current database';
GO
DROP EVENT NOTIFICATION Notify_ExpenseQueue ON QUEUE ExpenseQueue;
SELECT COUNT(*) AS notifications FROM sys.event_notifications;
DROP EVENT NOTIFICATION Notify_ExpenseQueue ON QUEUE ExpenseQueue;
GO
-- Without the notification the queue may have its procedure.
ALTER QUEUE ExpenseQueue WITH ACTIVATION (STATUS = ON,
    PROCEDURE_NAME = dbo.ExpenseProcedure, MAX_QUEUE_READERS = 1, EXECUTE AS OWNER);
CREATE EVENT NOTIFICATION Notify_ExpenseQueue ON QUEUE ExpenseQueue FOR QUEUE_ACTIVATION
TO SERVICE 'NotifyService', 'current database';
GO
-- Trace events (Object_Created) are not raised by this engine.
CREATE EVENT NOTIFICATION log_ddl1
ON SERVER
FOR Object_Created
TO SERVICE 'NotifyService',
    '8140a771-3c4b-4479-8ac0-81008ab17984' ;
GO
