"""Parsing one T-SQL statement with sqlglot (phase 1 of the transpiler).

:func:`parse_statement` tokenizes with sqlglot's T-SQL dialect, cuts out the clauses its
parser does not know — ``OUTPUT … [INTO …]``, ``UPDATE/DELETE TOP (n)``, ``CLUSTERED``, the
first ``FROM`` of ``DELETE FROM t FROM …`` — keeping them aside in :class:`Parsed`, rewrites
compound assignments (``SET a += 1``, ``SELECT @v += x``), and parses the rest. Parsed
statements are cached per text; callers get private copies to rewrite.
"""

from __future__ import annotations

import itertools
import re
import threading
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any

import sqlglot
from sqlglot import exp
from sqlglot.dialects.tsql import TSQL
from sqlglot.errors import ParseError as GlotParseError
from sqlglot.errors import TokenError
from sqlglot.tokens import TokenType

from ..errors import BindError, ParseError, TSqlError, tsql_error
from .jsonbuild import JSON_ARRAY_ABSENT, JSON_ARRAY_NULLS

TSQL_DIALECT = TSQL()


def not_supported(what: str) -> TSqlError:
    """The error for T-SQL the storage layer does not implement."""
    return tsql_error(40000, what)


@dataclass(frozen=True)
class Parsed:
    """A parsed statement and the clauses kept aside from sqlglot."""

    tree: exp.Expression
    top: exp.Expression | None = None
    output: tuple[exp.Expression, ...] | None = None
    output_into: exp.Expression | None = None
    text: str = ""
    # SELECT @v op= expr items: ('@v', 'op=') — the tree holds @v = expr.
    assign_ops: tuple[tuple[str, str], ...] = ()
    # OPTION (MAXRECURSION n); None when the statement does not give it (then 100).
    max_recursion: int | None = None


_END_OF_OUTPUT = {"FROM", "WHERE", "VALUES", "SELECT", "DEFAULT", "EXEC", "EXECUTE", "INTO",
                  ";"}
_parse_cache: OrderedDict[str, Parsed] = OrderedDict()
_parse_lock = threading.Lock()
_PARSE_CACHE_SIZE = 1024
stats = {"parse_hits": 0, "parse_misses": 0, "compile_hits": 0, "compile_misses": 0}


def syntax_error(err: Exception, sql: str) -> TSqlError:
    """Turn a sqlglot error into SQL Server's Msg 102 / 105."""
    if isinstance(err, TokenError):
        m = re.search(r"'(.*)", sql)
        return tsql_error(105, (m.group(1) if m else sql)[:40], cls=BindError)
    near = ""
    errors = getattr(err, "errors", None)
    line = 1
    if errors:
        near = str(errors[0].get("highlight") or "")
        line = int(errors[0].get("line") or 1)
    return ParseError(f"Incorrect syntax near '{near or sql.strip()[:20]}'.", line, 1)


def parse_statement(sql: str) -> Parsed:
    """Parse one T-SQL statement (cached per text; callers get a private copy)."""
    with _parse_lock:
        hit = _parse_cache.get(sql)
        if hit is not None:
            _parse_cache.move_to_end(sql)
            stats["parse_hits"] += 1
    if hit is None:
        stats["parse_misses"] += 1
        hit = _parse_uncached(sql)
        with _parse_lock:
            _parse_cache[sql] = hit
            while len(_parse_cache) > _PARSE_CACHE_SIZE:
                _parse_cache.popitem(last=False)
    return Parsed(
        hit.tree.copy(), hit.top.copy() if hit.top is not None else None,
        tuple(e.copy() for e in hit.output) if hit.output is not None else None,
        hit.output_into.copy() if hit.output_into is not None else None, sql, hit.assign_ops,
        hit.max_recursion)


# Two-character comparison operators; sqlglot knows neither !< nor !> (the same as >= / <=).
_OPERATOR_HALVES = frozenset({TokenType.LT, TokenType.GT, TokenType.NOT, TokenType.EQ})
_SPACED_OPERATORS = {"<>": "<>", "!=": "!=", "<=": "<=", ">=": ">=", "!<": ">=", "!>": "<="}


