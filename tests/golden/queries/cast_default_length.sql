-- CAST / CONVERT to a character or binary type without a length: 30 long, in queries over
-- tables as in expressions without FROM (a DECLARE without a length is 1 long)
CREATE TABLE dbo.words (id int, word nvarchar(100), n int, b varbinary(40))
INSERT INTO dbo.words VALUES
    (1, N'one', 123456, 0x41424344),
    (2, N'a string longer than thirty characters', -7, 0x)
SELECT id, CAST(word AS varchar) AS v, CONVERT(varchar, word) AS cv, CAST(word AS nvarchar) AS nv,
       CAST(n AS varchar) AS n_text, CONVERT(char, n) AS n_char, LEN(CAST(word AS char)) AS char_len,
       CAST(b AS varchar) AS b_text, DATALENGTH(CAST(b AS binary)) AS bin_len
FROM dbo.words ORDER BY id
SELECT CAST(N'a string longer than thirty characters' AS varchar) AS no_from
-- the running concatenation of a table's rows keeps each whole value
DECLARE @list varchar(200) = ''
SELECT @list = @list + CAST(word AS varchar) + ';' FROM dbo.words ORDER BY id
SELECT @list AS list
DECLARE @one varchar = 'xyz'
SELECT @one AS declared_without_length
