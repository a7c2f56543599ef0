"""OBJECTPROPERTY / OBJECTPROPERTYEX, COLUMNPROPERTY and COL_LENGTH over the catalog.

One rule for both places they are called from: the interpreter (``IF OBJECTPROPERTY(…) = 1``)
and queries with FROM, where a per-row call (``OBJECTPROPERTY(object_id, 'IsView')`` over
``sys.objects``) reads the values of every object the session may see as literal rows
(engine/metafuncs.py). An object the session cannot see (metadata visibility), an unknown id
or property, or a property that does not apply to the object's kind answer NULL, as the
documentation says.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from sqlalchemy import select

from ..storage.store import StoreConnection
from . import owners
from .catalog import Catalog, ObjectRow
from .security import Security
from .sysviews import type_facts
from .triggers import trigger_from_row
from .visibility import object_visible

# A view's columns as the catalog's column rows read them (engine/viewcols.py describes
# them; the catalog keeps no columns for views, and describing needs sqlglot, which this
# module, loaded at start-up, does not import).
ViewColumns = Callable[[ObjectRow], list[dict[str, Any]]]

_TABLES = frozenset({"U", "S", "IT"})
_FUNCTIONS = frozenset({"FN", "IF", "TF", "FS", "FT", "AF"})
_CONSTRAINTS = frozenset({"C", "D", "F", "PK", "UQ"})
_MODULES = frozenset({"P", "FN", "IF", "TF", "V", "TR", "U"})

# Properties that test the object's kind: 0 or 1 for any schema-scoped object.
_KIND: dict[str, frozenset[str]] = {
    "istable": _TABLES, "isusertable": frozenset({"U"}), "issystemtable": frozenset({"S"}),
    "isview": frozenset({"V"}), "isprocedure": frozenset({"P", "PC", "X", "RF"}),
    "isextendedproc": frozenset({"X"}), "isreplproc": frozenset({"RF"}),
    "isscalarfunction": frozenset({"FN", "FS"}),
    "istablefunction": frozenset({"IF", "TF", "FT"}), "isinlinefunction": frozenset({"IF"}),
    "istrigger": frozenset({"TR", "TA"}), "isprimarykey": frozenset({"PK"}),
    "isforeignkey": frozenset({"F"}), "ischeckcnst": frozenset({"C"}),
    "isdefaultcnst": frozenset({"D"}), "isuniquecnst": frozenset({"UQ"}),
    "isconstraint": _CONSTRAINTS, "isqueue": frozenset({"SQ"}), "isrule": frozenset({"R"}),
}
_TRIGGER_EVENT = {"execisinserttrigger": "INSERT", "execisupdatetrigger": "UPDATE",
                  "execisdeletetrigger": "DELETE"}
_TABLE_TRIGGER = {"hasinserttrigger": "INSERT", "hasupdatetrigger": "UPDATE",
                  "hasdeletetrigger": "DELETE"}
_HAS_TRIGGER = frozenset({*_TABLE_TRIGGER, "hasaftertrigger", "hasinsteadoftrigger"})
_TABLE_HAS = {"tablehasprimarykey": "PK", "tablehasforeignkey": "F",
              "tablehascheckcnst": "C", "tablehasdefaultcnst": "D",
              "tablehasuniquecnst": "UQ"}


class _Object:
    """The facts of one object a property reads, loaded lazily."""

    def __init__(self, conn: StoreConnection, row: ObjectRow) -> None:
        self.conn, self.row = conn, row
        self.type = row.type.strip().upper()

    def children(self, kinds: set[str]) -> list[ObjectRow]:
        return Catalog.get(self.conn.store).objects(self.conn, self.row.database_id, kinds,
                                                    parent_id=self.row.object_id)

    def has_identity(self) -> bool:
        c = Catalog.get(self.conn.store).t.columns
        return self.conn.execute(select(c.c.column_id).where(
            c.c.object_id == self.row.object_id, c.c.is_identity.is_(True))).first() is not None


def _value(o: _Object, prop: str) -> Any:
    """OBJECTPROPERTY ``prop`` (lower case) of the visible object ``o``."""
    kinds = _KIND.get(prop)
    if kinds is not None:
        return int(o.type in kinds)
    if prop == "ismsshipped" or (prop == "isencrypted" and o.type in _MODULES):
        return 0
    if prop == "ownerid":
        return owners.object_owner(Security.get(o.conn.store), o.conn, o.row.database_id,
                                   o.row.object_id, o.row.schema_id)
    if prop == "schemaid":
        return o.row.schema_id
    if o.type == "TR":
        trigger = trigger_from_row(o.row)
        if prop in _TRIGGER_EVENT:
            return int(_TRIGGER_EVENT[prop] in trigger.events)
        return {"execisinsteadoftrigger": int(trigger.instead_of),
                "execisaftertrigger": int(not trigger.instead_of),
                "execistriggerdisabled": int(trigger.disabled)}.get(prop)
    if (o.type in _TABLES or o.type == "V") and prop in _HAS_TRIGGER:
        triggers = [trigger_from_row(t) for t in o.children({"TR"})]
        if prop == "hasinsteadoftrigger":
            return int(any(t.instead_of for t in triggers))
        if prop == "hasaftertrigger":
            return int(any(not t.instead_of for t in triggers))
        return int(any(_TABLE_TRIGGER[prop] in t.events for t in triggers))
    if o.type in _TABLES:
        if prop == "tablehasidentity":
            return int(o.has_identity())
        if prop in _TABLE_HAS:
            return int(bool(o.children({_TABLE_HAS[prop]})))
    if o.type in _FUNCTIONS or o.type == "V":
        if prop == "isschemabound":
            return 0  # WITH SCHEMABINDING is not kept (decisions.md)
        if prop == "isdeterministic":
            return None  # not worked out: unknown
    return None


def _visible_row(conn: StoreConnection, session_id: int, db_id: int, object_id: Any
                 ) -> ObjectRow | None:
    if object_id is None:
        return None
    row = Catalog.get(conn.store).object_by_id(conn, db_id, int(object_id))
    if row is None or not object_visible(conn, session_id, row):
        return None  # metadata visibility: an object the caller cannot see
    return row


def object_property(conn: StoreConnection, session_id: int, db_id: int, object_id: Any,
                    prop: str | None, *, ex: bool = False) -> Any:
    """OBJECTPROPERTY (``ex``: OBJECTPROPERTYEX, which adds BaseType) of object
    ``object_id`` of database ``db_id`` as session ``session_id`` sees it."""
    row = _visible_row(conn, session_id, db_id, object_id)
    if row is None or prop is None:
        return None
    return _property(_Object(conn, row), prop.strip().lower(), ex)


def _property(o: _Object, prop: str, ex: bool) -> Any:
    if ex and prop == "basetype":
        return o.type
    return _value(o, prop)


def object_properties(conn: StoreConnection, session_id: int, db_id: int, prop: str | None,
                      *, ex: bool = False) -> list[tuple[int, Any]]:
    """(object_id, value) of ``prop`` for every object of ``db_id`` the session sees."""
    if prop is None:
        return []
    low = prop.strip().lower()
    out = []
    for row in Catalog.get(conn.store).objects(conn, db_id):
        if object_visible(conn, session_id, row):
            out.append((row.object_id, _property(_Object(conn, row), low, ex)))
    return out


# -- columns ----------------------------------------------------------------------------------
def _columns(conn: StoreConnection, row: ObjectRow, resolve: ViewColumns | None
             ) -> list[Any]:
    """The column rows of table or view ``row`` (a view's only with ``resolve``)."""
    if row.type.strip().upper() == "V":
        return resolve(row) if resolve is not None else []
    c = Catalog.get(conn.store).t.columns
    return list(conn.execute(select(c).where(c.c.object_id == row.object_id)).mappings())


def _column(conn: StoreConnection, row: ObjectRow, column: str,
            resolve: ViewColumns | None) -> Any:
    return next((r for r in _columns(conn, row, resolve)
                 if r["name"].lower() == column.lower()), None)


def col_length(conn: StoreConnection, session_id: int, db_id: int, object_id: Any,
               column: str | None, resolve: ViewColumns | None = None) -> int | None:
    """COL_LENGTH: the column's defined length in bytes (-1 for a (max) type), NULL for no
    such (visible) table or column (a view's columns with ``resolve``)."""
    row = _visible_row(conn, session_id, db_id, object_id)
    if row is None or column is None:
        return None
    col = _column(conn, row, column, resolve)
    return None if col is None else type_facts(col["type_spec"])[2]


_TEXTUAL = frozenset({"char", "varchar", "nchar", "nvarchar", "binary", "varbinary", "text",
                      "ntext", "image", "xml", "sysname"})


def _precision(spec: str) -> int | None:
    name, _tid, _len, precision, _scale, chars = type_facts(spec)
    if name in _TEXTUAL:
        return chars if chars is not None else -1
    return precision


def _scale(spec: str) -> int | None:
    name, _tid, _len, _precision, scale, _chars = type_facts(spec)
    return None if name in _TEXTUAL else scale


_COLUMN_PROPS: dict[str, Callable[[Any], Any]] = {
    "allowsnull": lambda c: int(bool(c["is_nullable"])),
    "columnid": lambda c: c["column_id"],
    "iscomputed": lambda c: int(bool(c["is_computed"])),
    "isidentity": lambda c: int(bool(c["is_identity"])),
    "isrowguidcol": lambda _c: 0, "isidnotforrepl": lambda _c: 0,
    "isfulltextindexed": lambda _c: 0, "issparse": lambda _c: 0, "iscolumnset": lambda _c: 0,
    "ishidden": lambda _c: 0, "generatedalwaystype": lambda _c: 0,
    "precision": lambda c: _precision(c["type_spec"]),
    "scale": lambda c: _scale(c["type_spec"]),
}


def column_property(conn: StoreConnection, session_id: int, db_id: int, object_id: Any,
                    column: str | None, prop: str | None, resolve: ViewColumns | None = None
                    ) -> Any:
    """COLUMNPROPERTY of column ``column`` of (visible) table or view ``object_id`` (a
    view's columns with ``resolve``)."""
    row = _visible_row(conn, session_id, db_id, object_id)
    if row is None or column is None or prop is None:
        return None
    col = _column(conn, row, column, resolve)
    rule = _COLUMN_PROPS.get(prop.strip().lower())
    return None if col is None or rule is None else rule(col)


def column_properties(conn: StoreConnection, session_id: int, db_id: int, prop: str | None,
                      resolve: ViewColumns | None = None) -> list[tuple[int, str, Any]]:
    """(object_id, lower-case column name, value) of COLUMNPROPERTY ``prop`` (None:
    COL_LENGTH) for every column of the objects of ``db_id`` the session sees (views' with
    ``resolve``)."""
    rule = None if prop is None else _COLUMN_PROPS.get(prop.strip().lower())
    if prop is not None and rule is None:
        return []
    catalog = Catalog.get(conn.store)
    c = catalog.t.columns
    rows = [row for row in catalog.objects(conn, db_id) if object_visible(conn, session_id, row)]
    seen = {row.object_id for row in rows}
    cols: list[tuple[int, Any]] = [
        (int(col["object_id"]), col)
        for col in conn.execute(select(c).where(c.c.object_id.in_(sorted(seen)))).mappings()]
    if resolve is not None:
        cols += [(row.object_id, col) for row in rows if row.type.strip().upper() == "V"
                 for col in resolve(row)]
    out = []
    for object_id, col in cols:
        value = type_facts(col["type_spec"])[2] if rule is None else rule(col)
        out.append((object_id, str(col["name"]).lower(), value))
    return out
