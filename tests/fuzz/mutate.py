"""A seeded mutator of T-SQL scripts, for the fuzz tests (test_fuzz.py).

The corpus is the golden scripts and the chapter's listings. A case is one corpus script with
one to three mutations, all drawn from ``random.Random(seed)``, so that a case id reproduces
it exactly:

* token level (on a tokenizer that also takes broken text): delete, duplicate, swap
  neighbours, replace or insert a token from a pool of odd values (huge numbers, ``0x``,
  over-long identifiers, bad dates, keywords, punctuation), truncate, flip a character;
* statement level (on the parser's statement spans, nested ones included): drop, duplicate,
  swap or move a statement, wrap it in TRY/CATCH, a transaction or dynamic SQL, add or drop
  a GO line;
* value level (the syntax stays valid): swap a literal for one of another type, a data
  type for another, a name or variable for another of the script's; wrap a value in an
  expression at the edges of its type (``ROUND(v, -1)``, ``-(v)``, ``CAST(v AS …)``).
"""

from __future__ import annotations

import dataclasses
import random
import re
from collections.abc import Callable
from pathlib import Path

from tsqlbroker.errors import ParseError
from tsqlbroker.grammar import ast, parse_batch, split_batches

ROOT = Path(__file__).resolve().parents[2]


def corpus() -> list[tuple[str, str]]:
    """(name, text) of every golden script and listing, in a stable order."""
    paths = sorted((ROOT / "tests" / "golden").glob("*/*.sql"))
    paths += sorted((ROOT / "tests" / "listings").glob("*.sql"))
    return [(str(p.relative_to(ROOT)), p.read_text(encoding="utf-8")) for p in paths]


_TOKEN = re.compile(r"""
    (?P<ws>\s+)
  | (?P<comment>--[^\n]*|/\*.*?\*/)
  | (?P<string>N?'(?:[^']|'')*'?)
  | (?P<name>\[(?:[^\]]|\]\])*\]?|"(?:[^"]|"")*"?)
  | (?P<number>0x[0-9A-Fa-f]*|\d+\.?\d*(?:[eE][+-]?\d+)?|\.\d+)
  | (?P<var>@@?[\w@#$]+)
  | (?P<word>[A-Za-z_#][\w$#]*)
  | (?P<op><>|!=|>=|<=|[-+*/%&|^]=|::|.)
""", re.VERBOSE | re.DOTALL)


@dataclasses.dataclass(frozen=True)
class Token:
    kind: str
    start: int
    end: int
    text: str


def tokens(text: str) -> list[Token]:
    """Every token but blanks and comments."""
    return [Token(m.lastgroup or "op", m.start(), m.end(), m.group())
            for m in _TOKEN.finditer(text) if m.lastgroup not in ("ws", "comment")]


