"""JSON_OBJECT / JSON_ARRAY in transpiled queries: the JSON text built with plain SQL.

Each member is ``key:value`` text (NULL when the value is NULL and ABSENT ON NULL drops it);
``coalesce(member || ',', '')`` skips the dropped ones and ``rtrim(…, ',')`` takes off the
last separator (a JSON value never ends in a comma). Scalars become JSON with the backend's
own quoting (its rewrites' ``json_scalar``); a nested JSON_OBJECT /
JSON_ARRAY / JSON_QUERY is inserted as it is, as SQL Server does.
"""

from __future__ import annotations

from collections.abc import Callable

from sqlglot import exp

# The backend's JSON text of a scalar value (``rewrites.json_scalar``): ``(value, its T-SQL
# type spec or None)``.
JsonText = Callable[[exp.Expression, str | None], exp.Expression]

# JSON_ARRAY(…) as parsing.py hands it over (sqlglot has no NULL ON NULL clause).
JSON_ARRAY_ABSENT = "TSQLB_JSON_ARRAY_ABSENT"
JSON_ARRAY_NULLS = "TSQLB_JSON_ARRAY_NULLS"
_IS_JSON = "tsqlb_is_json"  # meta key on the built expressions


def _is_json(node: exp.Expression) -> bool:
    return bool(node.meta.get(_IS_JSON)) or (
        isinstance(node, exp.Anonymous) and node.name.lower().endswith("json_query"))


def _bit_json(value: exp.Expression) -> exp.Expression:
    """A bit as JSON: true or false (NULL stays NULL), on either backend."""
    return exp.Case(ifs=[exp.If(this=exp.Is(this=value, expression=exp.Null()), true=exp.Null()),
                         exp.If(this=exp.NEQ(this=value.copy(), expression=exp.Literal.number(0)),
                                true=exp.Literal.string("true"))],
                    default=exp.Literal.string("false"))


def _scalar(value: exp.Expression, json_text: JsonText, spec: str | None) -> exp.Expression:
    if spec is not None and spec.strip().lower() == "bit":
        return _bit_json(value)
    quoted = json_text(value, spec)
    # SQL Server escapes the solidus in JSON strings (as FOR JSON does).
    return exp.Anonymous(this="replace", expressions=[
        quoted, exp.Literal.string("/"), exp.Literal.string("\\/")])


def _build(members: list[tuple[exp.Expression | None, exp.Expression]], absent: bool,
           braces: str, json_text: JsonText, specs: list[str | None]) -> exp.Expression:
    body: exp.Expression = exp.Literal.string("")
    for (key, value), spec in zip(members, specs, strict=True):
        text = value if _is_json(value) else _scalar(value, json_text, spec)
        if not absent:
            text = exp.Coalesce(this=text, expressions=[exp.Literal.string("null")])
        if key is not None:
            text = exp.DPipe(this=exp.DPipe(this=_scalar(key, json_text, None),
                                            expression=exp.Literal.string(":")),
                             expression=text)
        body = exp.DPipe(this=body, expression=exp.Coalesce(
            this=exp.DPipe(this=text, expression=exp.Literal.string(",")),
            expressions=[exp.Literal.string("")]))
    trimmed = exp.Anonymous(this="rtrim", expressions=[body, exp.Literal.string(",")])
    built = exp.DPipe(this=exp.DPipe(this=exp.Literal.string(braces[0]), expression=trimmed),
                      expression=exp.Literal.string(braces[1]))
    built.meta[_IS_JSON] = True
    return built


def member_values(node: exp.Expression) -> list[exp.Expression] | None:
    """The values of a JSON_OBJECT / JSON_ARRAY call (None for another node): their types,
    taken before the rewrite, decide their JSON form (bit true/false, a decimal's scale)."""
    if isinstance(node, exp.JSONObject):
        return [kv.expression for kv in node.expressions]
    if isinstance(node, exp.Anonymous) and node.name.upper() in (JSON_ARRAY_ABSENT,
                                                                  JSON_ARRAY_NULLS):
        return list(node.expressions)
    return None


def json_build(node: exp.Expression, json_text: JsonText,
               specs: list[str | None]) -> exp.Expression | None:
    """The SQL for a (children already rewritten) JSON_OBJECT / JSON_ARRAY call, else None.
    ``json_text``: the backend's JSON text of a scalar; ``specs``: the T-SQL types of the
    values (:func:`member_values`, before the rewrite), in order."""
    if isinstance(node, exp.JSONObject):
        absent = str(node.args.get("null_handling") or "").upper().startswith("ABSENT")
        members: list[tuple[exp.Expression | None, exp.Expression]] = [
            (kv.this, kv.expression) for kv in node.expressions]
        return _build(members, absent, "{}", json_text, specs)
    if isinstance(node, exp.Anonymous) and node.name.upper() in (JSON_ARRAY_ABSENT,
                                                                  JSON_ARRAY_NULLS):
        return _build([(None, v) for v in node.expressions],
                      node.name.upper() == JSON_ARRAY_ABSENT, "[]", json_text, specs)
    return None
