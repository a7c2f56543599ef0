-- COLUMNS_UPDATED(): one bit per column of the trigger's table (byte 1 holds columns 1-8,
-- column 1 in its lowest bit), set for the columns the statement wrote; all of them on INSERT.
CREATE TABLE dbo.wide (c1 int, c2 int, c3 int, c4 int, c5 int, c6 int, c7 int, c8 int, c9 int)
GO
CREATE TRIGGER wide_audit ON dbo.wide AFTER INSERT, UPDATE
AS
BEGIN
    SELECT COLUMNS_UPDATED() AS cols;
    IF SUBSTRING(COLUMNS_UPDATED(), 1, 1) = POWER(2, 3 - 1) + POWER(2, 5 - 1)
        PRINT 'c3 and c5 changed';
    IF UPDATE(c9) PRINT 'c9 changed';
END
GO
INSERT dbo.wide (c1) VALUES (1)
GO
UPDATE dbo.wide SET c3 = 3, c5 = 5
GO
UPDATE dbo.wide SET c9 = 9
GO
-- Outside a trigger there is no statement to ask about.
SELECT COLUMNS_UPDATED() AS outside
GO