def _spaced_operators(sql: str, tokens: list[Any], edits: list[tuple[int, int, str]]) -> None:
    """``a < > b``, ``a ! = b``, ``a !> b``: SQL Server accepts blanks inside a two-character
    comparison operator; sqlglot reads two operators, so they are joined (blanks behind)."""
    for left, right in itertools.pairwise(tokens):
        if left.token_type not in _OPERATOR_HALVES or right.token_type not in _OPERATOR_HALVES:
            continue
        op = _SPACED_OPERATORS.get(left.text + right.text)
        if op is not None and (right.start == left.end + 1
                               or sql[left.end + 1:right.start].isspace()):
            edits.append((left.start, right.end, op.ljust(right.end - left.start + 1)))


def _plain_set_operands(tree: exp.Expression) -> None:
    """``(SELECT …) UNION (SELECT TOP 1 … ORDER BY …)``: SQLite refuses parenthesised
    operands, so an operand in parentheses without ORDER BY or TOP is the query itself, and
    one with its own TOP / ORDER BY / OFFSET (or a set operation in parentheses) becomes a
    derived table, as SQL Server reads it."""
    for node in list(tree.find_all(exp.Union, exp.Except, exp.Intersect)):
        for key in ("this", "expression"):
            operand = node.args.get(key)
            while isinstance(operand, exp.Subquery) and not operand.alias \
                    and isinstance(operand.this, exp.Subquery) and not operand.this.alias \
                    and not any(operand.args.get(k) for k in ("order", "limit", "offset")):
                operand = operand.this
            if not isinstance(operand, exp.Subquery) or operand.alias:
                continue
            if isinstance(operand.this, exp.Select) \
                    and not any(operand.this.args.get(k) for k in ("order", "limit", "offset")) \
                    and not any(operand.args.get(k) for k in ("order", "limit", "offset")):
                node.set(key, operand.this)
            else:
                node.set(key, _ordered_parenthesised_query(operand, always=True))


# What may follow a call's ")" in an OUTPUT list but not INSERT's query in parentheses.
_OUTPUT_GOES_ON = frozenset({"VALUES", "SELECT", "DEFAULT", "EXEC", "EXECUTE", "AS", "INTO",
                             ",", "+", "-", "*", "/", "%", "&", "|", "^", "."})


def _aliased_subqueries(tree: exp.Expression) -> None:
    """``SELECT name = (SELECT …)``: sqlglot keeps the name on the subquery itself; made the
    select-list alias it is (the column's name, and no derived-table alias in the SQL)."""
    for select in list(tree.find_all(exp.Select)):
        for proj in list(select.expressions):
            alias = proj.args.get("alias") if isinstance(proj, exp.Subquery) else None
            if alias is None:
                continue
            proj.set("alias", None)
            proj.replace(exp.Alias(this=proj.copy(), alias=alias.this if isinstance(
                alias, exp.TableAlias) else alias))


def _query_paren(first: str, words: list[str], k: int) -> bool:
    """Whether ``words[k]`` opens INSERT's query in parentheses (``INSERT t OUTPUT
    inserted.a (SELECT …)``), which ends the OUTPUT clause, as the grammar reads it: not
    when what follows its ")" continues the OUTPUT list (``OUTPUT dbo.f((SELECT 1)) AS o
    VALUES …`` calls the function)."""
    if first != "INSERT" or words[k] != "(" or k + 1 >= len(words) \
            or words[k + 1] not in ("SELECT", "("):
        return False
    star = words[k - 1] == "*" and k > 1 and words[k - 2] in (".", "OUTPUT")  # inserted.*
    if k == 0 or words[k - 1] in ("(", "OUTPUT") or words[k - 1] in _OUTPUT_GOES_ON and not star:
        return False  # a subquery inside the OUTPUT list (Msg 10706)
    close = _closing(words, k)
    after = words[close + 1:][:2] if close >= 0 else []
    if words[k + 1] == "SELECT" or not after:
        return True
    return not (after[0] in _OUTPUT_GOES_ON or len(after) > 1
                and after[1] in _OUTPUT_GOES_ON - {"AS", "."}
                and after[0] not in ("UNION", "EXCEPT", "INTERSECT", "ORDER", "OPTION"))


def _insert_query_in_parentheses(tree: exp.Insert) -> None:
    """``INSERT t [OUTPUT …] ((SELECT …))``: the query without its parentheses (those around
    a query with its own TOP / ORDER BY become a derived table)."""
    source = tree.expression
    while isinstance(source, exp.Subquery) and not source.alias \
            and not any(source.args.get(k) for k in ("order", "limit", "offset")):
        source = source.this
    if source is not tree.expression:
        tree.set("expression", _ordered_parenthesised_query(source))