LITERALS = [
    "0x", "0x0", "0xFFFF", "N''", "''", "'x'", "N'☃'", "'1'", "'abc'", "1.5", "-1", "0", "1",
    "99999999999999999999", "32767", "32768", "2147483647", "2147483648", "-2147483649",
    "9223372036854775808", "1e308", "1e-308", "-0.0", "3.4e38", "1E400", "NULL",
    "'2024-13-45'", "'9999-12-31 23:59:59.9999999'", "'00:00:00'", "'1753-01-01'", "$1.5",
    "0.00000000000000000000000000000000000001", "123456789012345678901234567890123456789",
    "'<a/>'", "'<a>'", "N'<x y=\"1\"/>'", "'{\"a\":1}'", "'$.a'", "'%'", "'_[a-z]%'",
    "'00000000-0000-0000-0000-000000000000'", "'not-a-guid'", "DEFAULT", "@@ROWCOUNT",
    "(SELECT 1)", "NEWID()", "GETDATE()", "CAST(1 AS xml)", "CAST(NULL AS sql_variant)",
]
TYPES = [
    "int", "bigint", "smallint", "tinyint", "bit", "decimal(38,38)", "decimal(1,0)",
    "numeric(38,0)", "decimal(38, 10)", "money", "smallmoney", "float", "real", "varchar(1)",
    "varchar(max)", "nvarchar(4000)", "char(10)", "nchar(1)", "varbinary(max)", "binary(1)",
    "uniqueidentifier", "xml", "date", "time(7)", "datetime", "datetime2(7)", "smalldatetime",
    "datetimeoffset", "sql_variant", "sysname", "text", "ntext", "image", "rowversion",
    "nvarchar(0)", "varchar(8001)", "decimal(39,2)", "float(54)", "datetime2(8)",
]
TYPE_WORDS = {t.split("(")[0].lower() for t in TYPES} | {"nvarchar", "varchar", "decimal"}
IDENTIFIERS = [
    "x" * 129, "[" + "y" * 200 + "]", "@" + "v" * 130, "#" + "t" * 120, "nosuch",
    "dbo.nosuch", "sys.objects", "master..nosuch", "[a]]b]", '"q"', "[]", "@@NOPE",
    "#t", "##g", "@t", "dbo", "sys", "INFORMATION_SCHEMA.TABLES",
]
KEYWORDS = [
    "SELECT", "FROM", "WHERE", "BEGIN", "END", ";", "(", ")", ",", ".", "*", "=", "AS", "ON",
    "CASE", "WHEN", "THEN", "ELSE", "NOT", "IN", "LIKE", "IS", "AND", "OR", "TOP", "INTO",
    "RECEIVE", "SEND", "WAITFOR", "CONVERSATION", "DIALOG", "TRAN", "COMMIT", "ROLLBACK",
    "DECLARE", "SET", "EXEC", "RETURN", "BREAK", "CONTINUE", "GOTO", "OUTPUT", "TABLE",
    "PRIMARY", "KEY", "IDENTITY", "COLLATE", "OVER", "PARTITION", "BY", "ORDER", "GROUP",
    "UNION", "ALL", "EXISTS", "BETWEEN", "ESCAPE", "CURSOR", "FOR", "OPEN", "CLOSE", "FETCH",
    "NEXT", "DEALLOCATE", "MAX_QUEUE_READERS", "PRIORITY_LEVEL", "RETENTION", "VALIDATION",
    "GO", "TRY", "CATCH", "THROW", "RAISERROR", "PRINT", "IF", "WHILE", "USE", "$action",
]
POOL = LITERALS + IDENTIFIERS + KEYWORDS + TYPES
KEYWORD_WORDS = {k.upper() for k in KEYWORDS} | {
    "CREATE", "ALTER", "DROP", "INSERT", "UPDATE", "DELETE", "VALUES", "PROCEDURE", "PROC",
    "FUNCTION", "RETURNS", "QUEUE", "SERVICE", "CONTRACT", "MESSAGE", "TYPE", "WITH",
    "DATABASE", "SCHEMA", "VIEW", "INDEX", "TRIGGER", "LEFT", "RIGHT", "JOIN", "INNER",
    "OUTER", "CROSS", "APPLY", "DISTINCT", "HAVING", "DESC", "ASC", "NULL", "TRANSACTION"}


@dataclasses.dataclass
class Case:
    """One mutated script: where it came from and what was done to it."""

    ident: str
    source: str
    text: str
    steps: list[str]


def statement_spans(text: str) -> list[tuple[int, int]]:
    """Absolute (start, end) of every statement the parser finds, nested ones included
    (batches that do not parse give none)."""
    spans: list[tuple[int, int]] = []
    pos = 0
    for chunk in split_batches(text):
        offset = text.find(chunk.text, pos)
        if offset < 0:
            continue
        pos = offset + len(chunk.text)
        try:
            batch = parse_batch(chunk.text, chunk.start_line)
        except ParseError:
            continue
        for node in _walk(batch):
            span = getattr(node, "span", None)
            if isinstance(node, ast.Stmt) and span is not None and span.end_pos > span.start_pos:
                spans.append((offset + span.start_pos, offset + span.end_pos))
    return sorted(set(spans))


