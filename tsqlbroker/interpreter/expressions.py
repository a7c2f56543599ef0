"""Expression compilation: AST expressions → ``CExpr`` (static type + evaluator closure).

Types are resolved once, at compile time, through the value library (``types``, ``convert``,
``operators``, ``functions``); the closures do no type dispatch. The hot shapes of
procedural code — an integer variable compared with or added to an integer — get direct
closures (no generic operator call). Expressions whose type is only known at run time (a
scalar subquery's column) are typed ``sql_variant`` and resolve their operators per actual
type, cached.
"""

from __future__ import annotations

import operator as _op
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any

from tsqlbroker.errors import MESSAGES, TSqlError, tsql_error
from tsqlbroker.grammar import ast

from ..values import convert as C
from ..values import operators as O
from ..values import precedence
from ..values import types as T
from ..values.parse_builtins import check_parse_arguments, parse_value
from ..values.variant_props import variant_base_type
from . import ast_types
from .compiler import BaseFn, CExpr, Compiler, EvalFn, const_expr, expr_handler

if TYPE_CHECKING:
    from .frames import Frame

# The static type of values whose type only shows at run time (subquery results).
DYNAMIC = T.SQL_VARIANT


def convert_fn(src: T.SqlType, dst: T.SqlType) -> Callable[[Any], Any]:
    """Like :func:`~tsqlbroker.values.convert.conversion_for_assignment` but always a
    callable."""
    conv = C.conversion_for_assignment(src, dst)
    return conv if conv is not None else (lambda v: v)


def _try_const(t: T.SqlType, fn: EvalFn, predicate: bool = False) -> CExpr:
    """``CExpr`` for an expression whose operands are all constant: folded unless it raises
    (the error then happens at run time, where SQL Server raises it)."""
    try:
        value = fn(None)  # type: ignore[arg-type]
    except TSqlError:
        return CExpr(t, fn, predicate=predicate)
    return CExpr(t, lambda _f, _v=value: _v, True, value, predicate)


# --------------------------------------------------------------------------------------------
# Leaves
# --------------------------------------------------------------------------------------------
@expr_handler(ast.Literal)
def compile_literal(c: Compiler, node: ast.Literal) -> CExpr:
    t, value = ast_types.literal_type(node)
    return const_expr(t, value)


@expr_handler(ast.Variable)
def compile_variable(c: Compiler, node: ast.Variable) -> CExpr:
    info = c.var(node.name, node)
    slot = info.slot

    def read(f: Frame) -> Any:
        return f.v[slot]
    return CExpr(info.type, read, base=info.base_fn())


@expr_handler(ast.Collate)
def compile_collate(c: Compiler, node: ast.Collate) -> CExpr:
    # Comparisons are case-insensitive by default (the value library's collation); an explicit
    # COLLATE does not change the value.
    return c.expr(node.expr)


# Niladic functions written without parentheses parse as column names.
_NILADIC = {"current_user": "current_user", "session_user": "session_user",
            "system_user": "system_user", "user": "user",
            "current_timestamp": "current_timestamp"}


@expr_handler(ast.Column)
def compile_column(c: Compiler, node: ast.Column) -> CExpr:
    if len(node.parts) == 1 and node.parts[0].lower() in _NILADIC:
        name = _NILADIC[node.parts[0].lower()]
        return c.expr(ast.FunctionCall(ast.ObjectName(name), span=node.span))
    # Columns only exist in queries the storage engine runs; here there is no FROM clause.
    raise c.bind_error(207, node, ".".join(node.parts))


@expr_handler(ast.Star)
def compile_star(c: Compiler, node: ast.Star) -> CExpr:
    raise c.bind_error(263 if 263 in _messages() else 207, node, "*")


def _messages() -> dict[int, Any]:
    return MESSAGES


