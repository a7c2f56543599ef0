"""DATEPART / DATENAME / DATEADD / DATEDIFF / DATEDIFF_BIG / EOMONTH / the *FROMPARTS inside
queries on PostgreSQL, as PL/pgSQL.

On SQLite the values layer's functions (values/dates.py, values/date_builtins.py) run inside
the query; PostgreSQL cannot call Python, so these are their second copy, kept in line by
tests/values/test_date_parity.py. Values arrive as the engine's storage text (date
``YYYY-MM-DD``, time ``HH:MI:SS.ffffff``, datetime ``YYYY-MM-DD HH:MI:SS.ffffff``,
datetimeoffset with ``+hh:mm`` after it). The transpiler passes canonical dateparts
(engine/datecalls.py); :data:`_PART_NAME` still reads every abbreviation, from the values
layer's own table. DATEADD gets the value's type spec, which decides rounding and range.
"""

from __future__ import annotations

from ....values.dates import DATEPARTS

# Every datepart name SQL Server accepts → its canonical name (values/dates.DATEPARTS).
_PART_NAME = """
    CREATE OR REPLACE FUNCTION tsqlb_datepart_name(unit text, fn text) RETURNS text
    LANGUAGE plpgsql IMMUTABLE AS $$
    DECLARE u text := CASE lower(btrim(unit COLLATE "C")) """ + " ".join(
    f"WHEN '{name}' THEN '{canon}'" for name, canon in DATEPARTS.items()) + """ END;
    BEGIN
      IF u IS NULL THEN
        RAISE EXCEPTION USING ERRCODE = 'TSQLE', DETAIL = '155', MESSAGE = format(
          '''%s'' is not a recognized %s option.', unit, fn);
      END IF;
      RETURN u;
    END $$"""

# A stored date/time as a timestamp (a time on 1900-01-01; an offset is left out), and its
# offset ('+05:30', NULL for types without one).
_TS = r"""
    CREATE OR REPLACE FUNCTION tsqlb_ts(v text) RETURNS timestamp
    LANGUAGE plpgsql IMMUTABLE STRICT AS $$
    BEGIN
      IF v ~ '^\s*[0-9]{1,2}:[0-9]' THEN RETURN ('1900-01-01 ' || v)::timestamp; END IF;
      RETURN v::timestamp;
    EXCEPTION WHEN others THEN
      RAISE EXCEPTION USING ERRCODE = 'TSQLE', DETAIL = '241', MESSAGE =
        'Conversion failed when converting date and/or time from character string.';
    END $$"""

_OFFSET = r"""
    CREATE OR REPLACE FUNCTION tsqlb_offset(v text) RETURNS text
    LANGUAGE sql IMMUTABLE STRICT AS $$
    SELECT substring(v COLLATE "C" FROM '([+-][0-9]{1,2}:[0-9]{2})\s*$') $$"""

_OFFSET_MINUTES = """
    CREATE OR REPLACE FUNCTION tsqlb_offset_minutes(v text) RETURNS integer
    LANGUAGE sql IMMUTABLE STRICT AS $$
    SELECT coalesce(CASE WHEN left(o, 1) = '-' THEN -1 ELSE 1 END
                    * (split_part(substr(o, 2), ':', 1)::integer * 60
                       + split_part(o, ':', 2)::integer), 0)
    FROM (SELECT tsqlb_offset(v) AS o) s $$"""

# DATEPART (values/dates.datepart): weekday and week count from day ``datefirst``.
_DATEPART = """
    CREATE OR REPLACE FUNCTION tsqlb_datepart(unit text, v text, datefirst integer)
    RETURNS integer LANGUAGE plpgsql IMMUTABLE AS $$
    DECLARE
      u text := tsqlb_datepart_name(unit, 'datepart');
      t timestamp := tsqlb_ts(v);
      us integer := extract(microseconds FROM t)::integer % 1000000;
    BEGIN
      IF v IS NULL THEN RETURN NULL; END IF;
      RETURN CASE u
        WHEN 'year' THEN extract(year FROM t)
        WHEN 'quarter' THEN extract(quarter FROM t)
        WHEN 'month' THEN extract(month FROM t)
        WHEN 'dayofyear' THEN extract(doy FROM t)
        WHEN 'day' THEN extract(day FROM t)
        WHEN 'weekday' THEN (extract(isodow FROM t)::integer - datefirst + 7) % 7 + 1
        WHEN 'week' THEN (extract(doy FROM t)::integer - 1
          + (extract(isodow FROM date_trunc('year', t))::integer - datefirst + 7) % 7) / 7 + 1
        WHEN 'iso_week' THEN extract(week FROM t)
        WHEN 'hour' THEN extract(hour FROM t)
        WHEN 'minute' THEN extract(minute FROM t)
        WHEN 'second' THEN floor(extract(second FROM t))
        WHEN 'millisecond' THEN us / 1000
        WHEN 'microsecond' THEN us
        WHEN 'nanosecond' THEN us * 1000
        WHEN 'tzoffset' THEN tsqlb_offset_minutes(v) END;
    END $$"""

