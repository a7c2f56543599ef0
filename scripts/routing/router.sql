/* The router's instance of the three-broker demo (three_brokers.py): database DDRRouter
   with seed 004's forwarding routing service (routing_service.sql), the client's service
   [//ddr/Client], and a route to each partition: //ddr/Sales/East at 127.0.0.1:$(east_port),
   //ddr/Sales/West at 127.0.0.1:$(west_port). Run endpoint.sql and trust.sql (once per
   partition) on the same instance too. Variables: east_port, west_port. */

CREATE DATABASE DDRRouter;
GO
USE DDRRouter;
GO
:r sales_contract.sql
CREATE QUEUE ClientQueue;
CREATE SERVICE [//ddr/Client] ON QUEUE ClientQueue;
GO
:r routing_service.sql
-- The router supports the union of its targets' contracts (seed 004, assumption 1).
ALTER SERVICE [urn:rushi.desai.name/RoutingService] (ADD CONTRACT [//ddr/Sales]);
CREATE ROUTE ToEast WITH SERVICE_NAME = '//ddr/Sales/East',
    ADDRESS = 'TCP://127.0.0.1:$(east_port)';
CREATE ROUTE ToWest WITH SERVICE_NAME = '//ddr/Sales/West',
    ADDRESS = 'TCP://127.0.0.1:$(west_port)';
GO
