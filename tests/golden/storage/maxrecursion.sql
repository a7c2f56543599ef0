-- Recursive CTEs stop at OPTION (MAXRECURSION n), 100 by default, 0 for none (Msg 530).
SET NOCOUNT ON;
-- 101 rows are levels 0 to 100: allowed; one more level is not.
WITH r (n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r WHERE n < 101)
SELECT COUNT(*) AS levels_0_to_100 FROM r;
WITH r (n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r WHERE n < 102)
SELECT COUNT(*) AS one_more FROM r;
WITH r (n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r WHERE n < 150)
SELECT COUNT(*) AS within_200 FROM r OPTION (MAXRECURSION 200);
WITH r (n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r WHERE n < 150)
SELECT COUNT(*) AS beyond_10 FROM r OPTION (MAXRECURSION 10);
WITH r (n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r WHERE n < 1000)
SELECT MAX(n) AS unlimited FROM r OPTION (MAXRECURSION 0);
-- TOP stops reading before the limit is reached.
WITH r (n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r)
SELECT TOP (3) n FROM r;
GO
-- Column names from the anchor, an aliased self-reference, two anchors and two recursive
-- members, the CTE read twice.
CREATE TABLE emp (id int, boss int, name varchar(10));
INSERT INTO emp VALUES (1, NULL, 'ann'), (2, 1, 'bob'), (3, 1, 'cy'), (4, 3, 'di');
WITH tree AS (
    SELECT id, name, CAST(name AS varchar(100)) AS path FROM emp WHERE boss IS NULL
    UNION ALL
    SELECT e.id, e.name, CAST(t.path + '/' + e.name AS varchar(100))
    FROM emp AS e JOIN tree AS t ON e.boss = t.id)
SELECT a.path, b.name FROM tree AS a JOIN tree AS b ON a.id = b.id ORDER BY a.path;
WITH two (n, k) AS (
    SELECT 1, 'a' UNION ALL SELECT 100, 'b'
    UNION ALL SELECT n + CASE k WHEN 'a' THEN 1 ELSE 10 END, k FROM two
    WHERE k = 'a' AND n < 3 OR k = 'b' AND n < 120)
SELECT k, COUNT(*) AS c, MAX(n) AS top_n FROM two GROUP BY k ORDER BY k;
WITH s AS (SELECT * FROM emp WHERE id = 1
           UNION ALL SELECT e.* FROM emp AS e JOIN s ON e.boss = s.id)
SELECT * FROM s ORDER BY id;
GO
-- A failing INSERT … SELECT inserts nothing; CATCH sees Msg 530.
CREATE TABLE nums (n int);
WITH r (n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r WHERE n < 500)
INSERT INTO nums SELECT n FROM r;
SELECT COUNT(*) AS inserted FROM nums;
BEGIN TRY
    WITH r (n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r)
    INSERT INTO nums SELECT n FROM r OPTION (MAXRECURSION 5);
END TRY
BEGIN CATCH
    SELECT ERROR_NUMBER() AS num, ERROR_SEVERITY() AS sev, ERROR_MESSAGE() AS msg;
END CATCH;
WITH r (n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r WHERE n < 500)
INSERT INTO nums SELECT n FROM r OPTION (MAXRECURSION 500);
WITH r (n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r WHERE n < 300)
DELETE FROM nums WHERE n IN (SELECT n FROM r) OPTION (MAXRECURSION 300);
WITH r (n) AS (SELECT 301 UNION ALL SELECT n + 1 FROM r WHERE n < 310)
UPDATE nums SET n = -n WHERE n IN (SELECT n FROM r);
SELECT COUNT(*) AS left_over, MIN(n) AS low FROM nums;
GO
-- A view's recursive CTE obeys the statement reading it.
CREATE VIEW deep AS WITH r (n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r WHERE n < 150)
SELECT n FROM r;
GO
SELECT COUNT(*) AS from_view FROM deep;
SELECT COUNT(*) AS from_view FROM deep OPTION (MAXRECURSION 148);
SELECT COUNT(*) AS from_view FROM deep OPTION (MAXRECURSION 32767);
GO
SELECT 1 AS x OPTION (MAXRECURSION 32768);
GO
DROP VIEW deep;
DROP TABLE emp;
DROP TABLE nums;