_DATEPART_7 = """
    CREATE OR REPLACE FUNCTION tsqlb_datepart(unit text, v text) RETURNS integer
    LANGUAGE sql IMMUTABLE AS $$ SELECT tsqlb_datepart(unit, v, 7) $$"""

# DATENAME (values/dates.datename): English month and day names, the offset as text.
_DATENAME = """
    CREATE OR REPLACE FUNCTION tsqlb_datename(unit text, v text) RETURNS text
    LANGUAGE plpgsql IMMUTABLE AS $$
    DECLARE u text := tsqlb_datepart_name(unit, 'datename');
    BEGIN
      IF v IS NULL THEN RETURN NULL; END IF;
      RETURN CASE u WHEN 'month' THEN to_char(tsqlb_ts(v), 'FMMonth')
                    WHEN 'weekday' THEN to_char(tsqlb_ts(v), 'FMDay')
                    WHEN 'tzoffset' THEN coalesce(tsqlb_offset(v), '+00:00')
                    ELSE tsqlb_datepart(u, v, 7)::text END;
    END $$"""

_OVERFLOW_517 = """RAISE EXCEPTION USING ERRCODE = 'TSQLE', DETAIL = '517', MESSAGE = format(
          'Adding a value to a ''%s'' column caused an overflow.', nm);"""

# DATEADD (values/dates.dateadd) of a value of type ``spec`` ('' when the transpiler did not
# know it: as the text looks); month ends clamp, the result is rounded as the type stores it
# (convert_sql's tsqlb_date_value), Msg 517 outside the type's range.
_DATEADD = f"""
    CREATE OR REPLACE FUNCTION tsqlb_dateadd(unit text, n bigint, v text, spec text)
    RETURNS text LANGUAGE plpgsql IMMUTABLE AS $$
    DECLARE
      u text := tsqlb_datepart_name(unit, 'dateadd');
      t timestamp := tsqlb_ts(v);
      nm text := coalesce(nullif(split_part(spec, '(', 1), ''),
                          CASE WHEN v ~ '^\\s*[0-9]{{1,2}}:[0-9]' THEN 'time'
                               WHEN tsqlb_offset(v) IS NOT NULL THEN 'datetimeoffset'
                               ELSE 'datetime2' END);
      r timestamp;
    BEGIN
      IF v IS NULL OR n IS NULL THEN RETURN NULL; END IF;
      BEGIN
        r := CASE u
          WHEN 'year' THEN t + make_interval(years => n::integer)
          WHEN 'quarter' THEN t + make_interval(months => (3 * n)::integer)
          WHEN 'month' THEN t + make_interval(months => n::integer)
          WHEN 'week' THEN t + n * interval '7 days'
          WHEN 'hour' THEN t + n * interval '1 hour'
          WHEN 'minute' THEN t + n * interval '1 minute'
          WHEN 'second' THEN t + n * interval '1 second'
          WHEN 'millisecond' THEN t + n * interval '1 millisecond'
          WHEN 'microsecond' THEN t + n * interval '1 microsecond'
          WHEN 'nanosecond' THEN t + n / 1000 * interval '1 microsecond'
          WHEN 'tzoffset' THEN NULL
          ELSE t + n * interval '1 day' END;  -- day, dayofyear, weekday
      EXCEPTION WHEN others THEN
        {_OVERFLOW_517}
      END;
      IF r IS NULL THEN
        RAISE EXCEPTION USING ERRCODE = 'TSQLE', DETAIL = '9810', MESSAGE = format(
          'The datepart %s is not supported by date function dateadd for data type %s.', u, nm);
      END IF;
      IF r < timestamp '0001-01-01' OR r >= timestamp '9999-12-31' + interval '1 day'
         OR nm = 'datetime' AND r < timestamp '1753-01-01'
         OR nm = 'smalldatetime' AND NOT tsqlb_date_value(r, NULL, nm)::timestamp
                                         BETWEEN '1900-01-01' AND '2079-06-06 23:59' THEN
        {_OVERFLOW_517}
      END IF;
      RETURN tsqlb_date_value(r, tsqlb_offset(v), coalesce(nullif(spec, ''), nm));
    END $$"""

