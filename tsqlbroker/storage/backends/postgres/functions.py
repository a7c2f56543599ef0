"""The engine's ``tsqlb_*`` functions for PostgreSQL, as SQL / PL/pgSQL.

On SQLite they are Python functions (``backends/sqlite/tsql_functions.py``); PostgreSQL cannot
call Python, so the same contracts are written in SQL here and created (``CREATE OR
REPLACE``) when the catalog sets up a PostgreSQL store. Date/time values are the engine's canonical text
(``YYYY-MM-DD HH24:MI:SS.US``). Functions the interpreter registers in Python are not
available on PostgreSQL; the transpiler then uses these and native functions.
"""

from __future__ import annotations

from ..base import BackendConnection
from .convert_sql import FUNCTIONS as CONVERSIONS
from .dates_sql import FUNCTIONS as DATES
from .openjson_sql import FUNCTIONS as OPENJSON
from .strings_sql import FUNCTIONS as STRINGS
from .text_sql import FUNCTIONS as TEXT_FUNCTIONS

_TS = "'YYYY-MM-DD HH24:MI:SS.US'"

# NEXT VALUE FOR (engine/sequences.py): the sequence's state row moves in the caller's
# transaction; an exhausted sequence raises Msg 11728.
_NEXTVAL = """CREATE OR REPLACE FUNCTION tsqlb_nextval(oid_ integer) RETURNS bigint
    LANGUAGE plpgsql VOLATILE AS $$
    DECLARE r record; f numeric;
    BEGIN
      SELECT * INTO r FROM tsqlb_sequences WHERE object_id = oid_ FOR UPDATE;
      IF r.next_value IS NULL THEN
        RAISE EXCEPTION USING ERRCODE = 'TSQLE', DETAIL = '11728', MESSAGE = format(
          'The sequence object ''%s'' has reached its minimum or maximum value. Restart the '
          'sequence object to allow new values to be generated.', r.name);
      END IF;
      f := r.next_value::numeric + r.increment;
      IF f > r.maximum_value OR f < r.minimum_value THEN
        f := CASE WHEN NOT r.is_cycling THEN NULL
                  WHEN r.increment > 0 THEN r.minimum_value ELSE r.maximum_value END;
      END IF;
      UPDATE tsqlb_sequences SET current_value = r.next_value, last_used_value = r.next_value,
             next_value = f WHERE object_id = oid_;
      RETURN r.next_value;
    END $$"""