def _walk(node: object) -> list[object]:
    out: list[object] = []
    stack = [node]
    while stack:
        n = stack.pop()
        if isinstance(n, tuple | list):
            stack.extend(n)
        elif dataclasses.is_dataclass(n) and not isinstance(n, type):
            out.append(n)
            stack.extend(getattr(n, f.name) for f in dataclasses.fields(n) if f.name != "span")
    return out


Mutation = Callable[[random.Random, str], tuple[str, str] | None]


def _splice(text: str, start: int, end: int, new: str) -> str:
    return text[:start] + new + text[end:]


# -- token level -----------------------------------------------------------------------------
def delete_token(r: random.Random, text: str) -> tuple[str, str] | None:
    toks = tokens(text)
    if not toks:
        return None
    t = r.choice(toks)
    return _splice(text, t.start, t.end, ""), f"delete {t.text[:40]!r}"


def duplicate_token(r: random.Random, text: str) -> tuple[str, str] | None:
    toks = tokens(text)
    if not toks:
        return None
    t = r.choice(toks)
    return _splice(text, t.start, t.end, f"{t.text} {t.text}"), f"duplicate {t.text[:40]!r}"


def swap_tokens(r: random.Random, text: str) -> tuple[str, str] | None:
    toks = tokens(text)
    if len(toks) < 2:
        return None
    i = r.randrange(len(toks) - 1)
    a, b = toks[i], toks[i + 1]
    new = text[:a.start] + b.text + text[a.end:b.start] + a.text + text[b.end:]
    return new, f"swap {a.text[:20]!r} {b.text[:20]!r}"


def _replace(r: random.Random, text: str, candidates: list[Token],
             new_text: Callable[[Token], str], label: str) -> tuple[str, str] | None:
    """One of ``candidates`` replaced by ``new_text(token)``."""
    if not candidates:
        return None
    t = r.choice(candidates)
    new = new_text(t)
    return _splice(text, t.start, t.end, new), f"{label} {t.text[:30]!r} -> {new[:50]!r}"


def replace_token(r: random.Random, text: str) -> tuple[str, str] | None:
    return _replace(r, text, tokens(text), lambda _t: r.choice(POOL), "replace")


def insert_token(r: random.Random, text: str) -> tuple[str, str] | None:
    toks = tokens(text)
    at = r.choice(toks).start if toks else 0
    new = r.choice(POOL)
    return _splice(text, at, at, new + " "), f"insert {new[:40]!r}"


def truncate(r: random.Random, text: str) -> tuple[str, str] | None:
    if not text:
        return None
    at = r.randrange(len(text))
    return text[:at], f"truncate at {at}"


def flip_char(r: random.Random, text: str) -> tuple[str, str] | None:
    if not text:
        return None
    at = r.randrange(len(text))
    if r.random() < 0.5:
        return _splice(text, at, at + 1, ""), f"drop char {text[at]!r} at {at}"
    ch = r.choice("'\"[]()*,;.@#N0\n")
    return _splice(text, at, at, ch), f"insert char {ch!r} at {at}"


# -- value level -----------------------------------------------------------------------------
def swap_literal(r: random.Random, text: str) -> tuple[str, str] | None:
    lits = [t for t in tokens(text) if t.kind in ("string", "number") or t.text.upper() == "NULL"]
    return _replace(r, text, lits, lambda _t: r.choice(LITERALS), "literal")


def swap_type(r: random.Random, text: str) -> tuple[str, str] | None:
    toks = tokens(text)
    found = [i for i, t in enumerate(toks) if t.kind == "word" and t.text.lower() in TYPE_WORDS]
    if not found:
        return None
    i = r.choice(found)
    start, end = toks[i].start, toks[i].end
    if i + 1 < len(toks) and toks[i + 1].text == "(":  # the type's (n[, s])
        j = i + 1
        while j < len(toks) and toks[j].text != ")":
            j += 1
        if j < len(toks):
            end = toks[j].end
    new = r.choice(TYPES)
    return _splice(text, start, end, new), f"type {text[start:end]!r} -> {new!r}"


