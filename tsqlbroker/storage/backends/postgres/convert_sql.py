"""CAST / CONVERT / TRY_CAST inside queries on PostgreSQL, as PL/pgSQL.

On SQLite the interpreter's own converter runs inside the query (``tsql_convert``). On
PostgreSQL ``tsqlb_cvt(value, target spec, source spec, style, try)`` does the same work in
the server: one overload per storage type the value can arrive as (text, bytea, integers,
numeric, double precision), so a value of unknown static type (a subquery, a queue column)
still converts by what it is. The result is always text in the engine's storage form (binary
as hex); :func:`.casts.cast_to` casts it to the backend type of the target.

Conversion failures raise SQL Server's error text with SQLSTATE ``TSQLE`` and the error
number as the detail (``guard.py`` maps it back), or give NULL when ``try`` is set (TRY_CAST / TRY_CONVERT).
Binary ↔ character conversions follow SQL Server: varchar reads and writes code page 1252
bytes, nvarchar UTF-16LE; integers are big-endian two's complement of the type's size.
PostgreSQL text cannot hold NUL characters, so NUL bytes decode to nothing.
"""

from __future__ import annotations

# Byte → character of code page 1252 as SQL Server uses it (the five undefined bytes map to
# the same code points). Byte 0 is a placeholder: NUL cannot appear in PostgreSQL text.
_CP1252 = "\uffff" + bytes(range(1, 256)).decode("cp1252", "replace").replace(
    "\ufffd", "\x81", 1).replace("\ufffd", "\x8d", 1).replace("\ufffd", "\x8f", 1).replace(
    "\ufffd", "\x90", 1).replace("\ufffd", "\x9d", 1)
_TABLE = "'" + _CP1252.replace("'", "''") + "'"

_FAIL = """CREATE OR REPLACE FUNCTION tsqlb_fail(try_ boolean, num integer, msg text)
    RETURNS text LANGUAGE plpgsql IMMUTABLE AS $$
    BEGIN
      IF try_ THEN RETURN NULL; END IF;
      RAISE EXCEPTION USING ERRCODE = 'TSQLE', MESSAGE = msg, DETAIL = num::text;
    END $$"""

_VARCHAR_DECODE = f"""CREATE OR REPLACE FUNCTION tsqlb_cp1252_decode(v bytea) RETURNS text
    LANGUAGE plpgsql IMMUTABLE STRICT AS $$
    BEGIN
      RETURN convert_from(v, 'WIN1252');  -- fast path; fails on NUL and undefined bytes
    EXCEPTION WHEN others THEN
      RETURN (SELECT coalesce(string_agg(CASE WHEN b = 0 THEN '' ELSE substr({_TABLE}, b + 1, 1)
                                         END, '' ORDER BY i), '')
              FROM (SELECT i, get_byte(v, i) AS b FROM generate_series(0, length(v) - 1) i) s);
    END $$"""

_VARCHAR_ENCODE = f"""CREATE OR REPLACE FUNCTION tsqlb_cp1252_encode(v text) RETURNS bytea
    LANGUAGE plpgsql IMMUTABLE STRICT AS $$
    BEGIN
      RETURN convert_to(v, 'WIN1252');  -- fast path; fails on characters cp1252 lacks
    EXCEPTION WHEN others THEN
      -- characters a varchar cannot hold become '?', as SQL Server stores them
      RETURN (SELECT coalesce(decode(string_agg(lpad(to_hex(CASE WHEN p > 1 THEN p - 1
                                                           ELSE 63 END), 2, '0'),
                                                '' ORDER BY i), 'hex'), ''::bytea)
              FROM (SELECT i, strpos({_TABLE}, substr(v, i, 1) COLLATE "C") AS p
                    FROM generate_series(1, length(v)) i) s);
    END $$"""

_UTF16_DECODE = """CREATE OR REPLACE FUNCTION tsqlb_utf16_decode(v bytea) RETURNS text
    LANGUAGE sql IMMUTABLE STRICT AS $$
    SELECT coalesce(string_agg(CASE
        WHEN c = 0 THEN ''
        WHEN c BETWEEN 55296 AND 56319 THEN
          CASE WHEN n BETWEEN 56320 AND 57343 THEN chr(65536 + (c - 55296) * 1024 + n - 56320)
               ELSE chr(65533) END
        WHEN c BETWEEN 56320 AND 57343 THEN
          CASE WHEN p BETWEEN 55296 AND 56319 THEN '' ELSE chr(65533) END
        ELSE chr(c) END, '' ORDER BY i), '')
    FROM (SELECT i, c, lag(c) OVER (ORDER BY i) AS p, lead(c) OVER (ORDER BY i) AS n
          FROM (SELECT i, get_byte(v, 2 * i) + 256 * get_byte(v, 2 * i + 1) AS c
                FROM generate_series(0, length(v) / 2 - 1) i) u) w $$"""

_UTF16_ENCODE = """CREATE OR REPLACE FUNCTION tsqlb_utf16_encode(v text) RETURNS bytea
    LANGUAGE sql IMMUTABLE STRICT AS $$
    SELECT coalesce(decode(string_agg(CASE WHEN c < 65536 THEN
          lpad(to_hex(c & 255), 2, '0') || lpad(to_hex(c >> 8), 2, '0')
        ELSE lpad(to_hex((55296 + ((c - 65536) >> 10)) & 255), 2, '0')
          || lpad(to_hex((55296 + ((c - 65536) >> 10)) >> 8), 2, '0')
          || lpad(to_hex((56320 + ((c - 65536) & 1023)) & 255), 2, '0')
          || lpad(to_hex((56320 + ((c - 65536) & 1023)) >> 8), 2, '0') END,
        '' ORDER BY i), 'hex'), ''::bytea)
    FROM (SELECT i, ascii(substr(v, i, 1)) AS c FROM generate_series(1, length(v)) i) s $$"""