# DATEDIFF's count of datepart boundaries from 0001-01-01 to t (values/dates._units).
_UNITS = """
    CREATE OR REPLACE FUNCTION tsqlb_date_units(t timestamp, u text) RETURNS numeric
    LANGUAGE plpgsql IMMUTABLE AS $$
    DECLARE
      days numeric := (t::date - date '0001-01-01') + 1;
      secs numeric := days * 86400 + extract(hour FROM t) * 3600 + extract(minute FROM t) * 60
                      + floor(extract(second FROM t));
      us numeric := extract(microseconds FROM t)::integer % 1000000;
    BEGIN
      RETURN CASE u
        WHEN 'year' THEN extract(year FROM t)
        WHEN 'quarter' THEN extract(year FROM t) * 4 + floor((extract(month FROM t) - 1) / 3)
        WHEN 'month' THEN extract(year FROM t) * 12 + extract(month FROM t) - 1
        WHEN 'week' THEN floor(days / 7)
        WHEN 'iso_week' THEN floor((days - 1) / 7)
        WHEN 'hour' THEN days * 24 + extract(hour FROM t)
        WHEN 'minute' THEN days * 1440 + extract(hour FROM t) * 60 + extract(minute FROM t)
        WHEN 'second' THEN secs
        WHEN 'millisecond' THEN secs * 1000 + floor(us / 1000)
        WHEN 'microsecond' THEN secs * 1000000 + us
        WHEN 'nanosecond' THEN (secs * 1000000 + us) * 1000
        ELSE days END;  -- day, dayofyear, weekday
    END $$"""

# DATEDIFF / DATEDIFF_BIG (values/dates.datediff): offsets compared in UTC; Msg 535 past int
# (bigint).
_DATEDIFF_OF = """
    CREATE OR REPLACE FUNCTION tsqlb_datediff_of(unit text, a text, b text, big boolean)
    RETURNS bigint LANGUAGE plpgsql IMMUTABLE AS $$
    DECLARE
      fn text := CASE WHEN big THEN 'datediff_big' ELSE 'datediff' END;
      u text := tsqlb_datepart_name(unit, fn);
      lim numeric := CASE WHEN big THEN 2::numeric ^ 63 ELSE 2::numeric ^ 31 END;
      r numeric;
    BEGIN
      IF a IS NULL OR b IS NULL THEN RETURN NULL; END IF;
      r := tsqlb_date_units(tsqlb_ts(b) - tsqlb_offset_minutes(b) * interval '1 minute', u)
           - tsqlb_date_units(tsqlb_ts(a) - tsqlb_offset_minutes(a) * interval '1 minute', u);
      IF r < -lim OR r >= lim THEN
        RAISE EXCEPTION USING ERRCODE = 'TSQLE', DETAIL = '535', MESSAGE = format(
          'The %s function resulted in an overflow. The number of dateparts separating two '
          'date/time instances is too large. Try to use %s with a less precise datepart.',
          fn, fn);
      END IF;
      RETURN r;
    END $$"""

_DATEDIFFS = [
    f"""CREATE OR REPLACE FUNCTION tsqlb_{fn}(unit text, a text, b text) RETURNS bigint
        LANGUAGE sql IMMUTABLE AS $$ SELECT tsqlb_datediff_of(unit, a, b, {big}) $$"""
    for fn, big in (("datediff", "false"), ("datediff_big", "true"))
]

# EOMONTH (values/dates.eomonth): the last day of the month ``months`` on; Msg 517 past
# 0001..9999.
_EOMONTH = """
    CREATE OR REPLACE FUNCTION tsqlb_eomonth(v text, months bigint) RETURNS text
    LANGUAGE plpgsql IMMUTABLE AS $$
    DECLARE
      nm text := 'date';
      d timestamp;
    BEGIN
      IF v IS NULL OR months IS NULL THEN RETURN NULL; END IF;
      BEGIN
        d := date_trunc('month', tsqlb_ts(v)) + make_interval(months => months::integer);
      EXCEPTION WHEN others THEN d := NULL;
      END;
      IF d IS NULL OR d < timestamp '0001-01-01' OR d >= timestamp '10000-01-01' THEN
        """ + _OVERFLOW_517 + """
      END IF;
      RETURN to_char(d + interval '1 month' - interval '1 day', 'YYYY-MM-DD');
    END $$"""

_EOMONTH_0 = """
    CREATE OR REPLACE FUNCTION tsqlb_eomonth(v text) RETURNS text
    LANGUAGE sql IMMUTABLE AS $$ SELECT tsqlb_eomonth(v, 0) $$"""

