-- Table variables take no part in transactions: ROLLBACK (whole or to a savepoint) leaves
-- their rows. Transaction and savepoint names are case-sensitive.
SET NOCOUNT ON
DECLARE @t TABLE (a int, b varchar(10))
CREATE TABLE real_t (a int)
BEGIN TRAN
INSERT @t VALUES (1, 'one')
INSERT real_t VALUES (1)
ROLLBACK
SELECT COUNT(*) AS tv_rows FROM @t
SELECT COUNT(*) AS real_rows FROM real_t
BEGIN TRAN
INSERT real_t VALUES (2)
DECLARE @inside TABLE (x int)
INSERT @inside VALUES (7)
SAVE TRAN sp
INSERT @t VALUES (2, 'two')
UPDATE @t SET b = UPPER(b)
INSERT real_t VALUES (3)
ROLLBACK TRAN sp
SELECT a, b FROM @t ORDER BY a
SELECT a FROM real_t
ROLLBACK
SELECT a, b FROM @t ORDER BY a
SELECT x FROM @inside
SELECT COUNT(*) AS real_rows FROM real_t
GO
SET NOCOUNT ON
BEGIN TRAN Outer1
SAVE TRAN Sp1
INSERT real_t VALUES (10)
ROLLBACK TRAN sp1
PRINT @@TRANCOUNT
ROLLBACK TRAN Sp1
SELECT COUNT(*) AS after_savepoint FROM real_t
ROLLBACK TRAN outer1
PRINT @@TRANCOUNT
ROLLBACK TRAN Outer1
PRINT @@TRANCOUNT