# Parts of a spec: its base name and first argument ('varchar(10)' → 'varchar', '10').
_DST_PARTS = """
      nm text COLLATE "C" := split_part(dst COLLATE "C", '(', 1);
      arg text COLLATE "C" := nullif(rtrim(split_part(split_part(dst COLLATE "C", '(', 2), ',',
                                                       1), ')'), '');
      len integer := CASE WHEN arg ~ '^[0-9]+$' THEN arg::integer END;"""
_PARTS = _DST_PARTS + """
      sn text COLLATE "C" := coalesce(nullif(split_part(src COLLATE "C", '(', 1), ''), '');"""
# The scale and precision of a numeric target ('decimal(10,2)' → 2 and 10; money 4 and 19).
_NUMERIC_TARGET = """
      scale integer := CASE WHEN nm IN ('money', 'smallmoney') THEN 4
                            ELSE coalesce(nullif(rtrim(split_part(dst COLLATE "C", ',', 2), ')'),
                                                 '')::int, 0)
                            END;
      prec integer := CASE WHEN nm IN ('money', 'smallmoney') THEN 19
                           ELSE coalesce(len, 18) END;"""

_INT_RANGE = """
      lo numeric := CASE nm WHEN 'tinyint' THEN 0 WHEN 'smallint' THEN -32768
                    WHEN 'int' THEN -2147483648 WHEN 'bit' THEN 0
                    ELSE -9223372036854775808 END;
      hi numeric := CASE nm WHEN 'tinyint' THEN 255 WHEN 'smallint' THEN 32767
                    WHEN 'int' THEN 2147483647 WHEN 'bit' THEN 1
                    ELSE 9223372036854775807 END;"""

_INTS = "('bigint', 'int', 'smallint', 'tinyint')"
_STRINGS = "('char', 'varchar', 'nchar', 'nvarchar', 'text', 'ntext', 'sysname', 'xml')"
_DECIMALS = "('decimal', 'numeric', 'money', 'smallmoney')"
_DATES = "('date', 'time', 'datetime', 'datetime2', 'smalldatetime', 'datetimeoffset')"
_BINARIES = "('binary', 'varbinary', 'image')"

# Fit character results: cut to the length, pad char(n) / nchar(n).
_FIT_TEXT = """
    CREATE OR REPLACE FUNCTION tsqlb_fit_text(v text, dst text) RETURNS text
    LANGUAGE plpgsql IMMUTABLE AS $$
    DECLARE""" + _DST_PARTS + """
    BEGIN
      IF v IS NULL OR len IS NULL THEN RETURN v; END IF;
      IF nm IN ('char', 'nchar') THEN RETURN rpad(left(v, len), len); END IF;
      RETURN left(v, len);
    END $$"""

# A number's text for a character type: Msg 8115 when it does not fit (money, decimal, float).
_FIT_NUMBER = """
    CREATE OR REPLACE FUNCTION tsqlb_fit_number(v text, dst text, sname text, try_ boolean)
    RETURNS text LANGUAGE plpgsql IMMUTABLE AS $$
    DECLARE""" + _DST_PARTS + """
    BEGIN
      IF len IS NOT NULL AND length(v) > len THEN
        RETURN tsqlb_fail(try_, 8115, format(
          'Arithmetic overflow error converting %s to data type %s.', sname, nm));
      END IF;
      RETURN tsqlb_fit_text(v, dst);
    END $$"""

# Fit binary results (as bytea): cut on the right, binary(n) padded with zeros.
_FIT_BYTES = """
    CREATE OR REPLACE FUNCTION tsqlb_fit_bytes(v bytea, dst text, numeric_ boolean)
    RETURNS text LANGUAGE plpgsql IMMUTABLE AS $$
    DECLARE""" + _DST_PARTS + """
      h text := encode(v, 'hex');
    BEGIN
      IF v IS NULL OR len IS NULL OR nm = 'image' THEN RETURN h; END IF;
      IF numeric_ THEN  -- numbers keep their rightmost bytes
        h := right(h, 2 * len);
        RETURN CASE WHEN nm = 'binary' THEN lpad(h, 2 * len, '0') ELSE h END;
      END IF;
      h := left(h, 2 * len);
      RETURN CASE WHEN nm = 'binary' THEN rpad(h, 2 * len, '0') ELSE h END;
    END $$"""

