"""Completion: keywords, built-in functions, catalog objects, databases, buffer variables.

The catalog part reads a :class:`CatalogSnapshot` that a background refresher replaces whole
(see :mod:`tsqlbroker.repl.side_session`), so completing never waits for the storage. The word
before the cursor decides what is offered: after ``FROM``/``JOIN``/``INTO`` tables and queues,
after ``ON QUEUE``/``RECEIVE … FROM`` queues, after ``SERVICE`` services, after ``CONTRACT``
contracts, after ``MESSAGE TYPE`` message types, after ``EXEC`` procedures, after ``USE``
databases; after ``t.`` the columns of table (or alias, or queue) ``t``, after ``sys.`` the
catalog views; elsewhere everything, keywords first. Names that need it are offered bracketed
(``[//www.develop.com/DMBrokerage/TradeEntry]``); inside a string (``TO SERVICE '…``) they are
offered as the bare text. Matching is by prefix, then by substring, ignoring case.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass

from prompt_toolkit.completion import CompleteEvent, Completer, Completion
from prompt_toolkit.document import Document

from tsqlbroker.repl.catalog_snapshot import QUEUE_COLUMNS, CatalogSnapshot
from tsqlbroker.repl.special import COMMANDS


def _words(text: str) -> tuple[str, ...]:
    """The distinct words of ``text``, sorted."""
    return tuple(sorted(set(text.split())))


KEYWORDS: tuple[str, ...] = _words("""
ADD ALL ALTER AND ANY AS ASC AUTHORIZATION BEGIN BETWEEN BREAK BY CASCADE CASE CATCH CHECK
CLOSE COLLATE COLUMN COMMIT CONSTRAINT CONTINUE CONVERT CREATE CROSS CURSOR DATABASE DEALLOCATE
DECLARE DEFAULT DELETE DESC DISTINCT DROP ELSE END EXEC EXECUTE EXISTS FETCH FOR FOREIGN FROM
FULL FUNCTION GO GOTO GRANT GROUP HAVING IDENTITY IF IN INDEX INNER INSERT INTO IS JOIN KEY
LEFT LIKE MERGE NEXT NOCOUNT NOT NULL OF OFF ON OPEN OR ORDER OUTER OUTPUT PRIMARY PRINT
PROC PROCEDURE RAISERROR REFERENCES RETURN RETURNS RIGHT ROLLBACK SAVE SCHEMA SELECT SET
TABLE THEN THROW TOP TRAN TRANSACTION TRUNCATE TRY UNION UNIQUE UPDATE USE VALUES VIEW
WAITFOR WHEN WHERE WHILE WITH XACT_ABORT
ACTIVATION AFTER BROKER CONTRACT CONVERSATION DELAY DIALOG ENABLE_BROKER ENCODING ERROR
EMPTY LIFETIME MAX_QUEUE_READERS MESSAGE MOVE NEW_BROKER NONE OWNER POISON_MESSAGE_HANDLING
PROCEDURE_NAME QUEUE RECEIVE RELATED_CONVERSATION RELATED_CONVERSATION_GROUP RETENTION ROUTE
SELF SEND SENT SERVICE STATUS TARGET TIMEOUT TIMER TYPE VALIDATION VALID_XML WELL_FORMED_XML
INITIATOR CLEANUP GET XML SCHEMA COLLECTION TRUSTWORTHY
KILL STATISTICS STATUSONLY
""")

FUNCTIONS: tuple[str, ...] = _words("""
ABS CAST CEILING CHARINDEX CHOOSE COALESCE CONCAT CONCAT_WS CONVERT COUNT COUNT_BIG
CURRENT_TIMESTAMP DATALENGTH DATEADD DATEDIFF DATEFROMPARTS DATENAME DATEPART DAY DB_ID DB_NAME
EOMONTH ERROR_LINE ERROR_MESSAGE ERROR_NUMBER ERROR_PROCEDURE ERROR_SEVERITY ERROR_STATE
FLOOR FORMAT GETDATE GETUTCDATE HASHBYTES IIF ISDATE ISNULL ISNUMERIC LEFT LEN LOWER LTRIM MAX
MIN MONTH NEWID NEWSEQUENTIALID NULLIF OBJECT_ID OBJECT_NAME PARSE POWER QUOTENAME RAND
REPLACE REPLICATE REVERSE RIGHT ROUND ROW_NUMBER RTRIM SCHEMA_NAME SCOPE_IDENTITY SIGN SPACE
SERVERPROPERTY SQRT STR STRING_AGG STUFF SUBSTRING SUM SUSER_SNAME SYSDATETIME SYSUTCDATETIME
TRANSLATE TRIM
TRY_CAST TRY_CONVERT UPPER USER_NAME XACT_STATE YEAR AVG
""")

GLOBAL_VARIABLES: tuple[str, ...] = (
    "@@ERROR", "@@IDENTITY", "@@ROWCOUNT", "@@SERVERNAME", "@@SPID", "@@TRANCOUNT",
    "@@VERSION", "@@FETCH_STATUS", "@@NESTLEVEL", "@@PROCID",
)

# Catalog views and DMVs offered after "sys.".
SYS_VIEWS: tuple[str, ...] = (
    "columns", "conversation_endpoints", "conversation_groups", "databases",
    "dm_broker_activated_tasks", "dm_broker_queue_monitors", "dm_exec_requests",
    "dm_exec_sessions", "dm_tran_locks", "messages", "objects", "procedures",
    "remote_service_bindings", "routes", "schemas", "service_contract_message_usages",
    "service_contract_usages", "service_contracts", "service_message_types",
    "service_queue_usages", "service_queues", "services", "tables", "transmission_queue",
)

_RESERVED = frozenset(k.lower() for k in KEYWORDS)
_NAME = r"(?:\[(?:[^\]]|\]\])+\]|[A-Za-z_#][\w@$#]*)"
_QUALIFIED = re.compile(r"(" + _NAME + r")\.$")
_FROM_ALIAS = re.compile(
    r"\b(?:from|join|update|into)\s+(?:" + _NAME + r"\s*\.\s*)*(" + _NAME + r")"
    r"(?:\s+(?:as\s+)?([A-Za-z_][\w@$#]*))?", re.IGNORECASE)


def _unbracket(name: str) -> str:
    if name.startswith("[") and name.endswith("]"):
        return name[1:-1].replace("]]", "]")
    return name


def table_aliases(text: str) -> dict[str, str]:
    """Aliases in ``FROM t AS a`` / ``JOIN t a`` clauses: lower-case alias → table name."""
    aliases: dict[str, str] = {}
    for m in _FROM_ALIAS.finditer(text):
        alias = m.group(2)
        if alias and alias.lower() not in _RESERVED:
            aliases[alias.lower()] = _unbracket(m.group(1)).lower()
    return aliases
_REGULAR = re.compile(r"^[A-Za-z_][A-Za-z0-9_@$#]*$")
_DECLARED = re.compile(r"(?<![\w@$#])(@[A-Za-z_][\w@$#]*)")


def quote_name(name: str) -> str:
    """``name`` as an identifier: bare when regular and not reserved, else ``[…]``."""
    if _REGULAR.match(name) and name.lower() not in _RESERVED:
        return name
    return "[" + name.replace("]", "]]") + "]"


def declared_variables(text: str) -> list[str]:
    """The ``@variables`` named in ``text`` (declared, parameters or assigned), in order."""
    seen: dict[str, str] = {}
    for m in _DECLARED.finditer(text):
        name = m.group(1)
        if not name.startswith("@@"):
            seen.setdefault(name.lower(), name)
    return list(seen.values())


_URL_WORD = re.compile(r"(?:[A-Za-z]+:)?//[^\s\[\]'(),;]*$|[\w@#$]*/[^\s\[\]'(),;]*$")


@dataclass(frozen=True)
class _Word:
    """What is being completed: the text to replace and how names must be written."""

    prefix: str        # what the user typed of the name (without an opening [ or ')
    length: int        # characters before the cursor the completion replaces
    mode: str          # "plain" | "url" (unbracketed, with "/") | "bracket" | "string"


def _current_word(before: str) -> _Word:
    m = re.search(r"\[((?:[^\]]|\]\])*)$", before)
    if m and before.count("'") % 2 == 0:
        return _Word(m.group(1), len(m.group(0)), "bracket")
    if before.count("'") % 2 == 1:
        m = re.search(r"N?'([^']*)$", before)
        if m:
            return _Word(m.group(1), len(m.group(1)), "string")
    # An unbracketed URL-like name ("//www.develop.com/…", "http://schemas…") is one word,
    # dots and all, so that it is matched and replaced whole.
    m = _URL_WORD.search(before) or re.search(r"[\w@#$]*$", before)
    word = m.group(0) if m else ""
    return _Word(word, len(word), "url" if "/" in word else "plain")


# Completion looks at this many characters before the cursor: every keystroke of a long
# buffer (a paste without bracketed-paste mode) would otherwise rescan all of it.
_LOOKBEHIND = 500


def _tail(before: str) -> str:
    """The last :data:`_LOOKBEHIND` characters of ``before``, opened with a quote when the
    cut falls inside a string (so that the quote count still tells where the cursor is)."""
    if len(before) <= _LOOKBEHIND:
        return before
    tail = before[-_LOOKBEHIND:]
    return "'" + tail if before.count("'", 0, len(before) - _LOOKBEHIND) % 2 else tail


_CONTEXTS: tuple[tuple[re.Pattern[str], str], ...] = tuple(
    (re.compile(p + r"\s+(?:N?'[^']*|\[[^\]]*|[\w@#$/.:]*)$", re.IGNORECASE), kind)
    for p, kind in (
        (r"\bmessage\s+type", "message_types"),
        (r"\b(?:on|alter|drop)\s+queue|\breceive\b[^;]*?\bfrom|\bqueue", "queues"),
        (r"\b(?:from|to)\s+service|\b(?:alter|drop)\s+service|\bservice", "services"),
        (r"\b(?:on\s+)?contract", "contracts"),
        (r"\b(?:exec|execute|procedure_name\s*=|(?:alter|drop)\s+proc(?:edure)?)", "procedures"),
        (r"\b(?:use|database)", "databases"),
        (r"\b(?:from|join|into|update|table)", "tables"),
    )
)


class TSqlCompleter(Completer):
    """prompt-toolkit completer over a catalog snapshot provided by ``get_catalog``."""

    def __init__(self, get_catalog: Callable[[], CatalogSnapshot] | None = None) -> None:
        self.get_catalog = get_catalog or CatalogSnapshot

    def get_completions(self, document: Document,
                        complete_event: CompleteEvent) -> Iterator[Completion]:
        """Completions for the word before the cursor (see the module docstring)."""
        before = _tail(document.text_before_cursor)
        if before.lstrip().startswith(":") and "\n" not in before.strip():
            yield from self._special(before)
            return
        word = _current_word(before)
        catalog = self.get_catalog()
        if word.mode == "plain":
            qualifier = _QUALIFIED.search(before[: len(before) - word.length])
            if qualifier:
                yield from self._match(word, self._qualified(
                    catalog, qualifier.group(1), document.text))
                return
        if word.mode == "plain" and not word.prefix and not complete_event.completion_requested:
            return
        context = self._context(before)
        if word.prefix.startswith("@"):
            # The variable being typed is not a declaration of itself.
            rest = document.text[: document.cursor_position - word.length] \
                + document.text[document.cursor_position:]
            names = [*declared_variables(rest), *GLOBAL_VARIABLES]
            yield from self._match(word, [(n, "variable") for n in names], raw=True)
            return
        candidates: list[tuple[str, str]] = []
        if context is not None:
            candidates += [(n, context.rstrip("s").replace("_", " ")) for n in
                           getattr(catalog, context)]
            if context == "tables":
                candidates += [(n, "queue") for n in catalog.queues]
        if word.mode == "plain" and context is None:
            candidates += [(k, "keyword") for k in KEYWORDS]
            candidates += [(f, "function") for f in FUNCTIONS]
        if context is None:
            for kind in ("tables", "queues", "procedures", "services", "contracts",
                         "message_types"):
                candidates += [(n, kind.rstrip("s").replace("_", " "))
                               for n in getattr(catalog, kind)]
            candidates += [(c, "column") for c in catalog.all_columns()]
            candidates += [(d, "database") for d in catalog.databases]
        yield from self._match(word, candidates)

    @staticmethod
    def _qualified(catalog: CatalogSnapshot, qualifier: str,
                   text: str) -> list[tuple[str, str]]:
        """What may follow ``qualifier.``: a table's (or alias's) columns, a queue's
        columns, the catalog views after ``sys.``, or a schema's objects."""
        name = _unbracket(qualifier).lower()
        name = table_aliases(text).get(name, name)
        by_lower = {t.lower(): t for t in catalog.tables}
        if name in by_lower:
            return [(c, "column") for c in catalog.columns.get(by_lower[name], ())]
        if name in {q.lower() for q in catalog.queues}:
            return [(c, "queue column") for c in QUEUE_COLUMNS]
        if name == "sys":
            return [(v, "catalog view") for v in SYS_VIEWS]
        return [(n, kind.rstrip("s").replace("_", " "))
                for kind in ("tables", "queues", "procedures")
                for n in getattr(catalog, kind)]

    @staticmethod
    def _context(before: str) -> str | None:
        for pattern, kind in _CONTEXTS:
            if pattern.search(before):
                return kind
        return None

    def _match(self, word: _Word, candidates: Iterable[tuple[str, str]],
               raw: bool = False) -> Iterator[Completion]:
        prefix = word.prefix.lower()
        first: list[tuple[str, str]] = []
        later: list[tuple[str, str]] = []
        seen: set[tuple[str, str]] = set()
        for name, meta in candidates:
            key = (name.lower(), meta)
            if key in seen:
                continue
            seen.add(key)
            low = name.lower()
            if low.startswith(prefix):
                first.append((name, meta))
            elif prefix and prefix in low:
                later.append((name, meta))
        for name, meta in first + later:
            text = self._spell(name, word, meta, raw)
            yield Completion(text, start_position=-word.length, display=name, display_meta=meta)

    @staticmethod
    def _spell(name: str, word: _Word, meta: str, raw: bool) -> str:
        if raw or meta in ("keyword", "function"):
            return name
        if word.mode == "string":
            return name.replace("'", "''")
        if word.mode == "bracket":
            return "[" + name.replace("]", "]]") + "]"
        return quote_name(name)

    @staticmethod
    def _special(before: str) -> Iterator[Completion]:
        word = before.lstrip()
        if " " in word:
            return
        for name in sorted(COMMANDS):
            if name.startswith(word.lower()):
                yield Completion(name, start_position=-len(word),
                                 display_meta=COMMANDS[name].summary)
