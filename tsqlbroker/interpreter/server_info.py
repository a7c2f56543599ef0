"""What the instance says about itself: ``@@VERSION``, ``SERVERPROPERTY(…)`` and the
``sp_configure`` options.

tsqlbroker follows SQL Server 2019 (15.x): ``sys.databases`` reports compatibility level 150,
and the texts that changed between versions (``SET STATISTICS IO``) are 2019's. The values
here are those of a default SQL Server 2019 Developer Edition instance where they describe
SQL Server, and this process's where they describe the machine (server name, process id).
"""

from __future__ import annotations

import os
import platform
import socket
from typing import Any

from tsqlbroker import __version__

PRODUCT_VERSION = "15.0.2000.5"
PRODUCT_NAME = "Microsoft SQL Server 2019"
COLLATION = "SQL_Latin1_General_CP1_CI_AS"
SERVER_NAME = socket.gethostname().split(".")[0].upper() or "TSQLBROKER"
EDITION = "Developer Edition (64-bit)"


def _machine() -> str:
    arch = platform.machine().upper() or "X64"
    return "X64" if arch in ("X86_64", "AMD64") else arch


# @@VERSION: starts as SQL Server's does (scripts test LIKE 'Microsoft SQL Server%'), then
# says what is really answering.
VERSION = (f"{PRODUCT_NAME} (RTM) - {PRODUCT_VERSION} ({_machine()}) \n"
           f"\ttsqlbroker {__version__}, a Python interpreter of T-SQL and Service Broker "
           f"following the behaviour of {PRODUCT_NAME} \n"
           f"\t{EDITION} on {platform.system() or 'an unknown system'} "
           f"(Python {platform.python_version()}) <{_machine()}>")

_MAJOR, _MINOR, _BUILD, _REVISION = PRODUCT_VERSION.split(".")

# SERVERPROPERTY names (case-insensitive) → value; callables are evaluated per call.
_PROPERTIES: dict[str, Any] = {
    "buildclrversion": "v4.0.30319",
    "collation": COLLATION,
    "collationid": 872468488,
    "comparisonstyle": 196609,
    "computernamephysicalnetbios": SERVER_NAME,
    "edition": EDITION,
    "editionid": -2117995310,
    "engineedition": 3,
    "filestreamconfiguredlevel": 0,
    "filestreameffectivelevel": 0,
    "filestreamsharename": "MSSQLSERVER",
    "hadrmanagerstatus": None,
    "instancename": None,
    "isadvancedanalyticsinstalled": 0,
    "isbigdatacluster": 0,
    "isclustered": 0,
    "isfulltextinstalled": 0,
    "ishadrenabled": 0,
    "isintegratedsecurityonly": 0,
    "islocaldb": 0,
    "ispolybaseinstalled": 0,
    "issingleuser": 0,
    "istempdbmetadatamemoryoptimized": 0,
    "isxtpsupported": 0,
    "lcid": 1033,
    "licensetype": "DISABLED",
    "machinename": SERVER_NAME,
    "numlicenses": None,
    "processid": os.getpid,
    "productbuild": _BUILD,
    "productbuildtype": None,
    "productlevel": "RTM",
    "productmajorversion": _MAJOR,
    "productminorversion": _MINOR,
    "productupdatelevel": None,
    "productupdatereference": None,
    "productversion": PRODUCT_VERSION,
    "resourceversion": f"{_MAJOR}.00.{_BUILD}",
    "servername": SERVER_NAME,
    "sqlcharset": 1,
    "sqlcharsetname": "iso_1",
    "sqlsortorder": 52,
    "sqlsortordername": "nocase_iso",
}


def server_property(name: str | None) -> Any:
    """``SERVERPROPERTY(name)``: the value, or NULL for a name SQL Server does not know."""
    if name is None:
        return None
    value = _PROPERTIES.get(name.strip().lower())
    return value() if callable(value) else value


# sp_configure: name, minimum, maximum, value (config_value = run_value), advanced. The
# options of SQL Server 2019 a script may read, with their defaults, except that advanced
# options are shown ('show advanced options' is 1): nothing can be changed here, so hiding
# them would only hide values. All are read-only.
CONFIG_OPTIONS: list[tuple[str, int, int, int, bool]] = [
    ("access check cache bucket count", 0, 65536, 0, True),
    ("access check cache quota", 0, 2147483647, 0, True),
    ("Ad Hoc Distributed Queries", 0, 1, 0, True),
    ("allow polybase export", 0, 1, 0, False),
    ("allow updates", 0, 1, 0, False),
    ("backup checksum default", 0, 1, 0, False),
    ("backup compression default", 0, 1, 0, False),
    ("clr enabled", 0, 1, 0, False),
    ("clr strict security", 0, 1, 1, True),
    ("contained database authentication", 0, 1, 0, False),
    ("cost threshold for parallelism", 0, 32767, 5, True),
    ("cross db ownership chaining", 0, 1, 0, False),
    ("Database Mail XPs", 0, 1, 0, True),
    ("default full-text language", 0, 2147483647, 1033, True),
    ("default language", 0, 9999, 0, False),
    ("external scripts enabled", 0, 1, 0, False),
    ("filestream access level", 0, 2, 0, False),
    ("max degree of parallelism", 0, 32767, 0, True),
    ("max server memory (MB)", 128, 2147483647, 2147483647, True),
    ("max text repl size (B)", -1, 2147483647, 65536, False),
    ("max worker threads", 128, 65535, 0, True),
    ("min server memory (MB)", 0, 2147483647, 0, True),
    ("nested triggers", 0, 1, 1, False),
    ("optimize for ad hoc workloads", 0, 1, 0, True),
    ("polybase enabled", 0, 1, 0, False),
    ("remote access", 0, 1, 1, False),
    ("remote admin connections", 0, 1, 0, False),
    ("remote login timeout (s)", 0, 2147483647, 10, False),
    ("remote proc trans", 0, 1, 0, False),
    ("remote query timeout (s)", 0, 2147483647, 600, False),
    ("server trigger recursion", 0, 1, 1, False),
    ("show advanced options", 0, 1, 1, False),
    ("user connections", 0, 32767, 0, True),
    ("user options", 0, 32767, 0, False),
    ("xp_cmdshell", 0, 1, 0, True),
]


def config_options(name: str | None) -> list[tuple[str, int, int, int, bool]]:
    """The options ``sp_configure [name]`` shows: every option, or those whose name
    contains ``name`` (SQL Server takes a fragment of a name; an exact name wins)."""
    visible = CONFIG_OPTIONS
    if name is None:
        return sorted(visible, key=lambda o: o[0].lower())
    key = name.strip().lower()
    exact = [o for o in visible if o[0].lower() == key]
    return exact or [o for o in visible if key in o[0].lower()]
