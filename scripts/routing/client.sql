/* The client of the three-broker demo (three_brokers.py), on the router's instance in
   DDRRouter: $(queries) queries, each on its own dialog to the routing service, alternately
   for East and West (query n names //ddr/Sales/East when n is odd); the router forwards each
   to the partition its body names, over TCP. Shows which partition answered each query,
   then ends the dialogs and waits (at most 30 s each) for the EndDialogs to come back
   through the router. Variable: queries. */

USE DDRRouter;
GO
SET NOCOUNT ON;
CREATE TABLE asked (query_id int NOT NULL, region nvarchar(10) NOT NULL,
                    handle uniqueidentifier NOT NULL);
DECLARE @n int = 1, @h uniqueidentifier, @region nvarchar(10), @query nvarchar(200);
WHILE @n <= $(queries)
BEGIN
    SET @region = CASE @n % 2 WHEN 1 THEN N'East' ELSE N'West' END;
    SET @query = N'<message><toServiceName>//ddr/Sales/' + @region + N'</toServiceName><id>'
        + CAST(@n AS nvarchar(10)) + N'</id></message>';
    BEGIN DIALOG @h FROM SERVICE [//ddr/Client]
        TO SERVICE 'urn:rushi.desai.name/RoutingService' ON CONTRACT [//ddr/Sales]
        WITH ENCRYPTION = OFF;
    SEND ON CONVERSATION @h MESSAGE TYPE [//ddr/SalesQuery] (@query);
    INSERT INTO asked (query_id, region, handle) VALUES (@n, @region, @h);
    SET @n += 1;
END
GO

DECLARE @tries int = 0;
WHILE (SELECT COUNT(*) FROM ClientQueue) < $(queries) AND @tries < 300
BEGIN
    WAITFOR DELAY '00:00:00.100';
    SET @tries += 1;
END
SELECT a.query_id, a.region AS asked,
       CAST(q.message_body AS xml).value('(/reply/@region)[1]', 'nvarchar(10)') AS answered_by,
       CAST(q.message_body AS xml).value('(/reply/@total)[1]', 'nvarchar(30)') AS total
FROM asked AS a LEFT JOIN ClientQueue AS q ON q.conversation_handle = a.handle
ORDER BY a.query_id;
GO

PRINT '== the client ends its dialogs: the router ends the forwarded ones';
DECLARE @n int = 1, @handle uniqueidentifier;
WHILE @n <= $(queries)
BEGIN
    SELECT @handle = handle FROM asked WHERE query_id = @n;
    END CONVERSATION @handle;
    SET @n += 1;
END
GO
-- Done when every endpoint here is closed: the router's outbound ones close only when the
-- partition's EndDialog has come back over TCP.
DECLARE @tries int = 0;
WHILE EXISTS (SELECT * FROM sys.conversation_endpoints WHERE state_desc <> N'CLOSED')
      AND @tries < 300
BEGIN
    WAITFOR DELAY '00:00:00.100';
    SET @tries += 1;
END
SELECT (SELECT COUNT(*) FROM sys.conversation_endpoints WHERE state_desc <> N'CLOSED')
           AS dialogs_open,
       (SELECT COUNT(*) FROM resolved_conversations) AS mappings_left;
GO
