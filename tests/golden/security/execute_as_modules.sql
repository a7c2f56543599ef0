-- EXECUTE AS inside a procedure or dynamic SQL ends when that module returns.
CREATE USER pu WITHOUT LOGIN
GO
CREATE PROCEDURE dbo.as_pu AS
BEGIN
    EXECUTE AS USER = 'pu'
    PRINT 'inside: ' + USER_NAME()
    EXEC dbo.show
END
GO
CREATE PROCEDURE dbo.show AS PRINT 'nested: ' + USER_NAME()
GO
-- Outside a module pu needs EXECUTE on dbo.show (inside dbo.as_pu the ownership chain
-- covers it): Msg 229 first, then granted.
EXECUTE AS USER = 'pu'
EXEC dbo.show
REVERT
GRANT EXECUTE ON dbo.show TO pu
EXEC dbo.as_pu
PRINT 'after: ' + USER_NAME()
EXEC dbo.show
EXEC ('EXECUTE AS USER = ''pu''; PRINT ''dynamic: '' + USER_NAME()')
PRINT 'after dynamic: ' + USER_NAME()
EXECUTE AS USER = 'pu'
EXEC dbo.show
REVERT
PRINT 'reverted: ' + USER_NAME()
