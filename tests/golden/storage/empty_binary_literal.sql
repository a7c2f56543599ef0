-- 0x alone is the empty binary literal, also inside queries the backend runs;
-- [0x] is a column of that name.
CREATE TABLE dbo.blobs (b varbinary(10) NULL, [0x] int NOT NULL)
INSERT dbo.blobs VALUES (0x, 1), (0x01, 2), (NULL, 3)
SELECT b, DATALENGTH(b) AS n, [0x] FROM dbo.blobs WHERE b = 0x
SELECT COUNT(*) AS longer FROM dbo.blobs WHERE b > 0x
UPDATE dbo.blobs SET b = 0x WHERE [0x] = 2
SELECT [0x], b FROM dbo.blobs ORDER BY [0x]
