"""More T-SQL scalar functions for queries on PostgreSQL, where the database has no native
equivalent with the same result: STUFF, PATINDEX, QUOTENAME, CHAR / NCHAR / ASCII (code page
1252 and Unicode), ISNUMERIC, STR and HASHBYTES (DATENAME: ``dates_sql.py``).

On SQLite the values layer's implementations run (``sqlite/tsql_functions.py``); the transpiler
maps the calls here through ``funcmap.PG_FALLBACK``. They use the helpers of ``pgstrings``
(LIKE patterns) and ``pgconvert`` (code page 1252, UTF-16LE), so they are created last.
"""

from __future__ import annotations

# PATINDEX: the 1-based start of the first match of a LIKE pattern (0 when none).
_PATINDEX = r"""
    CREATE OR REPLACE FUNCTION tsqlb_patindex(p text, v text) RETURNS integer
    LANGUAGE plpgsql IMMUTABLE AS $$
    DECLARE
      pat text COLLATE "C" := p;
      head boolean := left(pat, 1) = '%';
      tail boolean := right(pat, 1) = '%' AND length(pat) > 1;
      re text COLLATE "C";
    BEGIN
      IF p IS NULL OR v IS NULL THEN RETURN NULL; END IF;
      pat := substr(pat, CASE WHEN head THEN 2 ELSE 1 END);
      IF tail THEN pat := left(pat, -1); END IF;
      re := tsqlb_like_regex(pat, NULL);  -- '^(?:…) *$'
      re := substr(re, 5, length(re) - 8);
      re := CASE WHEN head THEN '' ELSE '^' END || '(?:' || re || ')'
            || CASE WHEN tail THEN '' ELSE ' *$' END;
      RETURN regexp_instr(v COLLATE "default", re COLLATE "default", 1, 1, 0, 'i');
    END $$"""

_STUFF = """
    CREATE OR REPLACE FUNCTION tsqlb_stuff(v text, start integer, len integer, new text)
    RETURNS text LANGUAGE sql IMMUTABLE AS $$
    SELECT CASE WHEN v IS NULL OR start IS NULL OR len IS NULL OR start < 1
                     OR start > length(v) OR len < 0 THEN NULL
                ELSE left(v, start - 1) || coalesce(new, '') || substr(v, start + len) END $$"""

_QUOTENAME = """
    CREATE OR REPLACE FUNCTION tsqlb_quotename(v text, q text DEFAULT '[') RETURNS text
    LANGUAGE sql IMMUTABLE AS $$
    SELECT CASE WHEN length(v) > 128 THEN NULL
                WHEN q IN ('[', ']') THEN '[' || replace(v COLLATE "C", ']', ']]') || ']'
                WHEN q IN ('"', '''', '`')
                  THEN q || replace(v COLLATE "C", q COLLATE "C", q || q) || q
                WHEN q IN ('(', ')') THEN '(' || v || ')'
                WHEN q IN ('<', '>') THEN '<' || v || '>'
                WHEN q IN ('{', '}') THEN '{' || v || '}'
                ELSE NULL END $$"""

# CHAR / ASCII work in code page 1252 (varchar); NCHAR in Unicode. ASCII's empty-string test
# is in "C": a tsqlb_ci column's ICU collation ignores control characters (CHAR(1) = '').
_CHAR = """
    CREATE OR REPLACE FUNCTION tsqlb_char(n integer) RETURNS text
    LANGUAGE sql IMMUTABLE AS $$
    SELECT CASE WHEN n BETWEEN 1 AND 255
                  THEN tsqlb_cp1252_decode(decode(lpad(to_hex(n), 2, '0'), 'hex'))
                WHEN n = 0 THEN '' END $$"""

_ASCII = """
    CREATE OR REPLACE FUNCTION tsqlb_ascii(v text) RETURNS integer
    LANGUAGE sql IMMUTABLE AS $$
    SELECT CASE WHEN v COLLATE "C" = '' THEN NULL
                ELSE get_byte(tsqlb_cp1252_encode(left(v, 1)), 0) END $$"""

_NCHAR = """
    CREATE OR REPLACE FUNCTION tsqlb_nchar(n integer) RETURNS text
    LANGUAGE sql IMMUTABLE AS $$
    SELECT CASE WHEN n BETWEEN 1 AND 65535 AND NOT n BETWEEN 55296 AND 57343 THEN chr(n)
                WHEN n = 0 THEN '' END $$"""

# ISNUMERIC: 1 for text that converts to some numeric type (signs, currency, thousands
# separators, decimals, exponents), SQL Server's permissive rule.
_ISNUMERIC = [
    r"""CREATE OR REPLACE FUNCTION tsqlb_isnumeric(v text) RETURNS integer
    LANGUAGE sql IMMUTABLE AS $$
    SELECT CASE WHEN v IS NULL THEN 0
                WHEN btrim(v COLLATE "C", E' \t\r\n') ~
                     '^[+-]?[$€£¥]?[+-]?([0-9][0-9,]*\.?[0-9]*|\.[0-9]+)([eEdD][+-]?[0-9]+)?$'
                THEN 1 ELSE 0 END $$""",
    *[f"""CREATE OR REPLACE FUNCTION tsqlb_isnumeric(v {t}) RETURNS integer
    LANGUAGE sql IMMUTABLE AS $$ SELECT CASE WHEN v IS NULL THEN 0 ELSE 1 END $$"""
      for t in ("numeric", "double precision", "bigint", "integer")],
]