# --------------------------------------------------------------------------------------------
# Operators
# --------------------------------------------------------------------------------------------
_CMP_OPS: dict[str, Callable[[Any, Any], bool]] = {
    "=": _op.eq, "<>": _op.ne, "!=": _op.ne, "<": _op.lt, ">": _op.gt, "<=": _op.le,
    ">=": _op.ge, "!<": _op.ge, "!>": _op.le,
}
_COMPARISONS = frozenset(_CMP_OPS)
_INT_ARITH: dict[str, Callable[[Any, Any], Any]] = {"+": _op.add, "-": _op.sub, "*": _op.mul}


def _overflow(t: T.SqlType) -> TSqlError:
    return tsql_error(8115, "expression", t.name)


@expr_handler(ast.Unary)
def compile_unary(c: Compiler, node: ast.Unary) -> CExpr:
    op = node.op.lower()
    if op == "not":
        inner = c.predicate(node.operand)

        def not_(f: Frame) -> bool | None:
            v = inner(f)
            return None if v is None else not v
        return CExpr(T.BIT, not_, predicate=True)
    # A negative numeric literal is a literal (``-2147483648`` is an int).
    if op == "-" and isinstance(node.operand, ast.Literal) and node.operand.kind in (
            "int", "decimal", "float", "money"):
        lit = node.operand
        neg = ast.Literal(lit.kind, -lit.value if lit.value is not None else None,
                          "-" + (lit.text or str(lit.value)))
        return compile_literal(c, neg)
    e = c.expr(node.operand)
    t, fn = O.unary(op, e.type)
    ef = e.fn

    def run(f: Frame) -> Any:
        return fn(ef(f))
    return _try_const(t, run) if e.const else CExpr(t, run)


# Arithmetic chains at least this long (``1 + 1 + …``) compile and run in a loop rather than
# by recursion, which would go as deep as the chain is long.
_CHAIN_MIN = 16


@expr_handler(ast.Binary)
def compile_binary(c: Compiler, node: ast.Binary) -> CExpr:
    op = node.op.lower()
    if op in ("and", "or"):
        return _logical(c, op, node)
    if op not in _COMPARISONS:
        chain = _arith_chain(node)
        if len(chain) >= _CHAIN_MIN:
            return _compile_chain(c, chain)
    left = c.expr(node.left)
    right = c.expr(node.right)
    if op in _COMPARISONS:
        return _comparison(op, left, right)
    return _arith(op, left, right)


def _logical(c: Compiler, op: str, node: ast.Binary) -> CExpr:
    lf = c.predicate(node.left)
    rf = c.predicate(node.right)
    if op == "and":
        def and_(f: Frame) -> bool | None:
            a = lf(f)
            if a is False:
                return False
            b = rf(f)
            if b is False:
                return False
            return None if a is None or b is None else True
        return CExpr(T.BIT, and_, predicate=True)

    def or_(f: Frame) -> bool | None:
        a = lf(f)
        if a is True:
            return True
        b = rf(f)
        if b is True:
            return True
        return None if a is None or b is None else False
    return CExpr(T.BIT, or_, predicate=True)


def _is_plain_int(t: T.SqlType) -> bool:
    return t.name in ("int", "bigint", "smallint", "tinyint")


def _comparison(op: str, left: CExpr, right: CExpr) -> CExpr:
    lf, rf = left.fn, right.fn
    if left.type == DYNAMIC or right.type == DYNAMIC:
        cmp = _dynamic_comparison(op, left.type, right.type)

        def dyn(f: Frame) -> bool | None:
            return cmp(lf(f), rf(f))
        return CExpr(T.BIT, dyn, predicate=True)
    if _is_plain_int(left.type) and _is_plain_int(right.type):
        pyop = _CMP_OPS[op]
        if right.const:
            k = right.value
            if k is None:
                return CExpr(T.BIT, lambda _f: None, True, None, True)

            def cmp_const(f: Frame) -> bool | None:
                a = lf(f)
                return None if a is None else pyop(a, k)
            return CExpr(T.BIT, cmp_const, predicate=True)

        def cmp_int(f: Frame) -> bool | None:
            a = lf(f)
            if a is None:
                return None
            b = rf(f)
            return None if b is None else pyop(a, b)
        return CExpr(T.BIT, cmp_int, predicate=True)
    cmp = O.comparison(op, left.type, right.type)
    if right.const:
        k = right.value

        def cmp_k(f: Frame) -> bool | None:
            return cmp(lf(f), k)
        out = cmp_k
    else:
        def cmp_any(f: Frame) -> bool | None:
            return cmp(lf(f), rf(f))
        out = cmp_any
    if left.const and right.const:
        return _try_const(T.BIT, out, predicate=True)
    return CExpr(T.BIT, out, predicate=True)


