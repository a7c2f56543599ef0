DECLARE @x int = 