# The alias of the derived table a query in parentheses becomes (its columns keep the names
# SQL Server gives the query's own, '' for an unnamed one).
PARENTHESISED_QUERY = "_ordered"


def _ordered_parenthesised_query(tree: exp.Expression, always: bool = False) -> exp.Expression:
    """``(SELECT TOP n … ORDER BY …) ORDER BY …`` as a statement: the query in parentheses
    keeps its own TOP and ORDER BY, and its rows are ordered again, as from a derived table
    (sqlglot reads the statement as an ordered subquery, which no store runs)."""
    if not isinstance(tree, exp.Subquery) or tree.alias or not always \
            and not any(tree.args.get(k) for k in ("order", "limit", "offset")):
        return tree
    derived = exp.Subquery(this=tree.this, alias=exp.TableAlias(
        this=exp.to_identifier(PARENTHESISED_QUERY, quoted=True)))
    query = exp.select(exp.Star()).from_(derived)
    for key in ("order", "limit", "offset"):
        if tree.args.get(key) is not None:
            query.set(key, tree.args[key])
    return query


# Table hints SQL Server accepts after an alias without WITH (FROM t a (NOLOCK)).
_TABLE_HINTS = frozenset({"NOLOCK", "READUNCOMMITTED", "UPDLOCK", "ROWLOCK", "HOLDLOCK",
                          "READPAST", "XLOCK", "TABLOCK", "TABLOCKX", "PAGLOCK", "NOWAIT",
                          "READCOMMITTED", "READCOMMITTEDLOCK", "REPEATABLEREAD",
                          "SERIALIZABLE", "FORCESEEK", "FORCESCAN", "NOEXPAND"})


def _hints_without_with(tokens: list[Any], words: list[str],
                        edits: list[tuple[int, int, str]]) -> None:
    """``FROM t a (NOLOCK, …)``: written ``WITH (…)`` for sqlglot, which otherwise reads
    several hints as column aliases."""
    for i in range(1, len(words) - 2):
        if words[i] == "(" and words[i + 1] in _TABLE_HINTS and words[i + 2] in (",", ")") \
                and words[i - 1] != "WITH" and tokens[i - 1].token_type in (
                    TokenType.VAR, TokenType.IDENTIFIER):
            edits.append((tokens[i].start, tokens[i].end, "WITH ("))


def _for_after_set_operation(tokens: list[Any], words: list[str], first: str,
                             edits: list[tuple[int, int, str]]) -> None:
    """``SELECT … UNION SELECT … FOR XML …``: the FOR clause formats the whole set
    operation; sqlglot would keep it on the last SELECT only, so the set operation becomes a
    derived table the clause applies to."""
    if first != "SELECT":
        return
    depth = 0
    set_op = False
    for i, w in enumerate(words):
        depth += w == "("
        depth -= w == ")"
        if depth != 0:
            continue
        if w in ("UNION", "EXCEPT", "INTERSECT"):
            set_op = True
        elif w == "ORDER":
            return  # ORDER BY of the whole set operation: left as it is
        elif w == "FOR" and set_op and i + 1 < len(words) and words[i + 1] in ("XML", "JSON"):
            edits.append((tokens[0].start, tokens[0].end, "SELECT * FROM (SELECT"))
            edits.append((tokens[i].start, tokens[i].end, ") AS __set FOR"))
            return