# STR(float, length, decimals): rounded, right-aligned; '*' x length when the integer part
# does not fit, fewer decimals when only they do not.
_STR = """
    CREATE OR REPLACE FUNCTION tsqlb_str(f double precision, len integer DEFAULT 10,
                                         places integer DEFAULT 0) RETURNS text
    LANGUAGE sql IMMUTABLE AS $$
    SELECT CASE WHEN f IS NULL OR len IS NULL OR len < 1 OR len > 8000 THEN NULL
                WHEN length(round(f::numeric)::text) > len THEN repeat('*', len)
                ELSE lpad(round(f::numeric, greatest(least(greatest(coalesce(places, 0), 0), 16,
                     len - length(round(f::numeric)::text) - 1), 0))::text, len) END $$"""

# HASHBYTES: text is hashed as the engine's nvarchar storage (UTF-16LE), as on SQLite.
_HASHBYTES = [
    """CREATE OR REPLACE FUNCTION tsqlb_hashbytes(alg text, v bytea) RETURNS bytea
    LANGUAGE plpgsql IMMUTABLE AS $$
    BEGIN
      IF v IS NULL THEN RETURN NULL; END IF;
      CASE upper(alg COLLATE "C")
        WHEN 'MD5' THEN RETURN decode(md5(v), 'hex');
        WHEN 'SHA2_256' THEN RETURN sha256(v);
        WHEN 'SHA2_512' THEN RETURN sha512(v);
        ELSE RAISE EXCEPTION USING ERRCODE = 'TSQLE', DETAIL = '40000',
             MESSAGE = format('HASHBYTES ''%s'' inside a query on PostgreSQL is not supported.',
                              alg);
      END CASE;
    END $$""",
    """CREATE OR REPLACE FUNCTION tsqlb_hashbytes(alg text, v text) RETURNS bytea
    LANGUAGE sql IMMUTABLE AS $$ SELECT tsqlb_hashbytes(alg, tsqlb_utf16_encode(v)) $$""",
]

_ISDATE = [
    """CREATE OR REPLACE FUNCTION tsqlb_isdate(v text) RETURNS integer
    LANGUAGE plpgsql IMMUTABLE AS $$
    BEGIN
      IF v IS NULL OR btrim(v) = '' THEN RETURN 0; END IF;
      PERFORM v::timestamp;
      RETURN CASE WHEN v::timestamp >= timestamp '1753-01-01' THEN 1 ELSE 0 END;
    EXCEPTION WHEN others THEN
      RETURN 0;
    END $$""",
    *[f"""CREATE OR REPLACE FUNCTION tsqlb_isdate(v {t}) RETURNS integer
    LANGUAGE sql IMMUTABLE AS $$ SELECT 0 $$""" for t in ("numeric", "double precision",
                                                           "bigint", "integer")],
]

# JSON_VALUE: the scalar at the path as text; JSON_QUERY: the object or array there as the
# source writes it (json, not jsonb, keeps its text). NULL where there is none (lax), SQL
# Server's error (strict paths). The path is read first, as values/json_builtins reads it,
# by tsqlb_json_steps, and the value found by tsqlb_json_at (both openjson_sql.py, shared
# with OPENJSON). ISJSON: 1 for a valid object or array.
_JSON = [
    *[f"""CREATE OR REPLACE FUNCTION {name}(j text, p text) RETURNS text
    LANGUAGE plpgsql IMMUTABLE AS $$
    DECLARE
      path record;
      doc json;
    BEGIN
      IF j IS NULL OR p IS NULL THEN RETURN NULL; END IF;
      path := tsqlb_json_steps(p);
      BEGIN
        doc := j::json;
      EXCEPTION WHEN others THEN
        RAISE EXCEPTION USING ERRCODE = 'TSQLE', DETAIL = '13609', MESSAGE =
          'JSON text is not properly formatted.';
      END;
      RETURN tsqlb_json_at(doc, path.is_strict, path.steps, {as_json});
    END $$""" for name, as_json in (("tsqlb_json_value", "false"), ("tsqlb_json_query", "true"))],
    """CREATE OR REPLACE FUNCTION tsqlb_isjson(j text) RETURNS integer
    LANGUAGE plpgsql IMMUTABLE AS $$
    BEGIN
      IF j IS NULL THEN RETURN NULL; END IF;
      RETURN CASE WHEN jsonb_typeof(j::jsonb) IN ('object', 'array') THEN 1 ELSE 0 END;
    EXCEPTION WHEN others THEN
      RETURN 0;
    END $$""",
]

FUNCTIONS: list[str] = [*_ISDATE, *_JSON, _PATINDEX, _STUFF, _QUOTENAME, _CHAR, _ASCII, _NCHAR, *_ISNUMERIC,
                        _STR, *_HASHBYTES]