def _arith_chain(node: ast.Binary) -> list[ast.Binary]:
    """``node`` and the arithmetic operators nested in each one's left operand, outermost
    first (``a - b + c`` is ``(a - b) + c``)."""
    chain = [node]
    inner = node.left
    while isinstance(inner, ast.Binary) and inner.op.lower() not in _COMPARISONS \
            and inner.op.lower() not in ("and", "or"):
        chain.append(inner)
        inner = inner.left
    return chain


def _compile_chain(c: Compiler, chain: list[ast.Binary]) -> CExpr:
    """A long arithmetic chain: typed operator by operator from the innermost out, as the
    nested form would be, and evaluated by one loop over the operands."""
    first = c.expr(chain[-1].left)
    t = first.type
    const = first.const
    steps: list[tuple[Callable[[Any, Any], Any], EvalFn]] = []
    for node in reversed(chain):
        right = c.expr(node.right)
        t, step = _combiner(node.op.lower(), t, right.type)
        steps.append((step, right.fn))
        const = const and right.const
    head = first.fn
    pairs = tuple(steps)

    def run(f: Frame) -> Any:
        a = head(f)
        for step, rf in pairs:
            a = step(a, rf(f))
        return a
    return _try_const(t, run) if const else CExpr(t, run)


def _combiner(op: str, lt: T.SqlType, rt: T.SqlType
              ) -> tuple[T.SqlType, Callable[[Any, Any], Any]]:
    """The result type of ``op`` and the function of two values computing it (NULL in,
    NULL out; integer overflow as Msg 8115)."""
    if lt == DYNAMIC or rt == DYNAMIC:
        return DYNAMIC, dynamic_binary(op, lt, rt)
    t, fn = O.binary(op, lt, rt)
    if op in _INT_ARITH and _is_plain_int(lt) and _is_plain_int(rt) and _is_plain_int(t):
        lo, hi = T.INT_RANGES[t.name]
        pyop = _INT_ARITH[op]

        def int_step(a: Any, b: Any) -> Any:
            if a is None or b is None:
                return None
            r = pyop(a, b)
            if lo <= r <= hi:
                return r
            raise _overflow(t)
        return t, int_step
    return t, fn


def _arith(op: str, left: CExpr, right: CExpr) -> CExpr:
    lf, rf = left.fn, right.fn
    if left.type == DYNAMIC or right.type == DYNAMIC:
        fn = dynamic_binary(op, left.type, right.type)

        def dyn(f: Frame) -> Any:
            return fn(lf(f), rf(f))
        return CExpr(DYNAMIC, dyn)
    t, fn = O.binary(op, left.type, right.type)
    if op == "%" and _is_plain_int(left.type) and _is_plain_int(t) and right.const \
            and isinstance(right.value, int) and right.value != 0:
        m = abs(right.value)

        def mod_k(f: Frame) -> Any:
            a = lf(f)
            if a is None:
                return None
            return a % m if a >= 0 else -((-a) % m)  # the sign follows the dividend
        return CExpr(t, mod_k)
    if op in _INT_ARITH and _is_plain_int(left.type) and _is_plain_int(right.type) \
            and _is_plain_int(t):
        lo, hi = T.INT_RANGES[t.name]
        pyop = _INT_ARITH[op]
        if right.const and right.value is not None:
            k = right.value

            def int_k(f: Frame) -> Any:
                a = lf(f)
                if a is None:
                    return None
                r = pyop(a, k)
                if lo <= r <= hi:
                    return r
                raise _overflow(t)
            out = int_k
        else:
            step = _combiner(op, left.type, right.type)[1]

            def int_op(f: Frame) -> Any:
                return step(lf(f), rf(f))
            out = int_op
    elif right.const:
        k = right.value

        def bin_k(f: Frame) -> Any:
            return fn(lf(f), k)
        out = bin_k
    else:
        def bin_any(f: Frame) -> Any:
            return fn(lf(f), rf(f))
        out = bin_any
    if left.const and right.const:
        return _try_const(t, out)
    return CExpr(t, out)


