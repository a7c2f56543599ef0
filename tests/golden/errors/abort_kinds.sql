DECLARE @i int
SET @i = 1 / 0
PRINT 'continues after a statement-terminating error'
SET @i = CAST('abc' AS int)
PRINT 'not printed: conversion errors abort the batch'
GO
PRINT 'batch 2'
PRINT @undeclared
GO
PRINT 'batch 3'
USE no_such_database
PRINT DB_NAME()
