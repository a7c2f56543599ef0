"""CAST / CONVERT in queries on PostgreSQL, as sqlglot expressions.

The conversion runs in the server function ``tsqlb_cvt`` (:mod:`.convert_sql`), which returns
the engine's storage text of the target type; :func:`from_storage_text` turns such text into
the backend value of the type. Used by this backend's query rewrites (``rewrites.convert``),
its xml methods (``xml_methods.py``) and the UDF look-ups, which bind values computed in Python as storage text.
"""

from __future__ import annotations

from sqlglot import exp

from ...stored_values import STRING_TYPES
from .strings_sql import CI_COLLATION


def cast_to(value: exp.Expression, spec: str, source: str | exp.Expression | None = None,
            style: exp.Expression | None = None, try_: bool = False) -> exp.Expression:
    """``CAST(value AS spec)`` for PostgreSQL, producing the engine's storage form (dates
    and uniqueidentifiers as canonical text, strings cut to their length, binary as bytea).

    The conversion runs in ``tsqlb_cvt`` (``convert_sql.py``), overloaded on the value's
    backend type, so it follows SQL Server's rules whatever the value's static type;
    ``source`` (the value's type spec when the binder knows it) says how text and numbers
    read (varchar or nvarchar bytes, an int's size), ``try_`` gives NULL instead of an error
    (TRY_CAST / TRY_CONVERT); an expression ``source`` gives the type per row (a
    sql_variant's base type), NULL read as unknown."""
    src = exp.Coalesce(this=source, expressions=[exp.Literal.string("")]) \
        if isinstance(source, exp.Expression) else exp.Literal.string(source or "")
    call = exp.Anonymous(this="tsqlb_cvt", expressions=[
        value, exp.Literal.string(spec), src,
        style if style is not None else exp.Cast(this=exp.Null(),
                                                 to=exp.DataType.build("int")),
        exp.Boolean(this=try_)])
    out = from_storage_text(call, spec)
    out.set("_explicit", True)  # a user's conversion: uncast() must keep it
    return out


def from_storage_text(text: exp.Expression, spec: str) -> exp.Expression:
    """The backend value of ``spec`` from its storage text (as ``tsqlb_cvt`` returns it, or
    a value computed in Python and bound as text, e.g. a UDF's result looked up in a JSON
    map)."""
    name, _, args = spec.partition("(")
    if name in ("int", "bigint", "smallint", "tinyint", "bit"):
        return exp.Cast(this=text, to=exp.DataType.build("bigint"))
    if name in ("decimal", "numeric", "money", "smallmoney"):
        target = f"numeric({args.rstrip(')')})" if args else "numeric(19,4)"
        return exp.Cast(this=text, to=exp.DataType.build(target, dialect="postgres"))
    if name in ("float", "real"):
        return exp.Cast(this=text, to=exp.DataType.build("double precision",
                                                         dialect="postgres"))
    if name in ("binary", "varbinary", "image"):
        return exp.Anonymous(this="decode", expressions=[text, exp.Literal.string("hex")])
    if name in STRING_TYPES:
        # SQL Server gives a converted string the database's (case-insensitive) collation.
        return exp.Collate(this=text, expression=exp.Var(this=CI_COLLATION))
    return text


def jsonb(value: exp.Expression) -> exp.Expression:
    """``value`` cast to jsonb."""
    return exp.Cast(this=value, to=exp.DataType.build("jsonb", dialect="postgres"))