def _alter_table_forms(sql: str, tokens: list[Any], words: list[str], first: str,
                       cut: list[tuple[int, int]], edits: list[tuple[int, int, str]]
                       ) -> str | None:
    """ALTER TABLE forms of schema scripts sqlglot does not read: ``WITH CHECK | NOCHECK``
    before ADD (dropped: constraints are not checked against existing rows either way), and
    ``ADD [CONSTRAINT name] DEFAULT expr FOR column``, rewritten to ``ALTER COLUMN column SET
    DEFAULT expr``; returns the constraint's name then ('' for none), else None."""
    if first != "ALTER" or len(words) < 4 or words[1] != "TABLE":
        return None
    for i in range(2, len(words) - 2):
        if words[i] == "WITH" and words[i + 1] in ("CHECK", "NOCHECK") and words[i + 2] == "ADD":
            cut.append((tokens[i].start, tokens[i + 1].end))
            break
    if "ADD" not in words:
        return None
    add = words.index("ADD")
    j = add + 1
    name = ""
    if words[j:j + 1] == ["CONSTRAINT"] and j + 1 < len(words):
        name = tokens[j + 1].text
        j += 2
    if words[j:j + 1] != ["DEFAULT"] or "FOR" not in words[j:] or words[-1] == "FOR":
        return None
    at_for = len(words) - 1 - words[::-1].index("FOR")
    if at_for != len(words) - 2:
        return None
    expression = sql[tokens[j].end + 1:tokens[at_for].start].strip()
    column = "[" + tokens[at_for + 1].text.replace("]", "]]") + "]"
    edits.append((tokens[add].start, tokens[-1].end,
                  f"ALTER COLUMN {column} SET DEFAULT {expression}"))
    return name


def _closing(words: list[str], i: int) -> int:
    """The index of the ")" matching the "(" at ``i`` (-1 when unbalanced)."""
    depth = 0
    for k in range(i, len(words)):
        depth += words[k] == "("
        depth -= words[k] == ")"
        if depth == 0:
            return k
    return -1


# Words after which an INSERT's "(" is no longer the one around its whole query.
_INSERT_SOURCE_WORDS = frozenset({"SELECT", "VALUES", "EXEC", "EXECUTE", "OUTPUT", "DEFAULT"})


def _query_parentheses(words: list[str], tokens: list[Any], first: str,
                       cut: list[tuple[int, int]]) -> None:
    """Parentheses SQL Server allows around a whole query and sqlglot does not:
    ``INSERT t [(cols)] (SELECT …)`` and doubled ones, ``WITH c AS ((SELECT …))``."""
    starts = ("SELECT", "WITH", "(")
    for i in range(len(words) - 1):
        if words[i] != "(" or words[i + 1] not in starts:
            continue
        close = _closing(words, i)
        if close < 0:
            continue
        inner_close = _closing(words, i + 1) if words[i + 1] == "(" else -1
        doubled = inner_close == close - 1 and words[i + 2:i + 3] in (["SELECT"], ["WITH"]) \
            and i > 0 and words[i - 1] == "AS"
        inserted = first == "INSERT" and _depth_at(words, i) == 0 and words[i - 1] != "TOP" \
            and not _INSERT_SOURCE_WORDS.intersection(words[:i]) and (
            words[i + 1] != "(" or words[i + 2:i + 3] in (["SELECT"], ["WITH"]))
        if doubled or inserted:
            cut.append((tokens[i].start, tokens[i].end))
            cut.append((tokens[close].start, tokens[close].end))
            return


_MONEY_TEXT = re.compile(r"\$[+-]?(?:\d+\.?\d*|\.\d+)")


def _json_array_nulls(tokens: list[Any], words: list[str], cut: list[tuple[int, int]],
                      edits: list[tuple[int, int, str]]) -> None:
    """``JSON_ARRAY(… NULL ON NULL | ABSENT ON NULL)``: sqlglot knows no such clause; it is
    cut and the call renamed for jsonbuild.py (a name of its own, apart from the backend
    json_array calls the APPLY rewriting builds)."""
    for i, w in enumerate(words[:-1]):
        if w != "JSON_ARRAY" or words[i + 1] != "(":
            continue
        k = _closing(words, i + 1)
        nulls = k - 3 > i + 1 and words[k - 2:k] == ["ON", "NULL"] \
            and words[k - 3] in ("NULL", "ABSENT")
        if nulls:
            cut.append((tokens[k - 3].start, tokens[k - 1].end))
        edits.append((tokens[i].start, tokens[i].end, JSON_ARRAY_NULLS if nulls and words[
            k - 3] == "NULL" else JSON_ARRAY_ABSENT))


