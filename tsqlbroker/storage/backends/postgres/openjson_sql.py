"""OPENJSON of a column in PostgreSQL queries (``CROSS APPLY OPENJSON(t.c) [WITH (…)]``).

``tsqlb_openjson(json, path, schema)`` returns one text array per row: key, value and type
(the default schema) or the WITH columns, which the query converts to their types
(``engine/apply.py``). It follows ``values.json_builtins.openjson_rows``: the ``json`` type
(not jsonb) keeps members in document order and numbers as written; ``schema`` is the JSON
text of ``[name, path, AS JSON]`` per WITH column; lax paths that lead nowhere give no
rows (or NULL), strict ones SQL Server's errors.
"""

from __future__ import annotations

# '[lax|strict] $.a."b c"[0]' → (strict, '{a,b c,0}') for the #> operator: the one reading
# of a JSON path in SQL (OPENJSON, JSON_QUERY), as values/json_builtins.parse_path reads it
# (Msg 13607's position counts from the '$').
_STEPS = r"""CREATE OR REPLACE FUNCTION tsqlb_json_steps(p text, OUT is_strict boolean,
                                                OUT steps text[])
    LANGUAGE plpgsql IMMUTABLE AS $$
    DECLARE
      path text COLLATE "C" := btrim(p COLLATE "C");
      rest text COLLATE "C";
      m text[];
    BEGIN
      is_strict := false;
      steps := '{}';
      IF lower(path) LIKE 'strict %' THEN
        is_strict := true;
        path := ltrim(substr(path, 8));
      ELSIF lower(path) LIKE 'lax %' THEN
        path := ltrim(substr(path, 5));
      END IF;
      IF left(path, 1) IS DISTINCT FROM '$' THEN
        RAISE EXCEPTION USING ERRCODE = 'TSQLE', DETAIL = '13607', MESSAGE = format(
          'JSON path is not properly formatted. Unexpected character ''%s'' is found at '
          'position 1.', left(path, 1));
      END IF;
      rest := substr(path, 2);
      WHILE rest <> '' LOOP
        m := regexp_match(rest,
          '^(\.(?:"((?:[^"\\]|\\.)*)"|([A-Za-z_$][A-Za-z0-9_$]*))|\[\s*([0-9]+)\s*\])');
        IF m IS NULL THEN
          RAISE EXCEPTION USING ERRCODE = 'TSQLE', DETAIL = '13607', MESSAGE = format(
            'JSON path is not properly formatted. Unexpected character ''%s'' is found at '
            'position %s.', left(rest, 1), length(path) - length(rest) + 1);
        END IF;
        steps := steps || COALESCE(('"' || m[2] || '"')::json #>> '{}', m[3], m[4]);
        rest := substr(rest, length(m[1]) + 1);
      END LOOP;
    END $$"""

# A JSON value as OPENJSON's value column shows it, and its type number.
_TEXT = """CREATE OR REPLACE FUNCTION tsqlb_json_text(v json) RETURNS text
    LANGUAGE sql IMMUTABLE AS $$
      SELECT CASE json_typeof(v) WHEN 'null' THEN NULL WHEN 'string' THEN v #>> '{}'
                                 ELSE v::text END $$"""
_TYPE = """CREATE OR REPLACE FUNCTION tsqlb_json_type(v json) RETURNS text
    LANGUAGE sql IMMUTABLE AS $$
      SELECT CASE json_typeof(v) WHEN 'null' THEN '0' WHEN 'string' THEN '1'
                                 WHEN 'number' THEN '2' WHEN 'boolean' THEN '3'
                                 WHEN 'array' THEN '4' ELSE '5' END $$"""


def _raise(number: int, text: str) -> str:
    return (f"RAISE EXCEPTION USING ERRCODE = 'TSQLE', DETAIL = '{number}', "
            f"MESSAGE = '{text}';")