_FROM_TEXT = f"""
    CREATE OR REPLACE FUNCTION tsqlb_cvt(v text, dst text, src text, style integer,
                                         try_ boolean) RETURNS text
    LANGUAGE plpgsql IMMUTABLE AS $$
    DECLARE{_PARTS}{_INT_RANGE}
      -- a string of unknown type reads as nvarchar, as the SQLite path reads it
      sname text := CASE WHEN sn IN ('nchar', 'nvarchar', 'ntext', 'sysname', '')
                         THEN 'nvarchar' ELSE 'varchar' END;
      t text COLLATE "C" := btrim(v COLLATE "C", E' \\t\\r\\n');
      d numeric;
      ts timestamp;{_NUMERIC_TARGET}
    BEGIN
      IF v IS NULL THEN RETURN NULL; END IF;
      IF nm IN {_STRINGS} THEN
        IF sn IN {_DATES} THEN RETURN tsqlb_fit_text(tsqlb_date_text(v, src, style), dst);
        END IF;
        IF sn = 'uniqueidentifier' AND len < 36 THEN RETURN tsqlb_fail(try_, 8170,
          'Insufficient result space to convert uniqueidentifier value to char.');
        END IF;
        RETURN tsqlb_fit_text(v, dst);
      END IF;
      IF nm = 'bit' THEN
        IF lower(t) = 'true' THEN RETURN '1'; END IF;
        IF lower(t) = 'false' OR t = '' THEN RETURN '0'; END IF;
        IF t !~ '^[+-]?([0-9]+\\.?[0-9]*|\\.[0-9]+)$' THEN
          RETURN tsqlb_fail(try_, 245, format(
            'Conversion failed when converting the %s value ''%s'' to data type bit.', sname, v));
        END IF;
        RETURN CASE WHEN t::numeric = 0 THEN '0' ELSE '1' END;
      END IF;
      IF nm IN {_INTS} THEN
        IF t = '' THEN RETURN '0'; END IF;
        IF t !~ '^[+-]?[ \\t]*[0-9]+$' THEN
          RETURN tsqlb_fail(try_, 245, format(
            'Conversion failed when converting the %s value ''%s'' to data type %s.',
            sname, v, nm));
        END IF;
        d := replace(replace(t, ' ', ''), E'\\t', '')::numeric;
        IF d BETWEEN lo AND hi THEN RETURN d::text; END IF;
        IF nm = 'int' THEN RETURN tsqlb_fail(try_, 248, format(
            'The conversion of the %s value ''%s'' overflowed an int column.', sname, v));
        END IF;
        IF nm = 'bigint' THEN RETURN tsqlb_fail(try_, 8114, format(
            'Error converting data type %s to bigint.', sname));
        END IF;
        RETURN tsqlb_fail(try_, 244, format('The conversion of the %s value ''%s'' overflowed '
            'an %s column. Use a larger integer column.', sname, v,
            CASE nm WHEN 'tinyint' THEN 'INT1' ELSE 'INT2' END));
      END IF;
      IF nm IN {_DECIMALS} THEN
        IF nm IN ('money', 'smallmoney') THEN
          t := replace(replace(t, '$', ''), ',', '');
          IF t = '' THEN RETURN '0.0000'; END IF;
        END IF;
        IF t !~ '^[+-]?([0-9]+\\.?[0-9]*|\\.[0-9]+)$' THEN
          IF nm IN ('money', 'smallmoney') THEN RETURN tsqlb_fail(try_, 235,
            'Cannot convert a char value to money. The char value has incorrect syntax.');
          END IF;
          RETURN tsqlb_fail(try_, 8114, format('Error converting data type %s to numeric.',
                                                sname));
        END IF;
        d := round(t::numeric, scale);
        IF abs(d) >= 10::numeric ^ (prec - scale) THEN
          RETURN tsqlb_fail(try_, 8115, format(
            'Arithmetic overflow error converting %s to data type %s.', sname,
            CASE WHEN nm IN ('money', 'smallmoney') THEN nm ELSE 'numeric' END));
        END IF;
        RETURN d::text;
      END IF;
      IF nm IN ('float', 'real') THEN
        IF sn IN ('datetime', 'smalldatetime') THEN RETURN tsqlb_datetime_days(v)::text; END IF;
        IF t = '' THEN RETURN '0'; END IF;
        IF t !~ '^[+-]?([0-9]+\\.?[0-9]*|\\.[0-9]+)([eE][+-]?[0-9]+)?$' THEN
          RETURN tsqlb_fail(try_, 8114, format('Error converting data type %s to %s.',
                                                sname, nm));
        END IF;
        RETURN t::double precision::text;
      END IF;
      IF nm IN {_BINARIES} THEN
        IF sn = 'uniqueidentifier' THEN
          RETURN tsqlb_fit_bytes(decode(tsqlb_guid_bytes(v), 'hex'), dst, false);
        END IF;
        IF style IN (1, 2) THEN
          t := CASE WHEN style = 1 AND lower(left(v, 2)) = '0x' THEN substr(v, 3)
                    WHEN style = 2 THEN v END;
          IF t IS NULL OR t !~ '^[0-9A-Fa-f]*$' OR style = 2 AND length(t) % 2 = 1 THEN
            RETURN tsqlb_fail(try_, 8114, format('Error converting data type %s to %s.',
                                                  sname, nm));
          END IF;
          IF length(t) % 2 = 1 THEN t := '0' || t; END IF;
          RETURN tsqlb_fit_bytes(decode(t, 'hex'), dst, false);
        END IF;
        IF sn = 'xml' THEN  -- as SQL Server writes xml out: UTF-16LE after a BOM
          RETURN tsqlb_fit_bytes('\\xfffe'::bytea || tsqlb_utf16_encode(v), dst, false);
        END IF;
        RETURN tsqlb_fit_bytes(CASE WHEN sname = 'nvarchar' THEN tsqlb_utf16_encode(v)
                                    ELSE tsqlb_cp1252_encode(v) END, dst, false);
      END IF;
      IF nm = 'uniqueidentifier' THEN
        BEGIN
          RETURN upper(t::uuid::text);
        EXCEPTION WHEN others THEN
          RETURN tsqlb_fail(try_, 8169,
            'Conversion failed when converting from a character string to uniqueidentifier.');
        END;
      END IF;
      IF nm IN {_DATES} THEN
        BEGIN
          IF nm = 'time' THEN RETURN tsqlb_date_value(('1900-01-01 ' || t::time)::timestamp,
                                                      NULL, dst); END IF;
          IF sn NOT IN {_DATES} THEN t := tsqlb_date_order(t, style); END IF;
          -- time-only text is on 1900-01-01; PostgreSQL's timestamp ignores an offset
          IF t ~ '^[0-9]{{1,2}}:[0-9]' THEN t := '1900-01-01 ' || t; END IF;
          ts := t::timestamp;
        EXCEPTION WHEN others THEN
          RETURN tsqlb_fail(try_, 241,
            'Conversion failed when converting date and/or time from character string.');
        END;
        RETURN tsqlb_date_value(ts, substring(t from '([+-][0-9]{{1,2}}:[0-9]{{2}}|Z)$'), dst);
      END IF;
      RETURN v;
    END $$"""