def _parse_calls(sql: str, tokens: list[Any], words: list[str],
                 edits: list[tuple[int, int, str]]) -> None:
    """``PARSE(x AS type [USING culture])`` and TRY_PARSE, which sqlglot does not read,
    become the calls ``PARSE(x, 'type'[, culture])`` the transpiler rewrites."""
    for i, w in enumerate(words[:-1]):
        if w not in ("PARSE", "TRY_PARSE") or words[i + 1] != "(":
            continue
        close = _closing(words, i + 1)
        depth, as_at, using_at = 0, -1, -1
        for k in range(i + 2, close):
            depth += (words[k] == "(") - (words[k] == ")")
            if depth == 0 and words[k] == "AS" and as_at < 0:
                as_at = k
            elif depth == 0 and words[k] == "USING" and as_at >= 0:
                using_at = k
                break
        type_end = (using_at if using_at >= 0 else close) - 1
        if as_at < 0 or type_end <= as_at:
            continue
        type_text = sql[tokens[as_at + 1].start:tokens[type_end].end + 1]
        edits.append((tokens[as_at].start, tokens[type_end].end,
                      ", '" + type_text.replace("'", "''") + "'"))
        if using_at >= 0:
            edits.append((tokens[using_at].start, tokens[using_at].end, ","))


# What FORMAT( is written as for sqlglot, which would read the call as TimeToStr or
# NumberToStr with the .NET format string turned into a strftime one (lossy: 'd' and
# 'MM/dd/yyyy' alike, 'D5' left a date format); named back FORMAT after parsing.
_FORMAT_MARK = "TSQLB_FORMAT"


def _format_calls(tokens: list[Any], words: list[str],
                  edits: list[tuple[int, int, str]]) -> None:
    """``FORMAT(value, format[, culture])`` (not a UDF ``x.FORMAT(…)``) as a call sqlglot
    keeps as written: an anonymous function whose format string is the .NET one."""
    for i, w in enumerate(words[:-1]):
        if w == "FORMAT" and words[i + 1] == "(" and (i == 0 or words[i - 1] != ".") \
                and tokens[i].token_type != TokenType.STRING:
            edits.append((tokens[i].start, tokens[i].end, _FORMAT_MARK))


def _name_format_calls(tree: exp.Expression) -> None:
    for call in tree.find_all(exp.Anonymous):
        if call.name.upper() == _FORMAT_MARK:
            call.set("this", "FORMAT")


def _money_literals(sql: str, tokens: list[Any], edits: list[tuple[int, int, str]]) -> None:
    """``$1.56``, ``$-2``: money constants, which sqlglot reads as parameters; written as
    ``CAST(1.56 AS money)`` for it."""
    i = 0
    while i < len(tokens):
        t = tokens[i]
        if t.token_type != TokenType.VAR or not t.text.startswith("$"):
            i += 1
            continue
        end = i
        while end + 1 < len(tokens) and tokens[end + 1].start == tokens[end].end + 1 \
                and tokens[end + 1].token_type in (TokenType.DOT, TokenType.NUMBER,
                                                   TokenType.DASH, TokenType.PLUS):
            end += 1
        m = _MONEY_TEXT.match(sql, t.start, tokens[end].end + 1)
        last = next((k for k in range(i, end + 1) if m is not None
                     and tokens[k].end == m.end() - 1), None)
        if m is not None and last is not None:
            edits.append((t.start, tokens[last].end, f"CAST({m.group()[1:]} AS money)"))
            i = last + 1
            continue
        i += 1


def _cut_check_option(words: list[str], tokens: list[Any],
                      cut: list[tuple[int, int]]) -> None:
    """``CREATE | ALTER VIEW … WITH CHECK OPTION``: sqlglot does not know the clause; it is
    cut here and read from the stored definition by :func:`has_check_option`."""
    if "VIEW" not in words[:4] or words[0] not in ("CREATE", "ALTER"):
        return
    end = len(words) - (1 if words and words[-1] == ";" else 0)
    if end >= 3 and words[end - 3:end] == ["WITH", "CHECK", "OPTION"]:
        cut.append((tokens[end - 3].start, tokens[end - 1].end))


def has_check_option(definition: str) -> bool:
    """Whether a view's stored definition ends with ``WITH CHECK OPTION``."""
    return re.search(r"\bWITH\s+CHECK\s+OPTION\s*;?\s*$", definition, re.IGNORECASE) \
        is not None