# JSON_QUERY (as_json) or JSON_VALUE of a document at a path read by tsqlb_json_steps: the
# object or array as the source writes it, or the scalar as text; NULL (lax) or SQL Server's
# error (strict) where there is none, as values/json_builtins.json_query / json_value say.
_AT = f"""CREATE OR REPLACE FUNCTION tsqlb_json_at(doc json, is_strict boolean, steps text[],
                                             as_json boolean)
    RETURNS text LANGUAGE plpgsql IMMUTABLE AS $$
    DECLARE
      sub json := doc #> steps;
      t text;
    BEGIN
      IF sub IS NULL THEN
        IF is_strict THEN {_raise(13608, "Property cannot be found on the specified JSON path.")}
        END IF;
        RETURN NULL;
      END IF;
      t := json_typeof(sub);
      IF as_json THEN
        IF t IN ('object', 'array') THEN RETURN sub::text; END IF;
        IF is_strict THEN
          {_raise(13624, "Object or array cannot be found in the specified JSON path.")}
        END IF;
        RETURN NULL;
      END IF;
      IF t IN ('object', 'array') THEN
        IF is_strict THEN
          {_raise(13623, "Scalar value cannot be found in the specified JSON path.")}
        END IF;
        RETURN NULL;
      END IF;
      IF length(tsqlb_json_text(sub)) > 4000 THEN
        IF is_strict THEN
          {_raise(13625, "String value in the specified JSON path would be truncated.")}
        END IF;
        RETURN NULL;
      END IF;
      RETURN tsqlb_json_text(sub);
    END $$"""

# One WITH column of one element: JSON_QUERY (AS JSON) or JSON_VALUE of it at its path; a
# scalar element has no columns.
_COLUMN = """CREATE OR REPLACE FUNCTION tsqlb_openjson_column(e json, p text, as_json boolean)
    RETURNS text LANGUAGE plpgsql IMMUTABLE AS $$
    DECLARE
      path record := tsqlb_json_steps(p);
    BEGIN
      IF json_typeof(e) NOT IN ('object', 'array') THEN RETURN NULL; END IF;
      RETURN tsqlb_json_at(e, path.is_strict, path.steps, as_json);
    END $$"""

_OPENJSON = f"""CREATE OR REPLACE FUNCTION tsqlb_openjson(j text, p text, schema text)
    RETURNS SETOF text[] LANGUAGE plpgsql IMMUTABLE AS $$
    DECLARE
      path record;
      doc json;
      node json;
      e json;
      r record;
      cols json;
      c json;
      one text[];
    BEGIN
      IF j IS NULL OR p IS NULL THEN RETURN; END IF;
      path := tsqlb_json_steps(p);
      BEGIN
        doc := j::json;
      EXCEPTION WHEN others THEN
        {_raise(13609, "JSON text is not properly formatted.")}
      END;
      node := doc #> path.steps;
      IF node IS NULL THEN
        IF path.is_strict THEN {_raise(13608, "Property cannot be found on the specified JSON path.")}
        END IF;
        RETURN;
      END IF;
      IF schema IS NULL THEN
        IF json_typeof(node) = 'object' THEN
          FOR r IN SELECT x.key AS k, x.value AS v FROM json_each(node) x LOOP
            RETURN NEXT ARRAY[r.k, tsqlb_json_text(r.v), tsqlb_json_type(r.v)];
          END LOOP;
        ELSIF json_typeof(node) = 'array' THEN
          FOR r IN SELECT (x.n - 1)::text AS k, x.v FROM json_array_elements(node)
                   WITH ORDINALITY AS x(v, n) LOOP
            RETURN NEXT ARRAY[r.k, tsqlb_json_text(r.v), tsqlb_json_type(r.v)];
          END LOOP;
        ELSE
          {_raise(13611, "Value referenced by JSON path is not an array or object and cannot "
                         "be opened with OPENJSON.")}
        END IF;
        RETURN;
      END IF;
      cols := schema::json;
      FOR e IN SELECT x.value FROM json_array_elements(CASE json_typeof(node)
                 WHEN 'array' THEN node ELSE json_build_array(node) END) x LOOP
        one := '{{}}';
        FOR c IN SELECT x.value FROM json_array_elements(cols) x LOOP
          one := one || tsqlb_openjson_column(e, c ->> 1, (c ->> 2)::boolean);
        END LOOP;
        RETURN NEXT one;
      END LOOP;
    END $$"""

FUNCTIONS: list[str] = [_STEPS, _TEXT, _TYPE, _AT, _COLUMN, _OPENJSON]
