SET NOCOUNT ON
-- Table value constructors as derived tables: column aliases, joins, INSERT … SELECT
SELECT x FROM (VALUES (1), (2)) v(x)
SELECT v.a, v.b FROM (VALUES (1, 'a'), (2.5, 'bb')) AS v(a, b)
SELECT n FROM (VALUES (1), ('2'), (NULL)) AS v(n) ORDER BY n
GO
SELECT n FROM (VALUES (1), ('x')) AS v(n)
GO
SELECT * FROM (VALUES (1, 2)) AS v(a)
GO
SELECT * FROM (VALUES (1)) AS v(a, b)
GO
SELECT * FROM (VALUES (1), (2, 3)) AS v(a)
GO
CREATE TABLE c (id int, a int, b int, name varchar(20))
INSERT INTO c (id, a, b, name)
SELECT v.id, v.a, v.b, v.name
FROM (VALUES (1, 10, 11, 'x&y'), (2, 20, NULL, 'z'), (3, 30, 31, 'w')) AS v(id, a, b, name)
SELECT c.name, s.label FROM c JOIN (VALUES (1, 'one'), (3, 'three')) AS s(k, label) ON s.k = c.id
ORDER BY c.id
CREATE TABLE o (cust int, amount decimal(8,2), d date)
INSERT INTO o VALUES (1, 5.5, '2024-01-02'), (1, 7.25, '2024-03-01'), (2, 1, '2023-05-05')
GO
-- CROSS APPLY / OUTER APPLY: unpivot with VALUES, correlated TOP (1), aggregates, TOP (2)
SELECT c.id, v.col FROM c CROSS APPLY (VALUES (c.a), (c.b)) v(col)
WHERE col IS NOT NULL ORDER BY c.id, v.col
SELECT c.id, x.amount, x.d FROM c
CROSS APPLY (SELECT TOP (1) o.amount, o.d FROM o WHERE o.cust = c.id ORDER BY o.d DESC) x
ORDER BY c.id
SELECT c.id, x.amount, x.d FROM c
OUTER APPLY (SELECT TOP (1) o.amount, o.d FROM o WHERE o.cust = c.id ORDER BY o.d DESC) x
ORDER BY c.id
SELECT c.name, t.total, t.n FROM c
CROSS APPLY (SELECT SUM(o.amount) AS total, COUNT(*) AS n FROM o WHERE o.cust = c.id) t
ORDER BY c.name
SELECT c.id, x.amount FROM c
CROSS APPLY (SELECT TOP (2) amount FROM o WHERE o.cust = c.id ORDER BY amount) AS x
ORDER BY c.id, x.amount
GO
-- ORDER BY a select-list alias inside the applied query; TOP WITH TIES inside APPLY
CREATE TABLE lines (cust int, item varchar(5), qty int)
INSERT lines VALUES (1, 'a', 5), (1, 'b', 7), (1, 'b', 1), (2, 'c', 1), (2, 'd', 1)
SELECT c.id, x.item, x.total FROM c
CROSS APPLY (SELECT TOP (1) item, SUM(qty) AS total FROM lines WHERE lines.cust = c.id
             GROUP BY item ORDER BY total DESC, item) x
ORDER BY c.id
SELECT c.id, x.item FROM c
CROSS APPLY (SELECT TOP (1) WITH TIES item, qty AS q FROM lines WHERE lines.cust = c.id
             ORDER BY q) x
ORDER BY c.id, x.item
GO
-- SUM / AVG result types: int stays int (AVG truncates), decimal(p,s) → decimal(38, max(s,6))
CREATE TABLE nums (i int, big bigint, d decimal(6,2), m money, f float)
INSERT INTO nums VALUES (1, 10, 1.10, 1.5, 0.5), (2, 11, 2.25, 2.25, 1.0), (-7, 12, NULL, NULL, 2.0)
SELECT AVG(i) AS avg_i, SUM(i) AS sum_i, AVG(big) AS avg_big, SUM(big) AS sum_big FROM nums
SELECT AVG(i) FROM nums WHERE i < 0 OR i = 2
SELECT AVG(d) AS avg_d, SUM(d) AS sum_d, AVG(m) AS avg_m, SUM(m) AS sum_m, AVG(f) AS avg_f FROM nums
SELECT AVG(DISTINCT i) FROM (VALUES (1), (1), (2)) AS v(i)
SELECT AVG(CAST(i AS float)) FROM nums WHERE i > 0
SELECT i, AVG(i) OVER (PARTITION BY CASE WHEN i > 0 THEN 1 ELSE 0 END) AS a FROM nums ORDER BY i
SELECT CASE WHEN i > 0 THEN 'pos' ELSE 'neg' END AS sign FROM nums
GROUP BY CASE WHEN i > 0 THEN 'pos' ELSE 'neg' END HAVING AVG(i) >= 1.5
GO
