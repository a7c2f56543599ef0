-- An error inside a trigger undoes the statement that fired it, as on SQL Server: a trigger
-- runs with XACT_ABORT ON, so a run-time error or THROW rolls the transaction back and ends
-- the batch; under the caller's TRY the transaction is doomed (XACT_STATE() = -1); ROLLBACK in
-- a trigger ends the batch with Msg 3609; RAISERROR is only a message (it ignores XACT_ABORT).
CREATE TABLE dbo.t (a int)
CREATE TABLE dbo.log (a int)
GO
CREATE TRIGGER dbo.t_ins ON dbo.t AFTER INSERT AS
BEGIN
    INSERT dbo.log SELECT a FROM inserted
    IF EXISTS (SELECT 1 FROM inserted WHERE a = 0) SELECT 1 / 0 AS boom
END
GO
-- Autocommit: the row and the trigger's own write are gone; the batch ends.
INSERT dbo.t VALUES (0)
SELECT 'not reached' AS after_insert
GO
SELECT (SELECT COUNT(*) FROM dbo.t) AS t_rows, (SELECT COUNT(*) FROM dbo.log) AS log_rows,
       @@TRANCOUNT AS trancount
GO
-- An outer transaction is rolled back whole, earlier work too.
BEGIN TRANSACTION
INSERT dbo.t VALUES (1)
INSERT dbo.t VALUES (0)
SELECT 'not reached' AS after_insert
GO
SELECT (SELECT COUNT(*) FROM dbo.t) AS t_rows, @@TRANCOUNT AS trancount
GO
-- SET XACT_ABORT OFF in the caller does not matter; TRY in the caller gets the error with
-- a doomed transaction, also without BEGIN TRANSACTION (the statement's own transaction).
SET XACT_ABORT OFF
BEGIN TRY
    INSERT dbo.t VALUES (0)
    SELECT 'not reached' AS after_insert
END TRY
BEGIN CATCH
    SELECT ERROR_NUMBER() AS number, ERROR_PROCEDURE() AS proc_name, XACT_STATE() AS xact_state,
           @@TRANCOUNT AS trancount
    IF XACT_STATE() <> 0 ROLLBACK
END CATCH
SELECT (SELECT COUNT(*) FROM dbo.t) AS t_rows, @@TRANCOUNT AS trancount
GO
BEGIN TRANSACTION
BEGIN TRY
    INSERT dbo.t VALUES (2)
    INSERT dbo.t VALUES (0)
END TRY
BEGIN CATCH
    SELECT ERROR_NUMBER() AS number, XACT_STATE() AS xact_state, @@TRANCOUNT AS trancount
    ROLLBACK
END CATCH
SELECT (SELECT COUNT(*) FROM dbo.t) AS t_rows, @@TRANCOUNT AS trancount
GO
-- A doomed transaction left open at the end of the batch: Msg 3998.
BEGIN TRY
    INSERT dbo.t VALUES (0)
END TRY
BEGIN CATCH
    SELECT XACT_STATE() AS xact_state
END CATCH
GO
SELECT (SELECT COUNT(*) FROM dbo.t) AS t_rows, @@TRANCOUNT AS trancount
GO
-- UPDATE and DELETE, THROW in an AFTER trigger.
INSERT dbo.t VALUES (5)
GO
CREATE TRIGGER dbo.t_upd ON dbo.t AFTER UPDATE, DELETE AS
    THROW 50001, 'no changes to t', 1
GO
UPDATE dbo.t SET a = 6
GO
DELETE dbo.t
GO
SELECT a FROM dbo.t
GO
DROP TRIGGER dbo.t_upd
GO
-- RAISERROR of severity 16 or 10 is a message: the statement stays, the batch goes on.
CREATE TRIGGER dbo.t_del ON dbo.t AFTER DELETE AS
BEGIN
    RAISERROR ('warned', 16, 1)
    RAISERROR ('informed', 10, 1)
END
GO
DELETE dbo.t
SELECT COUNT(*) AS t_rows, @@TRANCOUNT AS trancount FROM dbo.t
GO
DROP TRIGGER dbo.t_del
GO
-- ROLLBACK in a trigger: Msg 3609 to the caller, the batch ends; in TRY, CATCH gets 3609.
CREATE TRIGGER dbo.t_del2 ON dbo.t AFTER DELETE AS ROLLBACK
GO
INSERT dbo.t VALUES (7)
GO
DELETE dbo.t
SELECT 'not reached' AS after_delete
GO
BEGIN TRY
    DELETE dbo.t
END TRY
BEGIN CATCH
    SELECT ERROR_NUMBER() AS number, XACT_STATE() AS xact_state, @@TRANCOUNT AS trancount
END CATCH
SELECT COUNT(*) AS t_rows FROM dbo.t
GO
-- INSTEAD OF: the error undoes the trigger's own writes.
CREATE TABLE dbo.i (a int)
GO
CREATE TRIGGER dbo.i_ins ON dbo.i INSTEAD OF INSERT AS
BEGIN
    INSERT dbo.i SELECT a * 10 FROM inserted
    IF EXISTS (SELECT 1 FROM inserted WHERE a < 0) THROW 50002, 'negative', 1
END
GO
INSERT dbo.i VALUES (1)
INSERT dbo.i VALUES (-1)
GO
SELECT a FROM dbo.i
GO
-- Nested: an error two triggers deep undoes both levels and the firing statement.
CREATE TABLE dbo.n1 (a int)
CREATE TABLE dbo.n2 (a int)
CREATE TABLE dbo.n3 (a int)
GO
CREATE TRIGGER dbo.n1_ins ON dbo.n1 AFTER INSERT AS INSERT dbo.n2 SELECT a FROM inserted
GO
CREATE TRIGGER dbo.n2_ins ON dbo.n2 AFTER INSERT AS
BEGIN
    INSERT dbo.n3 SELECT a FROM inserted
    SELECT CAST('x' AS int) AS boom
END
GO
BEGIN TRY
    INSERT dbo.n1 VALUES (1)
END TRY
BEGIN CATCH
    SELECT ERROR_NUMBER() AS number, ERROR_PROCEDURE() AS proc_name, XACT_STATE() AS xact_state,
           @@TRANCOUNT AS trancount
    ROLLBACK
END CATCH
SELECT (SELECT COUNT(*) FROM dbo.n1) AS n1, (SELECT COUNT(*) FROM dbo.n2) AS n2,
       (SELECT COUNT(*) FROM dbo.n3) AS n3, @@TRANCOUNT AS trancount
GO
-- The trigger's own CATCH handles the error: the transaction is doomed there; when the
-- trigger returns it is rolled back and the batch ends with Msg 3616.
CREATE TABLE dbo.c (a int)
GO
CREATE TRIGGER dbo.c_ins ON dbo.c AFTER INSERT AS
BEGIN TRY
    SELECT 1 / 0 AS boom
END TRY
BEGIN CATCH
    SELECT ERROR_NUMBER() AS number, XACT_STATE() AS xact_state, @@TRANCOUNT AS trancount
END CATCH
GO
INSERT dbo.c VALUES (1)
SELECT 'not reached' AS after_insert
GO
BEGIN TRY
    INSERT dbo.c VALUES (2)
END TRY
BEGIN CATCH
    SELECT ERROR_NUMBER() AS number, XACT_STATE() AS xact_state, @@TRANCOUNT AS trancount
END CATCH
SELECT COUNT(*) AS c_rows FROM dbo.c
GO
-- Fired from a procedure: the procedure and the batch end.
CREATE PROCEDURE dbo.add_t @a int AS
BEGIN
    INSERT dbo.t VALUES (@a)
    SELECT 'not reached' AS in_proc
END
GO
EXEC dbo.add_t 0
SELECT 'not reached' AS after_exec
GO
SELECT COUNT(*) AS t_rows, @@TRANCOUNT AS trancount FROM dbo.t
GO