def dynamic_binary(op: str, lt: T.SqlType, rt: T.SqlType) -> Callable[[Any, Any], Any]:
    """A binary operator resolved per actual value types (run-time-typed operands)."""
    cache: dict[tuple[str, str], Callable[[Any, Any], Any]] = {}

    def run(a: Any, b: Any) -> Any:
        if a is None or b is None:
            return None
        at = C.variant_type(a) if lt == DYNAMIC else lt
        bt = C.variant_type(b) if rt == DYNAMIC else rt
        key = (at.spec(), bt.spec())
        fn = cache.get(key)
        if fn is None:
            fn = cache[key] = O.binary(op, at, bt)[1]
        return fn(a, b)
    return run


def _dynamic_comparison(op: str, lt: T.SqlType, rt: T.SqlType
                        ) -> Callable[[Any, Any], bool | None]:
    cache: dict[tuple[str, str], Callable[[Any, Any], bool | None]] = {}

    def run(a: Any, b: Any) -> bool | None:
        if a is None or b is None:
            return None
        at = C.variant_type(a) if lt == DYNAMIC else lt
        bt = C.variant_type(b) if rt == DYNAMIC else rt
        key = (at.spec(), bt.spec())
        fn = cache.get(key)
        if fn is None:
            fn = cache[key] = O.comparison(op, at, bt)
        return fn(a, b)
    return run


def comparison_fn(op: str, lt: T.SqlType, rt: T.SqlType) -> Callable[[Any, Any], bool | None]:
    """``fn(a, b) -> True | False | None`` comparing values of the two static types."""
    if lt == DYNAMIC or rt == DYNAMIC:
        return _dynamic_comparison(op, lt, rt)
    return O.comparison(op, lt, rt)


# --------------------------------------------------------------------------------------------
# Predicates
# --------------------------------------------------------------------------------------------
@expr_handler(ast.IsNull)
def compile_is_null(c: Compiler, node: ast.IsNull) -> CExpr:
    e = c.expr(node.expr)
    ef = e.fn
    if e.predicate:  # IS NULL of a condition is not T-SQL; treat the value
        raise c.bind_error(4145, node, "IS")
    if node.negated:
        return CExpr(T.BIT, lambda f: ef(f) is not None, predicate=True)
    return CExpr(T.BIT, lambda f: ef(f) is None, predicate=True)


@expr_handler(ast.Between)
def compile_between(c: Compiler, node: ast.Between) -> CExpr:
    e, lo, hi = c.expr(node.expr), c.expr(node.low), c.expr(node.high)
    ge = comparison_fn(">=", e.type, lo.type)
    le = comparison_fn("<=", e.type, hi.type)
    ef, lof, hif = e.fn, lo.fn, hi.fn
    neg = node.negated

    def between(f: Frame) -> bool | None:
        v = ef(f)
        a = ge(v, lof(f))
        if a is False:
            return neg
        b = le(v, hif(f))
        if b is False:
            return neg
        if a is None or b is None:
            return None
        return not neg
    return CExpr(T.BIT, between, predicate=True)