# Expressions a value is wrapped in: arithmetic and built-ins at the edges of their types.
EXPRESSIONS = [
    "-({v})", "ABS({v})", "({v}) * ({v})", "({v}) + 1", "({v}) / 3", "({v}) % 7",
    "ROUND({v}, -1)", "ROUND({v}, 2, 1)", "CEILING({v})", "FLOOR({v})", "SIGN({v})",
    "POWER({v}, 40)", "SQRT({v})", "LOG({v})", "EXP({v})", "STR({v}, 40, 10)",
    "CAST({v} AS decimal(38, 10))", "CAST({v} AS decimal(38, 38))", "CAST({v} AS money)",
    "CAST({v} AS float)", "CAST({v} AS real)", "CAST({v} AS bigint)", "CAST({v} AS tinyint)",
    "CAST({v} AS varchar(1))", "CAST({v} AS nvarchar(max))", "CAST({v} AS varbinary(max))",
    "CAST({v} AS datetime2(7))", "CAST({v} AS date)", "CAST({v} AS time)",
    "CAST({v} AS uniqueidentifier)", "CAST({v} AS xml)", "CAST({v} AS sql_variant)",
    "CONVERT(varchar(60), {v}, 1)", "CONVERT(varchar(60), {v}, 126)", "TRY_CAST({v} AS int)",
    "FORMAT({v}, 'N')", "LEN({v})", "DATALENGTH({v})", "REVERSE({v})", "LTRIM({v})",
    "UPPER({v})", "SUBSTRING({v}, 2, 3)", "LEFT({v}, -1)", "REPLICATE({v}, 3)",
    "CHARINDEX({v}, 'abc')", "STUFF({v}, 1, 1, 'x')", "REPLACE({v}, '', 'x')",
    "DATEADD(day, {v}, '20200101')", "DATEDIFF(year, {v}, GETDATE())",
    "DATEPART(weekday, {v})", "ISNUMERIC({v})", "ISDATE({v})", "HASHBYTES('SHA2_256', {v})",
    "JSON_VALUE({v}, '$.a')", "QUOTENAME({v})", "CHOOSE({v}, 1, 2)", "NULLIF({v}, {v})",
    "COALESCE({v}, {v})", "IIF({v} > 0, {v}, -1)", "CASE WHEN {v} LIKE 1 THEN {v} END",
    "(SELECT MAX(x) FROM (VALUES ({v}), ({v})) t(x))",
]


def wrap_value(r: random.Random, text: str) -> tuple[str, str] | None:
    """A literal or variable for an expression over it (ROUND(v, -1), -(v), CAST …)."""
    vals = [t for t in tokens(text) if t.kind in ("string", "number", "var")
            and not t.text.startswith("@@")]
    return _replace(r, text, vals, lambda t: r.choice(EXPRESSIONS).replace("{v}", t.text),
                    "wrap")


def swap_name(r: random.Random, text: str) -> tuple[str, str] | None:
    """A name or variable for another of the same script: a queue used as a table, a
    varchar variable where an int one was … (the syntax stays valid)."""
    toks = [t for t in tokens(text) if t.kind in ("var", "name")
            or (t.kind == "word" and t.text.upper() not in KEYWORD_WORDS)]
    if len(toks) < 2:
        return None
    t = r.choice(toks)
    same = [u for u in toks if u.kind == t.kind and u.text != t.text]
    if not same:
        return None
    new = r.choice(same).text
    return _splice(text, t.start, t.end, new), f"name {t.text[:30]!r} -> {new[:30]!r}"


# -- statement level -------------------------------------------------------------------------
def _pick_statement(r: random.Random, text: str) -> tuple[int, int] | None:
    spans = statement_spans(text)
    return r.choice(spans) if spans else None


def drop_statement(r: random.Random, text: str) -> tuple[str, str] | None:
    s = _pick_statement(r, text)
    if s is None:
        return None
    return _splice(text, s[0], s[1], ""), f"drop statement {text[s[0]:s[1]][:40]!r}"


