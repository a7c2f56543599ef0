/* Data-dependent routing demo (seed 004) in one instance: sales data partitioned by region,
   a service per partition, and in front of them the forwarding routing service and the
   redirect service of this folder.
       tsqlbroker run scripts/routing/demo.sql          (--url URL for another store)
   Three clients ask through the router (East, West, and a West query the partition refuses:
   its Error comes back wrapped), one asks the redirect service and then West directly.
   Every service here is in one database, so the AutoCreatedLocal route reaches them; with
   the partitions on other instances the router's database needs a route to each
   (docs/transport.md). */

CREATE DATABASE DDRDemo;
GO
USE DDRDemo;
GO
:r sales.sql
INSERT INTO sales (region, amount) VALUES (N'East', 100), (N'East', 50), (N'West', 70);
GO
CREATE PROCEDURE dbo.serve_east AS EXEC dbo.serve_region N'East';
GO
CREATE PROCEDURE dbo.serve_west AS EXEC dbo.serve_region N'West';
GO
CREATE QUEUE EastQueue WITH STATUS = ON, ACTIVATION (STATUS = ON,
    PROCEDURE_NAME = dbo.serve_east, MAX_QUEUE_READERS = 1, EXECUTE AS OWNER);
CREATE SERVICE [//ddr/Sales/East] ON QUEUE EastQueue ([//ddr/Sales]);
CREATE QUEUE WestQueue WITH STATUS = ON, ACTIVATION (STATUS = ON,
    PROCEDURE_NAME = dbo.serve_west, MAX_QUEUE_READERS = 1, EXECUTE AS OWNER);
CREATE SERVICE [//ddr/Sales/West] ON QUEUE WestQueue ([//ddr/Sales]);
CREATE QUEUE ClientQueue;
CREATE SERVICE [//ddr/Client] ON QUEUE ClientQueue;
-- The partitions may live on other instances, reached by unsecured dialogs, which act as
-- public there (SQL Server's rule; its tutorials grant this).
GRANT SEND ON SERVICE::[//ddr/Sales/East] TO PUBLIC;
GRANT SEND ON SERVICE::[//ddr/Sales/West] TO PUBLIC;
GO

:r routing_service.sql
:r redirect_service.sql
-- The router supports the union of its targets' contracts (seed 004, assumption 1).
ALTER SERVICE [urn:rushi.desai.name/RoutingService] (ADD CONTRACT [//ddr/Sales]);
GO

PRINT '== three queries through the forwarding router';
DECLARE @east uniqueidentifier, @west uniqueidentifier, @bad uniqueidentifier;
BEGIN DIALOG @east FROM SERVICE [//ddr/Client]
    TO SERVICE 'urn:rushi.desai.name/RoutingService' ON CONTRACT [//ddr/Sales]
    WITH ENCRYPTION = OFF;
SEND ON CONVERSATION @east MESSAGE TYPE [//ddr/SalesQuery]
    (N'<message><toServiceName>//ddr/Sales/East</toServiceName></message>');
BEGIN DIALOG @west FROM SERVICE [//ddr/Client]
    TO SERVICE 'urn:rushi.desai.name/RoutingService' ON CONTRACT [//ddr/Sales]
    WITH ENCRYPTION = OFF;
SEND ON CONVERSATION @west MESSAGE TYPE [//ddr/SalesQuery]
    (N'<message><toServiceName>//ddr/Sales/West</toServiceName></message>');
BEGIN DIALOG @bad FROM SERVICE [//ddr/Client]
    TO SERVICE 'urn:rushi.desai.name/RoutingService' ON CONTRACT [//ddr/Sales]
    WITH ENCRYPTION = OFF;
SEND ON CONVERSATION @bad MESSAGE TYPE [//ddr/SalesQuery]
    (N'<message><toServiceName>//ddr/Sales/West</toServiceName><fail/></message>');
GO

-- Wait (at most 30 s) for the two replies and the Error.
DECLARE @tries int = 0;
WHILE (SELECT COUNT(*) FROM ClientQueue) < 3 AND @tries < 300
BEGIN
    WAITFOR DELAY '00:00:00.100';
    SET @tries += 1;
END
WITH XMLNAMESPACES ('http://schemas.microsoft.com/SQL/ServiceBroker/Error' AS e)
SELECT kind, region, answer
FROM (SELECT CASE message_type_name WHEN N'//ddr/SalesReply' THEN N'reply' ELSE N'error'
             END AS kind,
             body.value('(/reply/@region)[1]', 'nvarchar(10)') AS region,
             ISNULL(body.value('(/reply/@total)[1]', 'nvarchar(30)'),
                    body.value('(/e:Error/e:Description)[1]', 'nvarchar(200)')) AS answer
      FROM (SELECT message_type_name, CAST(message_body AS xml) AS body
            FROM ClientQueue) AS received) AS answers
ORDER BY kind, region;
GO

PRINT '== the client ends its dialogs: the router ends the forwarded ones';
DECLARE @handle uniqueidentifier;
DECLARE dialogs CURSOR LOCAL FOR
    SELECT DISTINCT conversation_handle FROM ClientQueue;
OPEN dialogs;
FETCH NEXT FROM dialogs INTO @handle;
WHILE @@FETCH_STATUS = 0
BEGIN
    END CONVERSATION @handle;
    FETCH NEXT FROM dialogs INTO @handle;
END
CLOSE dialogs;
DEALLOCATE dialogs;
GO
DECLARE @tries int = 0;
WHILE EXISTS (SELECT * FROM resolved_conversations) AND @tries < 300
BEGIN
    WAITFOR DELAY '00:00:00.100';
    SET @tries += 1;
END
SELECT COUNT(*) AS mappings_left FROM resolved_conversations;
GO

PRINT '== the redirect variant: ask where West is, then talk to it directly';
DECLARE @ask uniqueidentifier, @answer xml, @target nvarchar(256), @direct uniqueidentifier,
        @tries int = 0;
BEGIN DIALOG @ask FROM SERVICE [//ddr/Client]
    TO SERVICE 'urn:rushi.desai.name/RedirectService'
    ON CONTRACT [urn:rushi.desai.name/RedirectContract] WITH ENCRYPTION = OFF;
SEND ON CONVERSATION @ask MESSAGE TYPE [urn:rushi.desai.name/RedirectRequest]
    (N'<message><toServiceName>//ddr/Sales/West</toServiceName></message>');
WHILE NOT EXISTS (SELECT * FROM ClientQueue WHERE conversation_handle = @ask
                  AND message_type_name = N'urn:rushi.desai.name/Redirect') AND @tries < 300
BEGIN
    WAITFOR DELAY '00:00:00.100';
    SET @tries += 1;
END
SELECT @answer = CAST(message_body AS xml) FROM ClientQueue
    WHERE conversation_handle = @ask AND message_type_name = N'urn:rushi.desai.name/Redirect';
END CONVERSATION @ask;
SET @target = @answer.value('(/redirect/toServiceName)[1]', 'nvarchar(256)');
SELECT @target AS redirected_to;
BEGIN DIALOG @direct FROM SERVICE [//ddr/Client] TO SERVICE @target
    ON CONTRACT [//ddr/Sales] WITH ENCRYPTION = OFF;
SEND ON CONVERSATION @direct MESSAGE TYPE [//ddr/SalesQuery] (N'<message/>');
SET @tries = 0;
WHILE NOT EXISTS (SELECT * FROM ClientQueue WHERE conversation_handle = @direct)
      AND @tries < 300
BEGIN
    WAITFOR DELAY '00:00:00.100';
    SET @tries += 1;
END
SELECT CAST(message_body AS xml).value('(/reply/@region)[1]', 'nvarchar(10)') AS region,
       CAST(message_body AS xml).value('(/reply/@total)[1]', 'nvarchar(30)') AS total
FROM ClientQueue WHERE conversation_handle = @direct;
END CONVERSATION @direct;
GO