@expr_handler(ast.InList)
def compile_in_list(c: Compiler, node: ast.InList) -> CExpr:
    e = c.expr(node.expr)
    items = [c.expr(i) for i in node.items]
    pairs = [(comparison_fn("=", e.type, i.type), i.fn) for i in items]
    ef = e.fn
    neg = node.negated

    def in_list(f: Frame) -> bool | None:
        v = ef(f)
        return in_outcome((eq(v, itf(f)) for eq, itf in pairs), neg)
    return CExpr(T.BIT, in_list, predicate=True)


def in_outcome(matches: Iterable[bool | None], negated: bool) -> bool | None:
    """Three-valued ``IN``: TRUE at the first comparison that is TRUE (the rest are not
    evaluated), else UNKNOWN when one was UNKNOWN, else FALSE; ``NOT IN`` the reverse."""
    unknown = False
    for r in matches:
        if r:
            return not negated
        if r is None:
            unknown = True
    return None if unknown else negated


def _text_of(c: Compiler, node: ast.Like, t: T.SqlType, position: int
             ) -> Callable[[Any], Any]:
    """The converter of LIKE's argument ``position`` to text (identity for strings); Msg
    8116 for a type that does not convert (xml, sql_variant …)."""
    if t.is_string:
        return lambda v: v
    try:
        return convert_fn(t, T.NVARCHAR_MAX if t.is_unicode else T.VARCHAR_MAX)
    except TSqlError:
        raise c.bind_error(8116, node, t.name, position, "like") from None


@expr_handler(ast.Like)
def compile_like(c: Compiler, node: ast.Like) -> CExpr:
    e, p = c.expr(node.expr), c.expr(node.pattern)
    esc = c.expr(node.escape) if node.escape is not None else None
    # "If any one of the arguments isn't of character string data type, [it is converted]
    # to character string data type, if it's possible" (LIKE): 1.5 becomes '1.5'.
    to_s, pat_s = _text_of(c, node, e.type, 1), _text_of(c, node, p.type, 2)
    ef, pf = e.fn, p.fn
    escf = esc.fn if esc is not None else (lambda _f: None)
    esc_s = _text_of(c, node, esc.type, 3) if esc is not None else (lambda v: v)
    neg = node.negated
    like = O.like

    def like_(f: Frame) -> bool | None:
        v = ef(f)
        pat = pf(f)
        if v is None or pat is None:
            return None
        r = like(to_s(v), pat_s(pat), esc_s(escf(f)))
        if r is None:
            return None
        return (not r) if neg else bool(r)
    return CExpr(T.BIT, like_, predicate=True)


# --------------------------------------------------------------------------------------------
# CASE, CAST, CONVERT
# --------------------------------------------------------------------------------------------
@expr_handler(ast.Case)
def compile_case(c: Compiler, node: ast.Case) -> CExpr:
    results = [c.expr(r) for _w, r in node.whens]
    else_ = c.expr(node.else_) if node.else_ is not None else None
    rtype = precedence.common_type([r.type for r in results] + ([else_.type] if else_ else []))
    rfns = [_coerce(r, rtype) for r in results]
    elsef = _coerce(else_, rtype) if else_ is not None else (lambda _f: None)
    if node.operand is not None:
        op = c.expr(node.operand)
        opf = op.fn
        tests = []
        for (w, _r), rf in zip(node.whens, rfns):
            we = c.expr(w)
            tests.append((comparison_fn("=", op.type, we.type), we.fn, rf))

        def simple_case(f: Frame) -> Any:
            v = opf(f)
            for eq, wf, rf in tests:
                if eq(v, wf(f)):
                    return rf(f)
            return elsef(f)
        return CExpr(rtype, simple_case)
    conds = [(c.predicate(w), rf) for (w, _r), rf in zip(node.whens, rfns)]

    def searched_case(f: Frame) -> Any:
        for cond, rf in conds:
            if cond(f):
                return rf(f)
        return elsef(f)
    return CExpr(rtype, searched_case)