FUNCTIONS: list[str] = [
    _NEXTVAL,
    # A sql_variant column's value (its text after the header, stored_values.py) and a
    # header field (SQL_VARIANT_PROPERTY's answers, written with the value).
    """CREATE OR REPLACE FUNCTION tsqlb_variant_value(v text) RETURNS text
        LANGUAGE sql IMMUTABLE AS $$
        SELECT CASE WHEN left(v, 1) = chr(1) THEN substr(v, strpos(v, chr(2)) + 1) ELSE v END $$""",
    """CREATE OR REPLACE FUNCTION tsqlb_variant_field(v text, k integer) RETURNS text
        LANGUAGE sql IMMUTABLE AS $$
        SELECT CASE WHEN left(v, 1) = chr(1) AND k > 0
                    THEN nullif(split_part(split_part(v, chr(2), 1), '|', k), '') END $$""",
    f"""CREATE OR REPLACE FUNCTION tsqlb_getdate() RETURNS text LANGUAGE sql VOLATILE
        AS $$ SELECT to_char(clock_timestamp()::timestamp, {_TS}) $$""",
    f"""CREATE OR REPLACE FUNCTION tsqlb_getutcdate() RETURNS text LANGUAGE sql VOLATILE
        AS $$ SELECT to_char(clock_timestamp() AT TIME ZONE 'UTC', {_TS}) $$""",
    """CREATE OR REPLACE FUNCTION tsqlb_newid() RETURNS text LANGUAGE sql VOLATILE
        AS $$ SELECT upper(gen_random_uuid()::text) $$""",
    """CREATE OR REPLACE FUNCTION tsqlb_len(v text) RETURNS integer LANGUAGE sql IMMUTABLE
        AS $$ SELECT length(rtrim(v, ' ')) $$""",
    """CREATE OR REPLACE FUNCTION tsqlb_len(v numeric) RETURNS integer LANGUAGE sql IMMUTABLE
        AS $$ SELECT length(v::text) $$""",
    """CREATE OR REPLACE FUNCTION tsqlb_datalength(v text, spec text) RETURNS integer
        LANGUAGE sql IMMUTABLE AS $$
        SELECT CASE WHEN spec <> '' AND spec COLLATE "C" NOT LIKE 'n%'
                         AND spec COLLATE "C" NOT LIKE 'sysname%'
                         AND spec COLLATE "C" NOT LIKE 'xml%' THEN octet_length(convert_to(v, 'LATIN1'))
                    ELSE 2 * length(v) END $$""",
    """CREATE OR REPLACE FUNCTION tsqlb_datalength(v bytea, spec text) RETURNS integer
        LANGUAGE sql IMMUTABLE AS $$ SELECT octet_length(v) $$""",
    """CREATE OR REPLACE FUNCTION tsqlb_base64(v bytea) RETURNS text
        LANGUAGE sql IMMUTABLE AS $$ SELECT replace(encode(v, 'base64'), chr(10), '') $$""",
    """CREATE OR REPLACE FUNCTION tsqlb_datalength(v numeric, spec text) RETURNS integer
        LANGUAGE sql IMMUTABLE AS $$
        SELECT CASE WHEN v BETWEEN -2147483648 AND 2147483647 THEN 4 ELSE 8 END $$""",
    """CREATE OR REPLACE FUNCTION tsqlb_left(v text, n integer) RETURNS text
        LANGUAGE sql IMMUTABLE AS $$ SELECT left(v, greatest(n, 0)) $$""",
    """CREATE OR REPLACE FUNCTION tsqlb_right(v text, n integer) RETURNS text
        LANGUAGE sql IMMUTABLE AS $$ SELECT right(v, greatest(n, 0)) $$""",
    # SQL Server's tinyint arithmetic (a tinyint is a smallint here): past 0 … 255 the
    # out-of-range error PostgreSQL gives its own integers, named tinyint (failures.py).
    """CREATE OR REPLACE FUNCTION tsqlb_tinyint(v integer) RETURNS smallint
        LANGUAGE plpgsql IMMUTABLE STRICT AS $$
        BEGIN
          IF v < 0 OR v > 255 THEN
            RAISE EXCEPTION USING ERRCODE = '22003', MESSAGE = 'tinyint out of range';
          END IF;
          RETURN v;
        END $$""",
    # A scalar UDF's value computed in Python per distinct argument tuple (udf_calls.py):
    # the map's keys are the text of jsonb_build_array(arguments).
    """CREATE OR REPLACE FUNCTION tsqlb_udf_lookup(m jsonb, k jsonb) RETURNS text
        LANGUAGE sql IMMUTABLE AS $$ SELECT m ->> (k::text) $$""",
    # A value computed in Python per distinct argument tuple, or the error computing it
    # gave ({"number", "message"}: udf_calls.py's PARSE), raised for a row that needs it.
    """CREATE OR REPLACE FUNCTION tsqlb_python_lookup(m jsonb, k jsonb) RETURNS text
        LANGUAGE plpgsql IMMUTABLE AS $$
        DECLARE v jsonb := m -> (k::text);
        BEGIN
          IF jsonb_typeof(v) = 'object' THEN
            RAISE EXCEPTION USING ERRCODE = 'TSQLE', DETAIL = v ->> 'number',
                                  MESSAGE = v ->> 'message';
          END IF;
          RETURN v #>> '{}';
        END $$""",
    # The recursion level of a row a recursive CTE makes, Msg 530 beyond MAXRECURSION
    # (recursion.py). VOLATILE: evaluated for each row made, never folded ahead.
    """CREATE OR REPLACE FUNCTION tsqlb_recursion_level(lvl integer, lim integer)
        RETURNS integer LANGUAGE plpgsql VOLATILE AS $$
        BEGIN
          IF lvl > lim THEN
            RAISE EXCEPTION USING ERRCODE = 'TSQLE', DETAIL = '530', MESSAGE = format(
              'The statement terminated. The maximum recursion %s has been exhausted '
              'before statement completion.', lim);
          END IF;
          RETURN lvl;
        END $$""",
]


# Everything :func:`install` creates, in order (the collation first: functions use it).
ALL: list[str] = STRINGS + FUNCTIONS + CONVERSIONS + DATES + TEXT_FUNCTIONS + OPENJSON


def install(conn: BackendConnection) -> None:
    """Create (or replace) the functions in the store's PostgreSQL schema."""
    # Straight to the DBAPI cursor: with no parameters psycopg leaves '%' alone.
    conn.flush_begin()
    cursor = conn.conn.connection.dbapi_connection.cursor()
    try:
        for ddl in ALL:
            cursor.execute(ddl)
    finally:
        cursor.close()
