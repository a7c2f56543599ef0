-- SQL Server's default collation in storage queries: case-insensitive, accent-sensitive,
-- trailing spaces ignored in comparisons (SQLite: COLLATE TSQL_CI; PostgreSQL: tsqlb_ci).
SET NOCOUNT ON
CREATE TABLE dbo.words (id int PRIMARY KEY, w varchar(20), nw nvarchar(20))
INSERT INTO dbo.words VALUES (1, 'apple', N'Zeta'), (2, 'Banana', N'alpha'),
                             (3, 'APPLE', N'ALPHA'), (4, 'cherry ', N'étoile'),
                             (5, 'banana', N'Eagle'), (6, 'a_b', N'fox'), (7, NULL, N'Fox')
GO
-- ORDER BY ignores case (ties broken by id)
SELECT id, w FROM dbo.words ORDER BY w, id
SELECT id, nw FROM dbo.words ORDER BY nw DESC, id
GO
-- GROUP BY / DISTINCT / COUNT(DISTINCT) fold case
SELECT UPPER(w) AS w, COUNT(*) AS n FROM dbo.words GROUP BY w ORDER BY w
SELECT COUNT(DISTINCT w) AS words, COUNT(DISTINCT nw) AS nwords FROM dbo.words
SELECT COUNT(*) AS n FROM (SELECT DISTINCT nw FROM dbo.words) AS d
GO
-- = and IN ignore case and trailing spaces; accents still count
SELECT id FROM dbo.words WHERE w = 'APPLE' ORDER BY id
SELECT id FROM dbo.words WHERE w = 'cherry' ORDER BY id
SELECT id FROM dbo.words WHERE w IN ('BANANA', 'x') ORDER BY id
SELECT id FROM dbo.words WHERE nw = N'ETOILE' ORDER BY id
SELECT id FROM dbo.words WHERE nw = N'ÉTOILE' ORDER BY id
GO
-- joins compare the same way
SELECT a.id AS a, b.id AS b FROM dbo.words a JOIN dbo.words b ON a.w = b.w AND a.id < b.id
ORDER BY a.id, b.id
GO
-- LIKE: case-insensitive, T-SQL wildcards and character classes
SELECT id FROM dbo.words WHERE w LIKE 'a%' ORDER BY id
SELECT id FROM dbo.words WHERE w LIKE '[b-c]%' ORDER BY id
SELECT id FROM dbo.words WHERE w LIKE '%[_]%' ORDER BY id
SELECT id FROM dbo.words WHERE w LIKE 'cherry' ORDER BY id
SELECT id FROM dbo.words WHERE w NOT LIKE '%a%' ORDER BY id
SELECT id FROM dbo.words WHERE nw LIKE N'F_X' ORDER BY id
GO
-- CHARINDEX and REPLACE search case-insensitively
SELECT id, CHARINDEX('P', w) AS p, REPLACE(w, 'AN', '-') AS r FROM dbo.words
WHERE id IN (1, 2, 5) ORDER BY id
GO
-- a key on a character column: 'abc' and 'ABC' are the same key
CREATE TABLE dbo.codes (code varchar(10) PRIMARY KEY)
INSERT INTO dbo.codes VALUES ('abc')
GO
INSERT INTO dbo.codes VALUES ('ABC')
GO
SELECT code FROM dbo.codes WHERE code = 'Abc'
GO
-- computed strings compare with the same collation
SELECT id FROM dbo.words WHERE UPPER(w) = 'apple' ORDER BY id
SELECT id FROM dbo.words WHERE LEFT(w, 2) IN ('AP', 'ch') ORDER BY id
SELECT id FROM dbo.words WHERE w + 'x' = 'BANANAX ' ORDER BY id
DECLARE @fruit varchar(10) = 'Cherry'
SELECT id FROM dbo.words WHERE @fruit = RTRIM(w) AND 'b' > 'A' ORDER BY id
GO
-- computed strings group, deduplicate and union case-insensitively too
SELECT COUNT(*) AS groups FROM (SELECT LEFT(w, 1) AS l FROM dbo.words GROUP BY LEFT(w, 1)) AS g
SELECT COUNT(*) AS firsts FROM (SELECT DISTINCT LEFT(w, 2) AS l FROM dbo.words) AS d
SELECT COUNT(DISTINCT UPPER(nw)) AS upper_names, COUNT(DISTINCT LOWER(nw)) AS lower_names
FROM dbo.words
SELECT COUNT(*) AS u FROM (SELECT LEFT(w, 1) AS l FROM dbo.words WHERE id = 1
                           UNION SELECT LEFT(w, 1) FROM dbo.words WHERE id = 3) AS x
SELECT COUNT(DISTINCT CAST(w AS varchar(3))) AS cast_prefixes,
       COUNT(DISTINCT CAST(CAST(w AS varbinary(20)) AS varchar(20))) AS from_bytes
FROM dbo.words
