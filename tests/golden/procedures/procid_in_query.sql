-- @@PROCID in statements the engine runs (INSERT … VALUES, INSERT … SELECT, SELECT … FROM):
-- the id of the module the statement is in, 0 in a batch
CREATE TABLE dbo.proc_log (step int, module sysname NULL, same_id bit)
GO
CREATE PROCEDURE dbo.inner_step AS
    INSERT INTO dbo.proc_log (step, module, same_id)
    VALUES (2, OBJECT_NAME(@@PROCID), CASE WHEN @@PROCID = OBJECT_ID('dbo.inner_step') THEN 1 ELSE 0 END)
GO
CREATE PROCEDURE dbo.outer_step AS
BEGIN
    INSERT INTO dbo.proc_log (step, module, same_id) VALUES (1, OBJECT_NAME(@@PROCID), NULL)
    EXEC dbo.inner_step
    INSERT INTO dbo.proc_log (step, module, same_id)
    SELECT 3, OBJECT_NAME(@@PROCID), CASE WHEN @@PROCID = OBJECT_ID('dbo.outer_step') THEN 1 ELSE 0 END
    SELECT step, OBJECT_NAME(@@PROCID) AS reader FROM dbo.proc_log WHERE step = 1
END
GO
EXEC dbo.outer_step
INSERT INTO dbo.proc_log (step, module, same_id) VALUES (4, OBJECT_NAME(@@PROCID), CASE WHEN @@PROCID = 0 THEN 1 ELSE 0 END)
SELECT step, module, same_id FROM dbo.proc_log ORDER BY step
