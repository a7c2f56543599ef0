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
EXEC dbo.as_pu
PRINT 'after: ' + USER_NAME()
EXEC dbo.show
EXEC ('EXECUTE AS USER = ''pu''; PRINT ''dynamic: '' + USER_NAME()')
PRINT 'after dynamic: ' + USER_NAME()
EXECUTE AS USER = 'pu'
EXEC dbo.show
REVERT
PRINT 'reverted: ' + USER_NAME()