def _parse_uncached(sql: str) -> Parsed:
    try:
        tokens = TSQL_DIALECT.tokenize(sql)
    except TokenError as e:
        raise syntax_error(e, sql) from None
    cut: list[tuple[int, int]] = []
    edits: list[tuple[int, int, str]] = []
    namespaces = _xml_namespaces(tokens, edits)
    max_recursion = _query_options(sql, tokens, cut)
    assign_ops: list[tuple[str, str]] = []
    words = [t.text.upper() for t in tokens]
    for i, w in enumerate(words):
        if w in ("CLUSTERED", "NONCLUSTERED"):
            cut.append((tokens[i].start, tokens[i].end))
    first = words[0] if words else ""
    _cut_check_option(words, tokens, cut)
    top_text = out_text = into_text = None
    if first in ("UPDATE", "DELETE", "INSERT") and len(words) > 1 and words[1] == "TOP":
        j = 2
        if j < len(words) and words[j] == "(":
            depth, k = 0, j
            while k < len(words):
                depth += words[k] == "("
                depth -= words[k] == ")"
                if depth == 0:
                    break
                k += 1
            top_text = sql[tokens[j].end + 1:tokens[k].start]
            cut.append((tokens[1].start, tokens[k].end))
        else:
            k = j
            top_text = tokens[j].text
            cut.append((tokens[1].start, tokens[j].end))
        if k + 1 < len(words) and words[k + 1] == "PERCENT":
            # Kept aside, PERCENT would be read as the target's name (Msg 208 'PERCENT').
            raise not_supported(f"{first} TOP … PERCENT")
    if first in ("INSERT", "UPDATE", "DELETE", "MERGE"):
        depth = 0
        for i, w in enumerate(words):
            depth += w == "("
            depth -= w == ")"
            if w == "OUTPUT" and depth == 0:
                k = i + 1
                d = 0
                while k < len(words) and not (d == 0 and (
                        words[k] in _END_OF_OUTPUT or _query_paren(first, words, k))):
                    d += words[k] == "("
                    d -= words[k] == ")"
                    k += 1
                end = tokens[k - 1].end
                out_text = sql[tokens[i].end + 1:end + 1]
                if k < len(words) and words[k] == "INTO":
                    m = k + 1
                    d = 0
                    while m < len(words) and not (d == 0 and (
                            words[m] in _END_OF_OUTPUT - {"INTO"}
                            or _query_paren(first, words, m))):
                        d += words[m] == "("
                        d -= words[m] == ")"
                        m += 1
                    into_text = sql[tokens[k].end + 1:tokens[m - 1].end + 1]
                    end = tokens[m - 1].end
                cut.append((tokens[i].start, end))
                break
    if first == "UPDATE":
        _compound_assignments(sql, tokens, words, edits)
    if first in ("SELECT", "WITH"):
        # SELECT @v += expr: the caller applies the operator per row; the query yields expr.
        for i in range(2, len(words) - 1):
            if words[i] in _COMPOUND_OPS and words[i + 1] == "=" \
                    and tokens[i].end + 1 == tokens[i + 1].start \
                    and tokens[i - 2].text == "@" and _depth_at(words, i) == 0:
                cut.append((tokens[i].start, tokens[i].end))
                assign_ops.append(("@" + tokens[i - 1].text.lower(), tokens[i].text + "="))
    if first == "DELETE":
        froms = [i for i, w in enumerate(words) if w == "FROM" and _depth_at(words, i) == 0]
        if len(froms) >= 2 and froms[0] in (1, 2):
            cut.append((tokens[froms[0]].start, tokens[froms[0]].end))
    _spaced_operators(sql, tokens, edits)
    _hints_without_with(tokens, words, edits)
    _for_after_set_operation(tokens, words, first, edits)
    default_name = _alter_table_forms(sql, tokens, words, first, cut, edits)
    _query_parentheses(words, tokens, first, cut)
    _money_literals(sql, tokens, edits)
    _json_array_nulls(tokens, words, cut, edits)
    _parse_calls(sql, tokens, words, edits)
    _format_calls(tokens, words, edits)
    for t in tokens:
        # A bare 0x is T-SQL's empty binary literal; sqlglot reads it as a column named 0x
        # ([0x] and "0x" are columns, and are longer in the text).
        if t.token_type == TokenType.IDENTIFIER and t.text.lower() == "0x" \
                and t.end - t.start == 1:
            edits.append((t.start, t.end, "CAST('' AS varbinary(max))"))
    edits.extend((start, end, " " * (end - start + 1)) for start, end in cut)
    text = sql
    for start, end, replacement in sorted(edits, key=lambda e: (e[0], e[1]), reverse=True):
        text = text[:start] + replacement + text[end + 1:]
    try:
        trees = TSQL_DIALECT.parse(text)
    except (GlotParseError, TokenError) as e:
        raise syntax_error(e, sql) from None
    trees = [t for t in trees if t is not None]
    if len(trees) != 1:
        raise syntax_error(GlotParseError("more than one statement"), sql)
    if isinstance(trees[0], exp.Select) and not trees[0].expressions:
        raise tsql_error(102, sql.strip()[-20:], cls=BindError)  # a bare SELECT
    top = output = into = None
    try:
        if top_text is not None:
            top = sqlglot.parse_one(f"SELECT {top_text}", read="tsql").expressions[0]
        if out_text is not None:
            output = tuple(sqlglot.parse_one(f"SELECT {out_text}", read="tsql").expressions)
        if into_text is not None:
            ins = sqlglot.parse_one(f"INSERT INTO {into_text} SELECT 1", read="tsql")
            into = ins.this
    except (GlotParseError, TokenError) as e:
        raise syntax_error(e, sql) from None
    _name_format_calls(trees[0])
    _plain_set_operands(trees[0])
    _aliased_subqueries(trees[0])
    trees[0] = _ordered_parenthesised_query(trees[0])
    if isinstance(trees[0], exp.Insert):
        _insert_query_in_parentheses(trees[0])
    if default_name is not None:
        trees[0].meta["default_constraint"] = default_name or None
    if namespaces is not None:
        for tree in (trees[0], *(output or ())):
            _pass_namespaces(tree, namespaces)
    return Parsed(trees[0], top, output, into, sql, tuple(assign_ops), max_recursion)