_FROM_BYTES = f"""
    CREATE OR REPLACE FUNCTION tsqlb_cvt(v bytea, dst text, src text, style integer,
                                         try_ boolean) RETURNS text
    LANGUAGE plpgsql IMMUTABLE AS $$
    DECLARE{_PARTS}
      size integer := CASE nm WHEN 'bigint' THEN 8 WHEN 'int' THEN 4 WHEN 'smallint' THEN 2
                      ELSE 1 END;
      h text;
      r numeric;
    BEGIN
      IF v IS NULL THEN RETURN NULL; END IF;
      IF nm = 'xml' THEN  -- as SQL Server's XML parser reads bytes: BOM, else UTF-8
        IF substr(v, 1, 2) = '\\xfffe'::bytea THEN
          RETURN tsqlb_xml_text(tsqlb_utf16_decode(substr(v, 3)));
        END IF;
        IF substr(v, 1, 3) = '\\xefbbbf'::bytea THEN
          RETURN tsqlb_xml_text(convert_from(substr(v, 4), 'UTF8'));
        END IF;
        IF length(v) > 1 AND get_byte(v, 1) = 0 THEN  -- '<' then 0: UTF-16LE without BOM
          RETURN tsqlb_xml_text(tsqlb_utf16_decode(v));
        END IF;
        BEGIN
          RETURN tsqlb_xml_text(convert_from(v, 'UTF8'));
        EXCEPTION WHEN others THEN
          RETURN tsqlb_fail(try_, 9420, 'XML parsing: line 1, character 1, illegal xml character');
        END;
      END IF;
      IF nm IN {_STRINGS} THEN
        IF style = 1 THEN RETURN tsqlb_fit_text('0x' || upper(encode(v, 'hex')), dst); END IF;
        IF style = 2 THEN RETURN tsqlb_fit_text(upper(encode(v, 'hex')), dst); END IF;
        IF nm IN ('nchar', 'nvarchar', 'ntext', 'sysname', 'xml') THEN
          RETURN tsqlb_fit_text(tsqlb_utf16_decode(v), dst);
        END IF;
        RETURN tsqlb_fit_text(tsqlb_cp1252_decode(v), dst);
      END IF;
      IF nm IN {_BINARIES} THEN RETURN tsqlb_fit_bytes(v, dst, false); END IF;
      IF nm IN {_INTS} OR nm = 'bit' THEN
        h := lpad(right(encode(v, 'hex'), 2 * size), 2 * size, '0');
        r := ('x' || lpad(h, 16, '0'))::bit(64)::bigint;
        IF nm = 'bit' THEN RETURN CASE WHEN r = 0 THEN '0' ELSE '1' END; END IF;
        IF nm <> 'tinyint' AND size < 8 AND r >= 2::numeric ^ (8 * size - 1) THEN
          r := r - 2::numeric ^ (8 * size);
        END IF;
        RETURN r::bigint::text;
      END IF;
      IF nm = 'uniqueidentifier' THEN
        h := rpad(left(encode(v, 'hex'), 32), 32, '0');
        RETURN upper(substr(h, 7, 2) || substr(h, 5, 2) || substr(h, 3, 2) || substr(h, 1, 2)
          || '-' || substr(h, 11, 2) || substr(h, 9, 2) || '-' || substr(h, 15, 2)
          || substr(h, 13, 2) || '-' || substr(h, 17, 4) || '-' || substr(h, 21, 12));
      END IF;
      RAISE EXCEPTION USING ERRCODE = 'TSQLE', DETAIL = '40000', MESSAGE = format(
        'Conversion of binary data to %s inside a query is not supported.', nm);
    END $$"""

# XML text as the engine stores it: without the XML declaration (its encoding no longer
# describes the text).
_XML_TEXT = r"""
    CREATE OR REPLACE FUNCTION tsqlb_xml_text(v text) RETURNS text
    LANGUAGE sql IMMUTABLE STRICT AS $$
    SELECT regexp_replace(v COLLATE "C", '^\s*<\?xml\s[^>]*\?>', '') $$"""

