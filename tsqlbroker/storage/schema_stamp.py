"""Schema stamps: what a store was last set up with, so that a start need not check it again.

Setting a store up (``Catalog.ensure_schema`` / ``create_tables``) checks every engine table
(``create_all(checkfirst=True)``) and, on PostgreSQL, re-creates the engine's SQL functions:
some 75 statements on every start. The setup records, in the same transaction and under the
same lock, a *stamp* for each part it set up: a row of ``tsqlb_counters`` (a table every store
has, so the stored layout stays as the released code made it) named ``layout:<part>`` whose
value is the :func:`fingerprint` of that part's tables and backend objects. A later start reads
the stamps in one query; a part whose stamp equals the fingerprint of what this code would
create is known to be there (tables are never dropped by the engine) and is not checked again.
A different version of the code has a different fingerprint: it checks, creates what is
missing and writes its own stamp.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable

from sqlalchemy import Table

# Rows of tsqlb_counters holding stamps: STAMP_PREFIX + the part's name.
STAMP_PREFIX = "layout:"
# Changes when what the fingerprint covers changes meaning.
_FORMAT = b"tsqlb-stamp-1\n"


def fingerprint(tables: Iterable[Table], objects: str = "") -> int:
    """A number (fits a signed 64-bit column) that changes when any of ``tables`` (name,
    columns and their types, keys, constraints, indexes) or ``objects`` (the text of what
    the backend creates besides tables, e.g. SQL functions) changes."""
    h = hashlib.blake2b(_FORMAT, digest_size=8)
    for table in sorted(tables, key=lambda t: t.name):
        # repr() names every column with its type and flags; constraints and indexes are
        # sets: sorted so the order of creation does not matter.
        h.update(repr(table).encode())
        for part in sorted(repr(c) for c in (*table.constraints, *table.indexes)):
            h.update(part.encode())
    h.update(objects.encode())
    return int.from_bytes(h.digest(), "big") >> 2