_MAX_RECURSION = 32767


def query_hints(hints: str) -> int | None:
    """The MAXRECURSION of the hints of an ``OPTION (…)`` clause (``hints`` is what stands
    between its parentheses), checked as for a statement the engine runs (Msg 310)."""
    try:
        tokens = TSQL_DIALECT.tokenize(f"OPTION ({hints})")
    except TokenError as e:
        raise syntax_error(e, hints) from None
    return _query_options(hints, tokens, [])


def _query_options(sql: str, tokens: list[Any], cut: list[tuple[int, int]]) -> int | None:
    """Cut the statement's ``OPTION (…)`` clause (sqlglot reads it on SELECT only) and
    return its MAXRECURSION (0 to 32767, Msg 310 above). The other query hints are
    accepted and change nothing here."""
    depth = 0
    for i, t in enumerate(tokens):
        depth += (t.token_type == TokenType.L_PAREN) - (t.token_type == TokenType.R_PAREN)
        if depth != 0 or t.token_type != TokenType.OPTION or i + 1 >= len(tokens) \
                or tokens[i + 1].token_type != TokenType.L_PAREN:
            continue
        limit = None
        k, inner = i + 2, 0
        while k < len(tokens) and not (inner == 0 and tokens[k].token_type == TokenType.R_PAREN):
            inner += (tokens[k].token_type == TokenType.L_PAREN) - (
                tokens[k].token_type == TokenType.R_PAREN)
            if inner == 0 and tokens[k].text.upper() == "MAXRECURSION":
                value = tokens[k + 1] if k + 1 < len(tokens) else None
                if value is None or value.token_type != TokenType.NUMBER \
                        or not value.text.isdigit():
                    near = value.text if value is not None else "MAXRECURSION"
                    raise ParseError(f"Incorrect syntax near '{near}'.", 1, 1)
                limit = int(value.text)
                if limit > _MAX_RECURSION:
                    raise tsql_error(310, limit, _MAX_RECURSION, cls=BindError)
            k += 1
        if k >= len(tokens):
            raise ParseError("Incorrect syntax near 'OPTION'.", 1, 1)
        cut.append((t.start, tokens[k].end))
        return limit
    return None


