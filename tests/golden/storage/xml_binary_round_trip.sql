-- xml -> varbinary -> xml inside storage queries: xml converts to UTF-16LE after a byte
-- order mark, and binary reads back as SQL Server's XML parser reads bytes (a UTF-16 or
-- UTF-8 byte order mark, UTF-16 without one, else UTF-8).
SET NOCOUNT ON
CREATE TABLE dbo.docs (id int PRIMARY KEY, doc xml, bin varbinary(max))
INSERT INTO dbo.docs VALUES
  (1, N'<a>é €</a>', 0xFFFE3C0061003E00E9002000AC203C002F0061003E00),
  (2, N'<b x="1">2</b>', 0xEFBBBF3C623EC3A93C2F623E),
  (3, NULL, CAST(N'<c>ü</c>' AS varbinary(max))),
  (4, N'<d>4</d>', CAST('<d>ok</d>' AS varbinary(max)))
GO
SELECT id, CAST(doc AS varbinary(max)) AS bytes FROM dbo.docs ORDER BY id
SELECT id, CAST(CAST(doc AS varbinary(max)) AS xml) AS round_trip FROM dbo.docs ORDER BY id
SELECT id, CAST(bin AS xml) AS from_bytes FROM dbo.docs ORDER BY id
SELECT id FROM dbo.docs
WHERE CAST(CAST(doc AS varbinary(max)) AS xml).value('(/a)[1]', 'nvarchar(10)') = N'é €'
GO
DECLARE @x xml = N'<redirect><toServiceName>//ddr/Sales/€</toServiceName></redirect>';
SELECT CAST(CAST(@x AS varbinary(max)) AS xml) AS variable_round_trip
SELECT id, CAST(CAST(@x AS varbinary(max)) AS xml).value('(/redirect/toServiceName)[1]',
                                                          'nvarchar(30)') AS service
FROM dbo.docs WHERE id = 1
GO
