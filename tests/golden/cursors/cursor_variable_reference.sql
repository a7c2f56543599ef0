-- SET @cursor_variable = cursor_name: the variable refers to the same cursor; deallocating
-- one reference leaves the cursor to the other (DECLARE @local_variable, cursor variables)
CREATE TABLE dbo.nums (n int)
INSERT INTO dbo.nums VALUES (1), (2), (3)
DECLARE named_cur CURSOR GLOBAL SCROLL FOR SELECT n FROM dbo.nums ORDER BY n
OPEN named_cur
DECLARE @ref1 CURSOR
SET @ref1 = named_cur
FETCH NEXT FROM @ref1
DEALLOCATE @ref1
FETCH NEXT FROM named_cur
DECLARE @ref2 CURSOR
SET @ref2 = named_cur
DEALLOCATE named_cur
FETCH NEXT FROM @ref2
SELECT CURSOR_STATUS('global', 'named_cur') AS name_status, CURSOR_STATUS('variable', '@ref2') AS var_status
-- one variable assigned from another
DECLARE @ref3 CURSOR
SET @ref3 = @ref2
FETCH FIRST FROM @ref3
DEALLOCATE @ref2
DEALLOCATE @ref3
DECLARE @ref4 CURSOR
SET @ref4 = no_such_cursor