def duplicate_statement(r: random.Random, text: str) -> tuple[str, str] | None:
    s = _pick_statement(r, text)
    if s is None:
        return None
    stmt = text[s[0]:s[1]]
    return _splice(text, s[1], s[1], "\n" + stmt), f"duplicate statement {stmt[:40]!r}"


def swap_statements(r: random.Random, text: str) -> tuple[str, str] | None:
    spans = statement_spans(text)
    apart = [(a, b) for a in spans for b in spans if a[1] <= b[0]]
    if not apart:
        return None
    a, b = r.choice(apart)
    new = text[:a[0]] + text[b[0]:b[1]] + text[a[1]:b[0]] + text[a[0]:a[1]] + text[b[1]:]
    return new, f"swap statements {text[a[0]:a[1]][:20]!r} {text[b[0]:b[1]][:20]!r}"


def move_statement(r: random.Random, text: str) -> tuple[str, str] | None:
    s = _pick_statement(r, text)
    if s is None:
        return None
    stmt = text[s[0]:s[1]]
    rest = _splice(text, s[0], s[1], "")
    at = r.randrange(len(rest) + 1)
    at = rest.rfind("\n", 0, at) + 1  # at a line start
    return _splice(rest, at, at, stmt + "\n"), f"move statement {stmt[:40]!r}"


WRAPS = [
    ("BEGIN TRY\n", "\nEND TRY\nBEGIN CATCH\n    PRINT ERROR_MESSAGE();\nEND CATCH"),
    ("BEGIN TRAN;\n", "\nROLLBACK;"),
    ("BEGIN TRAN;\n", "\nCOMMIT;"),
    ("IF 1 = 1\nBEGIN\n", "\nEND"),
    ("SET XACT_ABORT ON;\n", "\nSET XACT_ABORT OFF;"),
]


def wrap_statement(r: random.Random, text: str) -> tuple[str, str] | None:
    s = _pick_statement(r, text)
    if s is None:
        return None
    stmt = text[s[0]:s[1]]
    if r.random() < 0.25:
        wrapped = "EXEC (N'" + stmt.replace("'", "''") + "')"
        how = "dynamic SQL"
    else:
        head, tail = r.choice(WRAPS)
        wrapped, how = head + stmt + tail, head.strip()
    return _splice(text, s[0], s[1], wrapped), f"wrap {stmt[:30]!r} in {how}"


def go_line(r: random.Random, text: str) -> tuple[str, str] | None:
    lines = text.split("\n")
    gos = [i for i, line in enumerate(lines) if line.strip().upper().startswith("GO")]
    if gos and r.random() < 0.5:
        i = r.choice(gos)
        del lines[i]
        return "\n".join(lines), f"drop GO line {i + 1}"
    i = r.randrange(len(lines) + 1)
    lines.insert(i, r.choice(["GO", "GO 2", "GO 0"]))
    return "\n".join(lines), f"insert GO at line {i + 1}"


TOKEN_MUTATIONS: list[Mutation] = [delete_token, duplicate_token, swap_tokens, replace_token,
                                   insert_token, truncate, flip_char]
STATEMENT_MUTATIONS: list[Mutation] = [drop_statement, duplicate_statement, swap_statements,
                                       move_statement, wrap_statement, go_line]
# Mutations that keep the syntax valid (mostly): they reach the interpreter's deeper paths.
VALUE_MUTATIONS: list[Mutation] = [swap_literal, swap_type, swap_name, wrap_value,
                                   wrap_value]


def make_case(seed: int, number: int, scripts: list[tuple[str, str]]) -> Case:
    """Case ``number`` of the run seeded ``seed``: the same pair always gives the same case."""
    r = random.Random(seed * 1_000_003 + number)
    source, text = r.choice(scripts)
    steps = []
    for _ in range(r.choice((1, 1, 2, 3))):
        pick = r.random()
        family = (VALUE_MUTATIONS if pick < 0.45 else STATEMENT_MUTATIONS if pick < 0.8
                  else TOKEN_MUTATIONS)
        done = r.choice(family)(r, text)
        if done is not None:
            text, step = done
            steps.append(step)
    return Case(f"{seed}:{number}", source, text, steps)