# A date/time value (the engine's canonical text) as CONVERT(varchar, v, style) writes it;
# style NULL is CAST's default (style 0: 'Feb 29 2024  1:45PM' for datetime, ISO otherwise).
_DATE_TEXT = """
    CREATE OR REPLACE FUNCTION tsqlb_date_text(v text, src text, style integer) RETURNS text
    LANGUAGE plpgsql IMMUTABLE AS $$
    DECLARE
      sn text COLLATE "C" := split_part(src COLLATE "C", '(', 1);
      arg text COLLATE "C" := nullif(rtrim(split_part(src COLLATE "C", '(', 2), ')'), '');
      st integer := coalesce(style, 0);
      base integer := CASE WHEN st < 100 OR st BETWEEN 100 AND 114 THEN st % 100 ELSE st END;
      digits integer := CASE sn WHEN 'datetime' THEN 3 WHEN 'smalldatetime' THEN 0
                        ELSE coalesce(arg::integer, 7) END;
      off text := CASE WHEN sn = 'datetimeoffset' THEN right(v, 6) END;
      t timestamp := CASE WHEN sn = 'time' THEN ('1900-01-01 ' || v)::timestamp
                          WHEN sn = 'datetimeoffset' THEN left(v, -6)::timestamp
                          ELSE v::timestamp END;
      y text := CASE WHEN st >= 100 OR st IN (0, 9, 13, 14, 20, 21, 23, 24, 25)
                     THEN to_char(t, 'YYYY') ELSE to_char(t, 'YY') END;
      mm text := to_char(t, 'MM');
      dd text := to_char(t, 'DD');
      mon text := to_char(t, 'Mon');
      hms text := to_char(t, 'HH24:MI:SS');
      h12 text := lpad(to_char(t, 'FMHH12'), 2);
      ampm text := to_char(t, 'AM');
      us text := to_char(t, 'US');
      ms text := lpad(((to_char(t, 'US')::integer + 500) / 1000)::text, 3, '0');
      frac text := CASE WHEN digits > 0 THEN '.' || left(to_char(t, 'US') || '0', digits)
                        ELSE '' END;
      d text;
      tm text := '';
    BEGIN
      IF v IS NULL THEN RETURN NULL; END IF;
      IF st = 0 AND sn NOT IN ('datetime', 'smalldatetime') THEN
        IF sn = 'date' THEN RETURN to_char(t, 'YYYY-MM-DD'); END IF;
        IF sn = 'time' THEN RETURN hms || frac; END IF;
        RETURN to_char(t, 'YYYY-MM-DD ') || hms || frac || coalesce(' ' || off, '');
      END IF;
      IF base IN (0, 100) THEN d := mon || ' ' || lpad(to_char(t, 'FMDD'), 2) || ' '
                                   || to_char(t, 'YYYY'); tm := h12 || to_char(t, ':MI') || ampm;
      ELSIF base = 1 THEN d := mm || '/' || dd || '/' || y;
      ELSIF base = 2 THEN d := y || '.' || mm || '.' || dd;
      ELSIF base = 3 THEN d := dd || '/' || mm || '/' || y;
      ELSIF base = 4 THEN d := dd || '.' || mm || '.' || y;
      ELSIF base = 5 THEN d := dd || '-' || mm || '-' || y;
      ELSIF base = 6 THEN d := dd || ' ' || mon || ' ' || y;
      ELSIF base = 7 THEN d := mon || ' ' || dd || ', ' || y;
      ELSIF base IN (8, 24, 108) THEN d := NULL; tm := hms;
      ELSIF base = 10 THEN d := mm || '-' || dd || '-' || y;
      ELSIF base = 11 THEN d := y || '/' || mm || '/' || dd;
      ELSIF base = 12 THEN d := y || mm || dd;
      ELSIF base IN (13, 113) THEN d := dd || ' ' || mon || ' ' || to_char(t, 'YYYY');
                                   tm := hms || ':' || ms;
      ELSIF base IN (14, 114) THEN d := NULL; tm := hms || ':' || ms;
      ELSIF base IN (20, 120) THEN d := to_char(t, 'YYYY-MM-DD'); tm := hms;
      ELSIF base IN (21, 25, 121) THEN d := to_char(t, 'YYYY-MM-DD'); tm := hms || frac;
      ELSIF base = 23 THEN d := to_char(t, 'YYYY-MM-DD');
      ELSIF base IN (126, 127) THEN
        tm := hms || CASE WHEN us = '000000' THEN '' WHEN sn = 'datetime' THEN '.' || ms
                          ELSE frac END;
        IF sn = 'time' THEN RETURN tm; END IF;
        IF sn = 'date' THEN RETURN to_char(t, 'YYYY-MM-DD'); END IF;
        RETURN to_char(t, 'YYYY-MM-DD"T"') || tm || coalesce(off, '');
      ELSE
        RAISE EXCEPTION USING ERRCODE = 'TSQLE', DETAIL = '281', MESSAGE = format(
          '%s is not a valid style number when converting from %s to a character string.',
          st, sn);
      END IF;
      IF sn = 'time' OR d IS NULL THEN RETURN tm; END IF;
      IF sn = 'date' OR tm = '' THEN RETURN d; END IF;
      RETURN d || ' ' || tm || CASE WHEN off IS NOT NULL AND base IN (20, 21, 25)
                                    THEN ' ' || off ELSE '' END;
    END $$"""

