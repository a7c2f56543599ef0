"""A session's ON/OFF SET options as ``@@OPTIONS`` and ``SESSIONPROPERTY`` report them.

The bits are those of the ``user options`` server configuration option. A new session starts
with the options SQL Server's client drivers switch on (ANSI_WARNINGS, ANSI_PADDING,
ANSI_NULLS, ARITHABORT, QUOTED_IDENTIFIER, ANSI_NULL_DFLT_ON, CONCAT_NULL_YIELDS_NULL: 5496,
the value the ``@@OPTIONS`` documentation decodes); ``SET <option> ON|OFF`` changes its bit.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .session import Session

OPTION_BITS: dict[str, int] = {
    "disable_def_cnst_chk": 1, "implicit_transactions": 2, "cursor_close_on_commit": 4,
    "ansi_warnings": 8, "ansi_padding": 16, "ansi_nulls": 32, "arithabort": 64,
    "arithignore": 128, "quoted_identifier": 256, "nocount": 512, "ansi_null_dflt_on": 1024,
    "ansi_null_dflt_off": 2048, "concat_null_yields_null": 4096, "numeric_roundabort": 8192,
    "xact_abort": 16384,
}
DEFAULT_ON = frozenset({"ansi_warnings", "ansi_padding", "ansi_nulls", "arithabort",
                        "quoted_identifier", "ansi_null_dflt_on", "concat_null_yields_null"})
# SESSIONPROPERTY answers for these; any other name is NULL.
SESSION_PROPERTIES = frozenset({"ansi_nulls", "ansi_padding", "ansi_warnings", "arithabort",
                                "concat_null_yields_null", "numeric_roundabort",
                                "quoted_identifier"})


def option_on(session: Session, option: str) -> bool:
    """Whether the ON/OFF option (lower-case name) is on in the session."""
    if option == "nocount":
        return session.nocount
    if option == "xact_abort":
        return session.xact_abort
    value = session.options.get(option)
    if value is None:
        return option in DEFAULT_ON
    return value.lower() == "on"


def options_bitmap(session: Session) -> int:
    """``@@OPTIONS``."""
    return sum(bit for name, bit in OPTION_BITS.items() if option_on(session, name))


def session_property(session: Session, name: str) -> int | None:
    """``SESSIONPROPERTY(name)``: 1 or 0, None for a name that is no such option."""
    option = name.strip().lower()
    if option not in SESSION_PROPERTIES:
        return None
    return 1 if option_on(session, option) else 0
