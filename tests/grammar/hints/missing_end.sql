DECLARE @i int = 0
WHILE @i < 10
BEGIN
    SET @i += 1
