CREATE PROCEDURE dbo.p1 @a int, @d datetime = NULL, @t tinyint = 0, @n decimal(5,2) = 0 AS SELECT @a AS a
GO
EXEC dbo.p1 'x'
GO
DECLARE @v nvarchar(10) = N'abc'
EXEC dbo.p1 @v
PRINT 'next statement runs'
GO
EXEC dbo.p1 1, 'notadate'
GO
EXEC dbo.p1 1, @t = 300
GO
EXEC dbo.p1 1, @n = 'q'
GO
BEGIN TRY
  EXEC dbo.p1 'x'
END TRY
BEGIN CATCH
  PRINT CONCAT(ERROR_NUMBER(), ' ', ERROR_PROCEDURE(), ' ', ERROR_LINE(), ' ', ERROR_MESSAGE())
END CATCH
EXEC dbo.p1 '12'