# A float as CAST / CONVERT writes it (values/text.float_text): C's %.6g (style 0), %.7e (1),
# %.15e (2 and 126), %.17g (3), with a three-digit exponent. to_char's EEEE is C's %e, so
# the digits are the same; %g's choice between fixed and exponent form is made here. Styles
# 128 and 129 take the shortest digits that read back as v: float8's own text (PostgreSQL
# 12 and later write the shortest round-trip digits, as Python's repr does).
_FLOAT_TEXT = """
    CREATE OR REPLACE FUNCTION tsqlb_float_text(v double precision, style integer)
    RETURNS text LANGUAGE plpgsql IMMUTABLE AS $$
    DECLARE
      st integer := CASE coalesce(style, 0) WHEN 126 THEN 2 ELSE coalesce(style, 0) END;
      p integer := CASE st WHEN 1 THEN 8 WHEN 2 THEN 16 WHEN 3 THEN 17 ELSE 6 END;
      e text := btrim(to_char(v, '9.' || repeat('9', p - 1) || 'EEEE'));
      m text := split_part(e, 'e', 1);
      x integer := split_part(e, 'e', 2)::integer;
      digits text := replace(replace(m, '-', ''), '.', '');
      r text;
    BEGIN
      IF v IS NULL THEN RETURN NULL; END IF;
      IF st IN (128, 129) THEN RETURN tsqlb_float_shortest(v); END IF;
      IF st NOT IN (1, 2) THEN
        IF x >= -4 AND x < p THEN  -- %g's fixed form, trailing zeros dropped
          r := CASE WHEN x >= 0 THEN left(digits, x + 1) || '.' || substr(digits, x + 2)
                    ELSE '0.' || repeat('0', -x - 1) || digits END;
          RETURN CASE WHEN v < 0 THEN '-' ELSE '' END || rtrim(rtrim(r, '0'), '.');
        END IF;
        m := rtrim(rtrim(m, '0'), '.');
      END IF;
      RETURN m || 'e' || CASE WHEN x < 0 THEN '-' ELSE '+' END || lpad(abs(x)::text, 3, '0');
    END $$"""

# Styles 128 and 129 (values/text._shortest_float_text): float8's shortest round-trip
# digits, in fixed notation for a decimal exponent from -6 to 5, else as d.ddde+NNN.
_FLOAT_SHORTEST = """
    CREATE OR REPLACE FUNCTION tsqlb_float_shortest(v double precision)
    RETURNS text LANGUAGE plpgsql IMMUTABLE STRICT AS $$
    DECLARE
      s text := v::text;
      neg boolean := left(s, 1) = '-';
      m text;
      ip text;
      all_digits text;
      digits text;
      x integer;
    BEGIN
      IF neg THEN s := substr(s, 2); END IF;
      m := split_part(s, 'e', 1);
      ip := split_part(m, '.', 1);
      all_digits := ip || split_part(m, '.', 2);
      digits := rtrim(ltrim(all_digits, '0'), '0');
      IF digits = '' THEN RETURN CASE WHEN neg THEN '-0' ELSE '0' END; END IF;
      x := length(ip) - 1 + coalesce(nullif(split_part(s, 'e', 2), ''), '0')::integer
           - (length(all_digits) - length(ltrim(all_digits, '0')));
      IF x BETWEEN -6 AND 5 THEN
        m := CASE WHEN x >= 0
                  THEN rpad(left(digits, x + 1), x + 1, '0')
                       || CASE WHEN length(digits) > x + 1
                               THEN '.' || substr(digits, x + 2) ELSE '' END
                  ELSE '0.' || repeat('0', -x - 1) || digits END;
      ELSE
        m := left(digits, 1) || CASE WHEN length(digits) > 1
                                     THEN '.' || substr(digits, 2) ELSE '' END
             || 'e' || CASE WHEN x < 0 THEN '-' ELSE '+' END || lpad(abs(x)::text, 3, '0');
      END IF;
      RETURN CASE WHEN neg THEN '-' ELSE '' END || m;
    END $$"""

# A datetime as a float: days since 1900-01-01 and the fraction of the day from its 1/300 s
# ticks, computed as values/convert.py computes it (same double arithmetic, same digits).
_DATETIME_DAYS = """
    CREATE OR REPLACE FUNCTION tsqlb_datetime_days(v text) RETURNS double precision
    LANGUAGE sql IMMUTABLE STRICT AS $$
    SELECT (t::date - date '1900-01-01')::double precision
           + (floor(extract(epoch FROM t::time))::double precision
              + ((extract(microseconds FROM t)::bigint % 1000000 * 300 + 500000) / 1000000)
                ::double precision / 300)
             / 86400.0
    FROM (SELECT v::timestamp AS t) s $$"""

# Numeric date text ('29/02/2024', '02/29/24') as ISO text in the order CONVERT's style says
# (values/dates.parse_datetime): day first for the British/French/German/Italian styles,
# year first for the ANSI/Japan/ISO ones, month first otherwise; two-digit years up to 49
# are 20xx. Other text is returned as it is, for PostgreSQL's parser.
_DATE_ORDER = r"""
    CREATE OR REPLACE FUNCTION tsqlb_date_order(t text, style integer) RETURNS text
    LANGUAGE plpgsql IMMUTABLE AS $$
    DECLARE
      m text[] := regexp_match(t, '^([0-9]{1,4})([/.-])([0-9]{1,2})\2([0-9]{1,4})(\s.*)?$');
      y text; mo text; d text;
    BEGIN
      IF m IS NULL OR length(m[1]) = 4 THEN RETURN t; END IF;
      IF style IN (3, 103, 4, 104, 5, 105, 13, 113, 131) THEN d := m[1]; mo := m[3]; y := m[4];
      ELSIF style IN (2, 102, 11, 111, 12, 112) THEN y := m[1]; mo := m[3]; d := m[4];
      ELSE mo := m[1]; d := m[3]; y := m[4];
      END IF;
      IF length(y) <= 2 THEN
        y := (y::integer + CASE WHEN y::integer < 50 THEN 2000 ELSE 1900 END)::text;
      END IF;
      RETURN lpad(y, 4, '0') || '-' || mo || '-' || d || coalesce(m[5], '');
    END $$"""

