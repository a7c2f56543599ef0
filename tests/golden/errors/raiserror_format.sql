RAISERROR('%d items', 10, 1, 42)
RAISERROR('[%5d]', 10, 1, 42)
RAISERROR('[%-5d]', 10, 1, 42)
RAISERROR('[%05d]', 10, 1, 42)
RAISERROR('[%x] [%X] [%o]', 10, 1, 255, 255, 8)
RAISERROR('[%u]', 10, 1, -1)
RAISERROR('[%+d] [%i]', 10, 1, 5, -5)
RAISERROR(N'<<%7.3s>>', 10, 1, N'abcde')
RAISERROR(N'<<%*.*s>>', 10, 1, 7, 3, N'abcde')
RAISERROR('[%s]', 10, 1, NULL)
RAISERROR('100%% sure', 10, 1)
RAISERROR('Error %s at %d', 16, 2, 'X', 7)
PRINT @@ERROR
RAISERROR('with seterror', 10, 1) WITH SETERROR
PRINT @@ERROR
RAISERROR('no seterror', 10, 1) WITH NOWAIT
PRINT @@ERROR
DECLARE @msg nvarchar(100) = N'variable message %s'
RAISERROR(@msg, 11, 5, N'arg')
