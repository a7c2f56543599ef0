/* One partition of the sales service on its own instance (three-broker demo,
   three_brokers.py): database DDRPartition with service [//ddr/Sales/$(region)] answering
   from the $(region) rows only, and a route back to the router's service at
   127.0.0.1:$(router_port) for its replies and EndDialogs. Run endpoint.sql and trust.sql
   on the same instance too. Variables: region, router_port. */

CREATE DATABASE DDRPartition;
GO
USE DDRPartition;
GO
:r sales.sql
INSERT INTO sales (region, amount)
    SELECT region, amount
    FROM (VALUES (N'East', 100), (N'East', 50), (N'West', 70)) AS data (region, amount)
    WHERE region = N'$(region)';
GO
CREATE PROCEDURE dbo.serve_partition AS EXEC dbo.serve_region N'$(region)';
GO
CREATE QUEUE [$(region)Queue] WITH STATUS = ON, ACTIVATION (STATUS = ON,
    PROCEDURE_NAME = dbo.serve_partition, MAX_QUEUE_READERS = 1, EXECUTE AS OWNER);
CREATE SERVICE [//ddr/Sales/$(region)] ON QUEUE [$(region)Queue] ([//ddr/Sales]);
-- The router's dialogs are unsecured: they act as public here (SQL Server's rule).
GRANT SEND ON SERVICE::[//ddr/Sales/$(region)] TO PUBLIC;
CREATE ROUTE ToRouter WITH SERVICE_NAME = 'urn:rushi.desai.name/RoutingService',
    ADDRESS = 'TCP://127.0.0.1:$(router_port)';
GO