# A parsed date/time as the storage text of the target type, rounded as the type stores it
# (values/dates.from_datetime): datetime to its 1/300 s ticks shown as whole milliseconds,
# smalldatetime to the minute, datetime2 / time / datetimeoffset to their scale; the
# offset ('+05:30', 'Z', none: UTC) kept for datetimeoffset.
_DATE_VALUE = """
    CREATE OR REPLACE FUNCTION tsqlb_date_value(ts timestamp, off text, dst text) RETURNS text
    LANGUAGE plpgsql IMMUTABLE AS $$
    DECLARE""" + _DST_PARTS + """
      us integer := extract(microseconds FROM ts)::integer % 1000000;
      unit integer := 10 ^ greatest(6 - coalesce(len, 7), 0);
    BEGIN
      IF ts IS NULL THEN RETURN NULL; END IF;
      IF nm = 'date' THEN RETURN to_char(ts, 'YYYY-MM-DD'); END IF;
      IF nm = 'datetime' THEN
        ts := date_trunc('second', ts)
              + ((us * 300 + 500000) / 1000000 * 10 + 1) / 3 * interval '1 millisecond';
      ELSIF nm = 'smalldatetime' THEN
        ts := date_trunc('minute', ts) + CASE WHEN extract(microseconds FROM ts) >= 29999000
                                              THEN interval '1 minute' ELSE interval '0' END;
      ELSE
        ts := date_trunc('second', ts) + (us + unit / 2) / unit * unit * interval '1 microsecond';
      END IF;
      IF nm = 'time' THEN RETURN to_char(ts, 'HH24:MI:SS.US'); END IF;
      IF nm = 'datetimeoffset' THEN
        RETURN to_char(ts, 'YYYY-MM-DD HH24:MI:SS.US') || CASE WHEN off IS NULL OR off = 'Z'
          THEN '+00:00' ELSE left(off, 1) || lpad(split_part(substr(off, 2), ':', 1), 2, '0')
                             || ':' || split_part(off, ':', 2) END;
      END IF;
      RETURN to_char(ts, 'YYYY-MM-DD HH24:MI:SS.US');
    END $$"""

_GUID_BYTES = """
    CREATE OR REPLACE FUNCTION tsqlb_guid_bytes(v text) RETURNS text
    LANGUAGE sql IMMUTABLE STRICT AS $$
    SELECT substr(h, 7, 2) || substr(h, 5, 2) || substr(h, 3, 2) || substr(h, 1, 2)
        || substr(h, 11, 2) || substr(h, 9, 2) || substr(h, 15, 2) || substr(h, 13, 2)
        || substr(h, 17, 16)
    FROM (SELECT replace(v::uuid::text, '-', '') AS h) s $$"""

_FROM_INT = f"""
    CREATE OR REPLACE FUNCTION tsqlb_cvt(v bigint, dst text, src text, style integer,
                                         try_ boolean) RETURNS text
    LANGUAGE plpgsql IMMUTABLE AS $$
    DECLARE{_PARTS}{_INT_RANGE}
      size integer := CASE sn WHEN 'bigint' THEN 8 WHEN 'int' THEN 4 WHEN 'smallint' THEN 2
                      WHEN 'tinyint' THEN 1 WHEN 'bit' THEN 1
                      ELSE CASE WHEN v BETWEEN -2147483648 AND 2147483647 THEN 4 ELSE 8 END
                      END;
    BEGIN
      IF v IS NULL THEN RETURN NULL; END IF;
      IF nm IN {_BINARIES} THEN
        RETURN tsqlb_fit_bytes(decode(right(lpad(to_hex(v), 16,
                               CASE WHEN v < 0 THEN 'f' ELSE '0' END), 2 * size), 'hex'),
                               dst, true);
      END IF;
      IF nm = 'bit' THEN RETURN CASE WHEN v = 0 THEN '0' ELSE '1' END; END IF;
      IF nm IN {_INTS} AND NOT v BETWEEN lo AND hi THEN
        IF nm IN ('tinyint', 'smallint') THEN RETURN tsqlb_fail(try_, 220, format(
          'Arithmetic overflow error for data type %s, value = %s.', nm, v));
        END IF;
        RETURN tsqlb_fail(try_, 8115, format(
          'Arithmetic overflow error converting expression to data type %s.', nm));
      END IF;
      IF nm IN ('char', 'varchar') AND len IS NOT NULL AND length(v::text) > len THEN
        RETURN tsqlb_fit_text('*', dst);  -- SQL Server writes '*' for a number too long
      END IF;
      IF nm IN ('nchar', 'nvarchar') AND len IS NOT NULL AND length(v::text) > len THEN
        RETURN tsqlb_fail(try_, 8115, format(
          'Arithmetic overflow error converting expression to data type %s.', nm));
      END IF;
      RETURN tsqlb_cvt(v::numeric, dst, src, style, try_);
    END $$"""

