"""SQL Server's string comparison on PostgreSQL: the ``tsqlb_ci`` collation and the string
functions that must work with it.

SQL Server's default collation (``SQL_Latin1_General_CP1_CI_AS``) compares case-insensitively
and accent-sensitively. On SQLite user tables declare their text columns ``COLLATE TSQL_CI``
(a Python collation); on PostgreSQL they declare ``COLLATE tsqlb_ci``, a nondeterministic ICU
collation at strength 2 (``und-u-ks-level2``: case ignored, accents not), so ``=``,
``ORDER BY``, ``GROUP BY``, ``DISTINCT``, ``UNION``, joins and unique keys all ignore case.

PostgreSQL 15 refuses LIKE, regular expressions and substring searches (``strpos``,
``replace``) on nondeterministic collations, so the transpiler calls the functions below for
LIKE, CHARINDEX and REPLACE; they work under the deterministic ``"C"`` collation and fold
case themselves. Trailing spaces: ``=`` ignores them (the transpiler compares
``lower(rtrim(…))``), LIKE ignores the value's trailing blanks as SQL Server does; ICU cannot
ignore them in GROUP BY / DISTINCT / unique keys ('a' and 'a ' stay apart there).
"""

from __future__ import annotations

# PostgreSQL's case-insensitive collation for character columns.
CI_COLLATION = "tsqlb_ci"

# A server built without ICU still gets the name (case-sensitive, but the store works).
COLLATION = f"""DO $$ BEGIN
      CREATE COLLATION IF NOT EXISTS {CI_COLLATION}
        (provider = icu, locale = 'und-u-ks-level2', deterministic = false);
    EXCEPTION WHEN feature_not_supported OR invalid_parameter_value OR undefined_object THEN
      CREATE COLLATION IF NOT EXISTS {CI_COLLATION} FROM "C";
    END $$"""

# T-SQL LIKE pattern → anchored ARE (% _ [abc] [a-z] [^x], ESCAPE), matched case-insensitively;
# the value's trailing blanks may be dropped (' *$').
# One character as a regular expression atom: letters and digits as they are (a backslash
# would make \a, \b … escapes), anything else behind a backslash (always a literal in AREs).
_RE_CHAR = r"""
    CREATE OR REPLACE FUNCTION tsqlb_re_char(c text) RETURNS text
    LANGUAGE sql IMMUTABLE AS $$
    SELECT CASE WHEN (c COLLATE "C") ~ '^[[:alnum:]]$' THEN c ELSE '\' || c END $$"""

_LIKE_REGEX = r"""
    CREATE OR REPLACE FUNCTION tsqlb_like_regex(p text, esc text) RETURNS text
    LANGUAGE plpgsql IMMUTABLE AS $$
    DECLARE
      pat text COLLATE "C" := p;
      out text COLLATE "C" := '';
      i integer := 1;
      n integer := length(p);
      c text COLLATE "C";
      j integer;
      body text COLLATE "C";
      k integer;
      part text COLLATE "C";
    BEGIN
      WHILE i <= n LOOP
        c := substr(pat, i, 1);
        IF esc IS NOT NULL AND c = esc AND i < n THEN
          c := substr(pat, i + 1, 1);
          out := out || tsqlb_re_char(c);
          i := i + 2;
          CONTINUE;
        END IF;
        IF c = '%' THEN out := out || '.*';
        ELSIF c = '_' THEN out := out || '.';
        ELSIF c = '[' THEN
          j := strpos(substr(pat, i + CASE WHEN substr(pat, i + 1, 1) = ']' THEN 2 ELSE 1 END),
                      ']');
          IF j = 0 THEN
            out := out || '\[';
          ELSE
            j := j + i + CASE WHEN substr(pat, i + 1, 1) = ']' THEN 1 ELSE 0 END;
            body := substr(pat, i + 1, j - i - 1);
            part := '';
            k := CASE WHEN left(body, 1) = '^' THEN 2 ELSE 1 END;
            WHILE k <= length(body) LOOP
              IF k + 2 <= length(body) AND substr(body, k + 1, 1) = '-' THEN
                IF substr(body, k, 1) <= substr(body, k + 2, 1) THEN
                  part := part || tsqlb_re_char(substr(body, k, 1)) || '-'
                          || tsqlb_re_char(substr(body, k + 2, 1));
                END IF;
                k := k + 3;
              ELSE
                part := part || tsqlb_re_char(substr(body, k, 1));
                k := k + 1;
              END IF;
            END LOOP;
            IF part = '' THEN
              out := out || CASE WHEN left(body, 1) = '^' THEN '.' ELSE '(?!)' END;
            ELSE
              out := out || CASE WHEN left(body, 1) = '^' THEN '[^' ELSE '[' END || part || ']';
            END IF;
            i := j;
          END IF;
        ELSE out := out || tsqlb_re_char(c);
        END IF;
        i := i + 1;
      END LOOP;
      RETURN '^(?:' || out || ') *$';
    END $$"""

_LIKE = """
    CREATE OR REPLACE FUNCTION tsqlb_like(v text, p text, esc text DEFAULT NULL)
    RETURNS boolean LANGUAGE sql IMMUTABLE AS $$
    SELECT (v COLLATE "default") ~* (tsqlb_like_regex(p COLLATE "C", esc COLLATE "C")
                                     COLLATE "default") $$"""

# CHARINDEX / REPLACE compare case-insensitively (the default collation), as SQL Server does;
# the empty-string test is in "C": the ICU collation of a tsqlb_ci column ignores control
# characters, so CHAR(1) = '' there and CHAR(1) was never found.
# CHARINDEX of bytes in bytes compares them exactly (varbinary has no collation).
_CHARINDEX = """
    CREATE OR REPLACE FUNCTION tsqlb_charindex(f text, v text, start integer DEFAULT 1)
    RETURNS integer LANGUAGE sql IMMUTABLE AS $$
    SELECT CASE WHEN f COLLATE "C" = '' THEN 0
                WHEN strpos(substr(lower(v COLLATE "default"), greatest(start, 1)),
                            lower(f COLLATE "default")) = 0 THEN 0
                ELSE strpos(substr(lower(v COLLATE "default"), greatest(start, 1)),
                            lower(f COLLATE "default")) + greatest(start, 1) - 1 END $$"""

_CHARINDEX_BYTES = """
    CREATE OR REPLACE FUNCTION tsqlb_charindex(f bytea, v bytea, start integer DEFAULT 1)
    RETURNS integer LANGUAGE sql IMMUTABLE AS $$
    SELECT CASE WHEN length(f) = 0 THEN 0
                WHEN position(f IN substr(v, greatest(start, 1))) = 0 THEN 0
                ELSE position(f IN substr(v, greatest(start, 1))) + greatest(start, 1) - 1
           END $$"""

_REPLACE = r"""
    CREATE OR REPLACE FUNCTION tsqlb_replace(v text, f text, r text) RETURNS text
    LANGUAGE sql IMMUTABLE AS $$
    SELECT CASE WHEN f COLLATE "C" = '' THEN v ELSE regexp_replace(
        v COLLATE "default",
        regexp_replace(f COLLATE "C", '([^[:alnum:]])', '\\\1', 'g') COLLATE "default",
        replace(r COLLATE "C", '\', '\\') COLLATE "default", 'gi') END $$"""

FUNCTIONS: list[str] = [COLLATION, _RE_CHAR, _LIKE_REGEX, _LIKE, _CHARINDEX, _CHARINDEX_BYTES,
                         _REPLACE]