def _coerce(e: CExpr, t: T.SqlType) -> EvalFn:
    """``e``'s evaluator with its value converted to ``t`` (constants converted once)."""
    conv = C.conversion_for_assignment(e.type, t)
    ef = e.fn
    if conv is None:
        return ef
    if e.const:
        try:
            value = conv(e.value)
        except TSqlError:
            pass  # the conversion error belongs to run time
        else:
            return lambda _f: value
    return lambda f: conv(ef(f))


def coerce(e: CExpr, t: T.SqlType) -> EvalFn:
    """Public form of :func:`_coerce` for statement handlers."""
    return _coerce(e, t)


@expr_handler(ast.Cast)
def compile_cast(c: Compiler, node: ast.Cast) -> CExpr:
    e = c.expr(node.expr)
    t = ast_types.type_from_ast(node.type, "cast")
    return _conversion(e, t, None, node.try_)


@expr_handler(ast.Convert)
def compile_convert(c: Compiler, node: ast.Convert) -> CExpr:
    e = c.expr(node.expr)
    t = ast_types.type_from_ast(node.type, "cast")
    style = None
    if node.style is not None:
        s = c.expr(node.style)
        if not s.const:
            raise c.bind_error_text(node.style, "The style argument of CONVERT must be a "
                                                "constant.", 8116)
        style = None if s.value is None else int(s.value)
    return _conversion(e, t, style, node.try_)


@expr_handler(ast.Parse)
def compile_parse(c: Compiler, node: ast.Parse) -> CExpr:
    """PARSE / TRY_PARSE: the rules and the reading are values/parse_builtins.py's."""
    e = c.expr(node.expr)
    t = ast_types.type_from_ast(node.type, "cast")
    check_parse_arguments(e.type, t, "TRY_PARSE" if node.try_ else "PARSE")
    culture = c.expr(node.culture) if node.culture is not None else None
    # The culture is nvarchar: another type converts to it (USING 0 is culture '0', Msg 9818).
    ef, cf, try_ = e.fn, _coerce(culture, T.nvarchar(4000)) if culture is not None \
        else None, node.try_

    def parse(f: Frame) -> Any:
        name = cf(f) if cf is not None else None
        if cf is not None and name is None:
            return None
        return parse_value(ef(f), t, name, try_=try_)
    if e.const and (culture is None or culture.const):
        return _try_const(t, parse)
    return CExpr(t, parse)


def _conversion(e: CExpr, t: T.SqlType, style: int | None, try_: bool) -> CExpr:
    ef = e.fn
    if t == DYNAMIC:  # CAST(x AS sql_variant): the value keeps x's type as its base type
        src, known = e.type, e.base
        if known is None and src != DYNAMIC:
            variant_base_type(src, None)  # Msg 206 for a type a sql_variant cannot hold

        def base(f: Frame, v: Any) -> T.SqlType:
            return known(f, v) if known is not None else variant_base_type(src, v)
        return CExpr(t, ef, e.const, e.value, base=base)
    conv = C.converter(e.type, t, style=style, try_=try_)
    if e.base is not None:  # a sql_variant converts as a value of its base type
        conv = _from_typed_variant(e.base, t, style, try_)

        def cast_typed(f: Frame) -> Any:
            return conv(f, ef(f))
        return CExpr(t, cast_typed)

    def cast(f: Frame) -> Any:
        return conv(ef(f))
    if e.const:
        return _try_const(t, cast)
    return CExpr(t, cast)


def _from_typed_variant(base: BaseFn, t: T.SqlType, style: int | None, try_: bool
                        ) -> Callable[[Frame, Any], Any]:
    """``conv(frame, value)``: a sql_variant converted to ``t`` as a value of its base type
    (money as money, not as the decimal its Python value looks like), one converter per
    base type."""
    cache: dict[T.SqlType, Callable[[Any], Any]] = {}

    def conv(f: Frame, v: Any) -> Any:
        if v is None:
            return None
        bt = base(f, v)
        c = cache.get(bt)
        if c is None:
            c = cache[bt] = C.converter(bt, t, style=style, try_=try_)
        return c(v)
    return conv