_FROM_NUMERIC = f"""
    CREATE OR REPLACE FUNCTION tsqlb_cvt(v numeric, dst text, src text, style integer,
                                         try_ boolean) RETURNS text
    LANGUAGE plpgsql IMMUTABLE AS $$
    DECLARE{_PARTS}{_INT_RANGE}{_NUMERIC_TARGET}
      sname text := CASE WHEN sn IN {_INTS} THEN 'int' WHEN sn IN ('float', 'real') THEN sn
                         WHEN sn IN ('money', 'smallmoney') THEN sn ELSE 'numeric' END;
      d numeric;
      r text;
    BEGIN
      IF v IS NULL THEN RETURN NULL; END IF;
      IF nm = 'bit' THEN RETURN CASE WHEN v = 0 THEN '0' ELSE '1' END; END IF;
      IF nm IN {_INTS} THEN
        -- SQL Server rounds money and truncates other numbers toward zero
        d := CASE WHEN sn IN ('money', 'smallmoney') THEN round(v) ELSE trunc(v) END;
        IF d BETWEEN lo AND hi THEN RETURN d::text; END IF;
        RETURN tsqlb_fail(try_, 8115, format(
          'Arithmetic overflow error converting expression to data type %s.', nm));
      END IF;
      IF nm IN {_DECIMALS} THEN
        d := round(v, scale);
        IF abs(d) >= 10::numeric ^ (prec - scale) THEN
          RETURN tsqlb_fail(try_, 8115, format(
            'Arithmetic overflow error converting %s to data type %s.', sname,
            CASE WHEN nm IN ('money', 'smallmoney') THEN nm ELSE 'numeric' END));
        END IF;
        RETURN d::text;
      END IF;
      IF nm IN ('float', 'real') THEN RETURN v::double precision::text; END IF;
      IF nm IN {_STRINGS} THEN
        IF sn IN ('float', 'real') THEN
          RETURN tsqlb_cvt(v::double precision, dst, src, style, try_);
        END IF;
        -- money: two decimals (style 0), thousands separators (1), four decimals (2, 126)
        r := CASE WHEN sn NOT IN ('money', 'smallmoney') THEN v::text
                  WHEN style = 1 THEN to_char(round(v, 2), 'FM999,999,999,999,999,990.00')
                  WHEN style IN (2, 126) THEN round(v, 4)::text
                  ELSE round(v, 2)::text END;
        RETURN tsqlb_fit_number(r, dst, sname, try_);
      END IF;
      IF nm IN {_BINARIES} AND v = trunc(v) AND sn NOT IN ('decimal', 'numeric', 'float',
                                                            'real', 'money', 'smallmoney') THEN
        RETURN tsqlb_cvt(v::bigint, dst, src, style, try_);
      END IF;
      IF nm IN ('datetime', 'smalldatetime') THEN
        RETURN to_char(timestamp '1900-01-01' + v * interval '1 day',
                       'YYYY-MM-DD HH24:MI:SS.US');
      END IF;
      RAISE EXCEPTION USING ERRCODE = 'TSQLE', DETAIL = '529', MESSAGE = format(
        'Explicit conversion from data type %s to %s is not allowed.', sname, nm);
    END $$"""

_FROM_FLOAT = f"""
    CREATE OR REPLACE FUNCTION tsqlb_cvt(v double precision, dst text, src text,
                                         style integer, try_ boolean) RETURNS text
    LANGUAGE plpgsql IMMUTABLE AS $$
    DECLARE{_DST_PARTS}
      sname text := coalesce(nullif(split_part(src COLLATE "C", '(', 1), ''), 'float');
      r text;
    BEGIN
      IF v IS NULL THEN RETURN NULL; END IF;
      IF nm IN {_STRINGS} THEN
        IF coalesce(style, 0) NOT IN (0, 1, 2, 3, 126, 128, 129) THEN
          RAISE EXCEPTION USING ERRCODE = 'TSQLE', DETAIL = '281', MESSAGE = format(
            '%s is not a valid style number when converting from %s to a character string.',
            style, sname);
        END IF;
        r := tsqlb_float_text(v, style);
        RETURN tsqlb_fit_number(r, dst, sname, try_);
      END IF;
      IF nm IN ('float', 'real') THEN RETURN v::text; END IF;
      IF v IN ('Infinity', '-Infinity', 'NaN') THEN
        RETURN tsqlb_fail(try_, 8115, format(
          'Arithmetic overflow error converting float to data type %s.', nm));
      END IF;
      RETURN tsqlb_cvt(v::numeric, dst, coalesce(nullif(src, ''), 'float'), style, try_);
    END $$"""

# Exact overloads: an int4 argument would otherwise pick the double precision one.
_NARROW = [
    f"""CREATE OR REPLACE FUNCTION tsqlb_cvt(v {t}, dst text, src text, style integer,
                                             try_ boolean) RETURNS text
        LANGUAGE sql IMMUTABLE AS $$ SELECT tsqlb_cvt(v::bigint, dst, src, style, try_) $$"""
    for t in ("integer", "smallint")
]

# The engine's own tables keep their dates as timestamp (a queue's message_enqueue_time,
# sys.objects' create_date), user tables as storage text: that text, read as the column's
# type (datetime2 when the binder does not say).
_FROM_TIMESTAMP = """
    CREATE OR REPLACE FUNCTION tsqlb_cvt(v timestamp, dst text, src text, style integer,
                                         try_ boolean) RETURNS text
    LANGUAGE sql IMMUTABLE AS $$
      SELECT tsqlb_cvt(to_char(v, 'YYYY-MM-DD HH24:MI:SS.US'), dst,
                       coalesce(nullif(src, ''), 'datetime2'), style, try_) $$"""

FUNCTIONS: list[str] = [
    _FAIL, _VARCHAR_DECODE, _VARCHAR_ENCODE, _UTF16_DECODE, _UTF16_ENCODE, _FIT_TEXT,
    _FIT_BYTES, _FIT_NUMBER, _XML_TEXT, _DATE_TEXT, _FLOAT_SHORTEST, _FLOAT_TEXT,
    _DATETIME_DAYS, _DATE_ORDER, _DATE_VALUE, _GUID_BYTES, _FROM_TEXT, _FROM_BYTES, _FROM_NUMERIC, _FROM_INT,
    _FROM_FLOAT, _FROM_TIMESTAMP,
    *_NARROW,
]