# The *FROMPARTS (values/date_builtins.from_parts): Msg 289 when the parts make no value.
# p: year, month, day, hour, minute, second, microseconds; ok: the parts' own checks.
_MAKE = """
    CREATE OR REPLACE FUNCTION tsqlb_from_parts(kind text, p bigint[], ok boolean)
    RETURNS text LANGUAGE plpgsql IMMUTABLE AS $$
    DECLARE r timestamp;
    BEGIN
      IF array_position(p, NULL) IS NOT NULL THEN RETURN NULL; END IF;
      BEGIN
        IF NOT ok OR NOT p[1] BETWEEN 1 AND 9999 OR NOT p[4] BETWEEN 0 AND 23
           OR NOT p[5] BETWEEN 0 AND 59 OR NOT p[6] BETWEEN 0 AND 59 THEN
          RAISE EXCEPTION 'bad parts';
        END IF;
        r := make_timestamp(p[1]::integer, p[2]::integer, p[3]::integer, p[4]::integer,
                            p[5]::integer, p[6]::integer) + p[7] * interval '1 microsecond';
      EXCEPTION WHEN others THEN
        RAISE EXCEPTION USING ERRCODE = 'TSQLE', DETAIL = '289', MESSAGE = format(
          'Cannot construct data type %s, some of the arguments have values which are not '
          'valid.', kind);
      END;
      RETURN tsqlb_date_value(r, NULL, kind);
    END $$"""

# Microseconds of a fraction given in ``prec`` digits (values/date_builtins._fraction_micro);
# NULL when the fraction does not fit.
_FRACTION = """
    CREATE OR REPLACE FUNCTION tsqlb_fraction_micro(frac bigint, prec bigint) RETURNS bigint
    LANGUAGE sql IMMUTABLE AS $$
    SELECT CASE WHEN NOT prec BETWEEN 0 AND 7 OR NOT frac >= 0
                     OR frac >= 10::numeric ^ prec THEN NULL
                WHEN prec <= 6 THEN frac * (10::numeric ^ (6 - prec))::bigint
                ELSE frac / 10 END $$"""

_FROM_PARTS = [
    """CREATE OR REPLACE FUNCTION tsqlb_datefromparts(y bigint, m bigint, d bigint)
       RETURNS text LANGUAGE sql IMMUTABLE AS $$
       SELECT tsqlb_from_parts('date', ARRAY[y, m, d, 0, 0, 0, 0], true) $$""",
    """CREATE OR REPLACE FUNCTION tsqlb_datetimefromparts(y bigint, m bigint, d bigint,
         h bigint, mi bigint, s bigint, ms bigint) RETURNS text LANGUAGE sql IMMUTABLE AS $$
       SELECT tsqlb_from_parts('datetime', ARRAY[y, m, d, h, mi, s, ms * 1000],
                               ms BETWEEN 0 AND 999) $$""",
    """CREATE OR REPLACE FUNCTION tsqlb_datetime2fromparts(y bigint, m bigint, d bigint,
         h bigint, mi bigint, s bigint, frac bigint, prec bigint) RETURNS text
       LANGUAGE sql IMMUTABLE AS $$
       SELECT tsqlb_from_parts('datetime2', ARRAY[y, m, d, h, mi, s,
                                                  coalesce(tsqlb_fraction_micro(frac, prec), 0)],
                               tsqlb_fraction_micro(frac, prec) IS NOT NULL) $$""",
    """CREATE OR REPLACE FUNCTION tsqlb_smalldatetimefromparts(y bigint, m bigint, d bigint,
         h bigint, mi bigint) RETURNS text LANGUAGE sql IMMUTABLE AS $$
       SELECT tsqlb_from_parts('smalldatetime', ARRAY[y, m, d, h, mi, 0, 0], true) $$""",
    """CREATE OR REPLACE FUNCTION tsqlb_timefromparts(h bigint, mi bigint, s bigint,
         frac bigint, prec bigint) RETURNS text LANGUAGE sql IMMUTABLE AS $$
       SELECT tsqlb_from_parts('time', ARRAY[1900, 1, 1, h, mi, s,
                                             coalesce(tsqlb_fraction_micro(frac, prec), 0)],
                               tsqlb_fraction_micro(frac, prec) IS NOT NULL) $$""",
]

# A date column of the engine's own tables (timestamp) as the storage text of its T-SQL
# type ``spec``, rounded as that type stores it (backend.virtual_sql); text is already so.
_READ_DATE = [
    """CREATE OR REPLACE FUNCTION tsqlb_read_date(v timestamp, spec text) RETURNS text
       LANGUAGE sql IMMUTABLE AS $$ SELECT tsqlb_date_value(v, NULL, spec) $$""",
    """CREATE OR REPLACE FUNCTION tsqlb_read_date(v text, spec text) RETURNS text
       LANGUAGE sql IMMUTABLE AS $$ SELECT v $$""",
]

FUNCTIONS: list[str] = [
    *_READ_DATE, _PART_NAME, _TS, _OFFSET, _OFFSET_MINUTES, _DATEPART, _DATEPART_7, _DATENAME, _DATEADD,
    _UNITS, _DATEDIFF_OF, *_DATEDIFFS, _EOMONTH, _EOMONTH_0, _MAKE, _FRACTION, *_FROM_PARTS,
]