def _xml_namespaces(tokens: list[Any], edits: list[tuple[int, int, str]]) -> str | None:
    """Cut ``WITH XMLNAMESPACES ('uri' AS p, DEFAULT 'uri')`` from the statement and return
    the declarations as ``'p=uri;=default-uri'`` (the form the XML methods take)."""
    words = [t.text.upper() for t in tokens]
    if "XMLNAMESPACES" not in words:
        return None
    i = words.index("XMLNAMESPACES")
    if i == 0 or words[i - 1] != "WITH" or i + 1 >= len(words) or words[i + 1] != "(":
        raise not_supported("XMLNAMESPACES outside a leading WITH clause")
    k, decls, pending_uri, default = i + 2, [], None, False
    while k < len(words) and words[k] != ")":
        tok = tokens[k]
        if words[k] == "DEFAULT":
            default = True
        elif tok.token_type.name in ("STRING", "NATIONAL_STRING"):
            pending_uri = tok.text
            if default:
                decls.append(f"={pending_uri}")
                default, pending_uri = False, None
        elif words[k] == "AS" and pending_uri is not None and k + 1 < len(words):
            decls.append(f"{tokens[k + 1].text}={pending_uri}")
            pending_uri = None
            k += 1
        k += 1
    if k >= len(words):
        raise not_supported("This WITH XMLNAMESPACES form")
    if k + 1 < len(words) and words[k + 1] == ",":
        # WITH XMLNAMESPACES (…), cte AS (…) SELECT …: keep WITH for the CTEs.
        edits.append((tokens[i].start, tokens[k + 1].end, " "))
    else:
        edits.append((tokens[i - 1].start, tokens[k].end, " "))
    return ";".join(decls)


def _pass_namespaces(tree: exp.Expression, namespaces: str) -> None:
    """Give every XML method call (``col.value(…)``) the declared namespaces."""
    for dot in list(tree.find_all(exp.Dot)):
        method = dot.expression
        if isinstance(method, exp.Anonymous) and method.name.lower() in (
                "value", "query", "exist", "nodes"):
            declared = exp.Literal.string(namespaces)
            declared.set("_xmlnamespaces", True)  # not a user's argument (xml_methods.py)
            method.set("expressions", [*method.expressions, declared])


_COMPOUND_OPS = {"+", "-", "*", "/", "%", "&", "|", "^"}
_SET_END = {"FROM", "WHERE", "OUTPUT", "OPTION", ";"}


def _compound_assignments(sql: str, tokens: list[Any], words: list[str],
                          edits: list[tuple[int, int, str]]) -> None:
    """``SET a += 1`` → ``SET a = a + (1)`` (sqlglot does not parse compound assignment)."""
    try:
        i = words.index("SET")
    except ValueError:
        return
    item_start = i + 1
    depth = 0
    k = item_start
    while k < len(words) and not (depth == 0 and words[k] in _SET_END):
        w = words[k]
        depth += w == "("
        depth -= w == ")"
        if depth == 0 and w in _COMPOUND_OPS and k + 1 < len(words) and words[k + 1] == "=" \
                and tokens[k].end + 1 == tokens[k + 1].start and k > item_start:
            target = sql[tokens[item_start].start:tokens[k - 1].end + 1]
            end = k + 2
            d = 0
            while end < len(words) and not (d == 0 and (words[end] == ","
                                                        or words[end] in _SET_END)):
                d += words[end] == "("
                d -= words[end] == ")"
                end += 1
            edits.append((tokens[k].start, tokens[k + 1].end, f"= {target} {tokens[k].text} ("))
            last = tokens[end - 1]
            edits.append((last.end + 1, last.end, ")"))
        if depth == 0 and w == ",":
            item_start = k + 1
        k += 1


def _depth_at(words: list[str], index: int) -> int:
    depth = 0
    for w in words[:index]:
        depth += w == "("
        depth -= w == ")"
    return depth


def clear_parse_cache() -> None:
    """Forget parsed statements and reset the cache statistics (tests)."""
    with _parse_lock:
        _parse_cache.clear()
        for k in stats:
            stats[k] = 0


def view_query(definition: str) -> tuple[exp.Expression, list[str] | None]:
    """A view's stored definition read once: its query (T-SQL tree) and its column list when
    ``CREATE VIEW v (a, b) AS …`` gives one (the names of the select list, by position)."""
    tree = parse_statement(definition).tree
    if isinstance(tree, exp.Create) and tree.expression is not None:
        names = [c.name for c in tree.this.expressions] \
            if isinstance(tree.this, exp.Schema) else None
        return tree.expression, names
    m = re.search(r"\bAS\b", definition, re.IGNORECASE)
    return parse_statement(definition[m.end():] if m else definition).tree, None
