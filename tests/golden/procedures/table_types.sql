CREATE TYPE dbo.IdList AS TABLE (id int PRIMARY KEY, note varchar(10) NULL)
GO
CREATE PROCEDURE dbo.use_ids @ids dbo.IdList READONLY, @factor int = 1 AS
BEGIN
    SET NOCOUNT ON
    SELECT COUNT(*) AS n, SUM(id) * @factor AS total FROM @ids
END
GO
DECLARE @l dbo.IdList, @x int = 3
INSERT @l (id) VALUES (1), (2), (4)
EXEC dbo.use_ids @l
EXEC dbo.use_ids @ids = @l, @factor = @x
-- a table-valued parameter not passed is an empty table
EXEC dbo.use_ids
SELECT COUNT(*) AS still_there FROM @l
GO
CREATE PROCEDURE dbo.pass_on @ids dbo.IdList READONLY AS EXEC dbo.use_ids @ids, 10
GO
DECLARE @l IdList
INSERT @l VALUES (5, 'five')
EXEC dbo.pass_on @l
SELECT l.id, l.note FROM @l AS l
GO
CREATE TYPE dbo.IdList AS TABLE (x int)
GO
CREATE PROCEDURE dbo.bad @ids dbo.IdList AS SELECT 1
GO
CREATE PROCEDURE dbo.clear_ids @ids dbo.IdList READONLY AS
BEGIN
    DELETE @ids
END
GO
CREATE PROCEDURE dbo.copy_ids @ids dbo.IdList READONLY AS
BEGIN
    DECLARE @copy dbo.IdList
    INSERT @copy (id) SELECT id + 1 FROM @ids
    SELECT id FROM @copy
END
GO
DECLARE @l dbo.IdList
INSERT @l (id) VALUES (1)
EXEC dbo.copy_ids @l
GO
DROP PROCEDURE dbo.use_ids, dbo.pass_on, dbo.copy_ids
DROP TYPE dbo.IdList
DROP TYPE IF EXISTS dbo.IdList
PRINT 'dropped'
