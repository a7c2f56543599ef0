/* The sales services' message types and contract (seed 004's demo): every database that
   talks on the contract has them — the partitions' (sales.sql) and the router's (router.sql). */

CREATE MESSAGE TYPE [//ddr/SalesQuery] VALIDATION = WELL_FORMED_XML;
CREATE MESSAGE TYPE [//ddr/SalesReply] VALIDATION = WELL_FORMED_XML;
CREATE CONTRACT [//ddr/Sales] (
    [//ddr/SalesQuery] SENT BY INITIATOR,
    [//ddr/SalesReply] SENT BY TARGET);
