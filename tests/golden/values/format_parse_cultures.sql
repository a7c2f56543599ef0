-- FORMAT and PARSE / TRY_PARSE in the cultures of values/cultures.py beyond en-US, en-GB,
-- de-DE, fr-FR and ja-JP: the .NET Framework's (Windows NLS) data of each (docs/decisions.md,
-- "PARSE / FORMAT cultures"). zh-cn's 'd' and 'D' are the FORMAT page's example A.
DECLARE @d date = '2024-03-05'
SELECT FORMAT(@d, 'd', 'zh-cn') AS zh_d, FORMAT(@d, 'D', 'zh-cn') AS zh_long,
       FORMAT(@d, 'd', 'sv-SE') AS sv_d, FORMAT(@d, 'd', 'en-AU') AS au_d,
       FORMAT(@d, 'd', 'pt-BR') AS br_d, FORMAT(@d, 'd', 'ko-KR') AS ko_d
SELECT FORMAT(@d, 'D', 'es-ES') AS es_long, FORMAT(@d, 'D', 'pt-BR') AS br_long,
       FORMAT(@d, 'D', 'it-IT') AS it_long, FORMAT(@d, 'D', 'nl-NL') AS nl_long
SELECT FORMAT(@d, 'D', 'ru-RU') AS ru_long, FORMAT(@d, 'D', 'tr-TR') AS tr_long,
       FORMAT(@d, 'D', 'pl-PL') AS pl_long, FORMAT(@d, 'D', 'ko-KR') AS ko_long
GO
-- A month next to a day number is genitive where the culture has such names (ru, pl, cs, fi);
-- MMMM alone is the nominative.
DECLARE @d date = '2024-03-05'
SELECT FORMAT(@d, 'dd MMMM yyyy', 'es-ES') AS es, FORMAT(@d, 'dd MMMM yyyy', 'ru-RU') AS ru,
       FORMAT(@d, 'dd MMMM yyyy', 'pl-PL') AS pl, FORMAT(@d, 'MMMM yyyy', 'pl-PL') AS pl_alone,
       FORMAT(@d, 'dd MMMM yyyy', 'cs-CZ') AS cs, FORMAT(@d, 'dd MMMM yyyy', 'fi-FI') AS fi,
       FORMAT(CAST('2024-01-15' AS date), 'dd MMMM yyyy', 'de-AT') AS at_jan
SELECT FORMAT(@d, 'ddd dd MMM', 'fr-CA') AS fr_ca, FORMAT(@d, 'dddd', 'da-DK') AS da,
       FORMAT(@d, 'dddd', 'nb-NO') AS nb, FORMAT(@d, 'dd/MM/yyyy', 'de-CH') AS ch_slash,
       FORMAT(@d, 'dd MMMM yyyy', 'zh-TW') AS tw
GO
-- Numbers: separators, group sizes (en-IN), currency patterns and digits (ja-JP, ko-KR none).
DECLARE @n decimal(12,3) = 1234567.891, @m money = 1234.5
SELECT FORMAT(@n, 'N', 'es-ES') AS es_n, FORMAT(@n, 'N', 'en-IN') AS in_n,
       FORMAT(@n, 'N', 'it-IT') AS it_n, FORMAT(@n, 'N2', 'zh-CN') AS zh_n,
       FORMAT(@n, '#,##0.0', 'pt-BR') AS br_custom, FORMAT(@n, 'N0', 'de') AS de_neutral
SELECT FORMAT(@m, 'C', 'pt-BR') AS br_c, FORMAT(@m, 'C', 'es-ES') AS es_c,
       FORMAT(@m, 'C', 'ja-JP') AS ja_c, FORMAT(@m, 'C', 'ko-KR') AS ko_c,
       FORMAT(@m, 'C', 'en-IN') AS in_c, FORMAT(-@m, 'C', 'fr-CA') AS fr_ca_neg,
       FORMAT(@m, 'C', 'zh-TW') AS tw_c
SELECT REPLACE(FORMAT(@m, 'C', 'ru-RU'), NCHAR(160), '_') AS ru_c,
       REPLACE(FORMAT(@n, 'N', 'sv-SE'), NCHAR(160), '_') AS sv_n,
       REPLACE(FORMAT(@m, 'C', 'pl-PL'), NCHAR(160), '_') AS pl_c,
       UNICODE(SUBSTRING(FORMAT(1234, 'N0', 'cs-CZ'), 2, 1)) AS cs_group
GO
-- PARSE: month and day names (genitive too), the long date's words ('de', 'г.', 년 월 일),
-- the culture's numeric date order and separators.
SELECT PARSE('martes, 5 de marzo de 2024' AS date USING 'es-ES') AS es,
       PARSE('5 марта 2024 г.' AS date USING 'ru-RU') AS ru,
       PARSE('12 marca 2024' AS date USING 'pl-PL') AS pl,
       PARSE('terça-feira, 5 de março de 2024' AS date USING 'pt-BR') AS br,
       PARSE('dinsdag 5 maart 2024' AS date USING 'nl-NL') AS nl,
       PARSE('2024년 3월 5일' AS date USING 'ko-KR') AS ko
SELECT PARSE('2024年3月5日' AS date USING 'zh-CN') AS zh,
       PARSE('05/03/2024' AS date USING 'it-IT') AS it_dmy,
       PARSE('5 Jänner 2024' AS date USING 'de-AT') AS at_jan,
       PARSE('5. března 2024 14:30' AS datetime2(0) USING 'cs-CZ') AS cs,
       PARSE('2024/3/5 下午 2:30' AS smalldatetime USING 'zh-CN') AS zh_pm,
       PARSE('5 Mart 2024 Salı' AS date USING 'tr') AS tr_neutral
SELECT PARSE('1.234,56' AS decimal(10,2) USING 'pt-BR') AS br_dec,
       PARSE('R$ 1.234,56' AS money USING 'pt-BR') AS br_money,
       PARSE('1 234,5' AS decimal(10,1) USING 'ru-RU') AS ru_space,
       PARSE('12,34,567.89' AS decimal(10,2) USING 'en-IN') AS in_dec,
       PARSE('1 234,50 kr' AS money USING 'sv-SE') AS sv_money,
       PARSE('1''234.5' AS decimal(9,1) USING 'de-CH') AS ch_dec
GO
-- TRY_PARSE: NULL where the text is not of the culture; a name that is no culture is Msg 9818.
SELECT TRY_PARSE('5 marzo 2024' AS date USING 'en-US') AS en_italian,
       TRY_PARSE('5 marzo 2024' AS date USING 'it-IT') AS it,
       TRY_PARSE('1.234,5' AS decimal(10,1) USING 'es-MX') AS mx_commas,
       TRY_PARSE('1,234.5' AS decimal(10,1) USING 'es-MX') AS mx,
       TRY_PARSE('31/12/2024' AS date USING 'en-AU') AS au,
       TRY_PARSE('den 5 mars 2024' AS date USING 'sv') AS sv_neutral
GO
SELECT FORMAT(1, 'N', 'no such culture')
GO
SELECT TRY_PARSE('1' AS int USING 'de DE')
GO
