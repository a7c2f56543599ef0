"""Metadata visibility as SQL Server limits it: a principal sees in the catalog views only
the securables it owns or holds some permission on.

A row is visible when one of the viewer's principals (itself, public, its roles) holds a
GRANT of any permission on the securable (a column permission counts for its object), on
the schema containing it, or at the database level a permission that implies one on it
(CONTROL, ALTER or VIEW DEFINITION on the database imply one on everything; SELECT on the
database one on every table and view; ALTER ANY SCHEMA on every schema's objects; ALTER ANY
MESSAGE TYPE on every message type …); the fixed database roles count with what they carry
(``access.FIXED_ROLES``). An owner sees the objects of the schemas it owns and the objects
it owns (:mod:`owners`); dbo and sysadmin are never filtered: the interpreter says who is
looking (``UdfBridge.viewer``), None for someone who sees everything.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from sqlalchemy import and_, false, literal_column, or_, select

from ..errors import tsql_error
from . import owners
from .access import FIXED_ROLES
from .securables import CLASSES, NAMES
from .security import Security
from .udf_bridge import bridge_of

if TYPE_CHECKING:
    from ..storage.store import StoreConnection
    from .context import ExecContext

# The securable classes (sys.database_permissions.class) this module filters on.
DATABASE = CLASSES["DATABASE"][0]
OBJECT = CLASSES["OBJECT"][0]
SCHEMA = CLASSES["SCHEMA"][0]
PRINCIPAL = CLASSES["USER"][0]
TYPE = CLASSES["TYPE"][0]
MESSAGE_TYPE = CLASSES["MESSAGE TYPE"][0]
CONTRACT = CLASSES["CONTRACT"][0]
SERVICE = CLASSES["SERVICE"][0]
BINDING = CLASSES["REMOTE SERVICE BINDING"][0]
ROUTE = CLASSES["ROUTE"][0]
CERTIFICATE = CLASSES["CERTIFICATE"][0]
ENDPOINT = CLASSES["ENDPOINT"][0]
# the permissions on a schema that show the user-defined types in it
_TYPE_SCHEMA = frozenset({"CONTROL", "ALTER", "TAKE OWNERSHIP", "VIEW DEFINITION",
                          "REFERENCES", "EXECUTE"})
# database-level permission -> {securable class: the object types it covers (None: every
# securable of the class)}; "*" is every class
_DATA = frozenset({"U", "V"})
_DB_IMPLIES: dict[str, dict[int, frozenset[str] | None] | str] = {
    "CONTROL": "*", "ALTER": "*", "VIEW DEFINITION": "*",
    "SELECT": {OBJECT: frozenset({"U", "V", "IF", "TF", "SQ"})},
    "INSERT": {OBJECT: _DATA}, "UPDATE": {OBJECT: _DATA}, "DELETE": {OBJECT: _DATA},
    "EXECUTE": {OBJECT: frozenset({"P", "PC", "X", "FN", "FS", "AF"}), TYPE: None},
    "REFERENCES": {OBJECT: frozenset({"U", "V", "FN", "IF", "TF"}), TYPE: None,
                   MESSAGE_TYPE: None, CONTRACT: None},
    "ALTER ANY SCHEMA": {OBJECT: None},
    "ALTER ANY MESSAGE TYPE": {MESSAGE_TYPE: None}, "ALTER ANY CONTRACT": {CONTRACT: None},
    "ALTER ANY SERVICE": {SERVICE: None}, "ALTER ANY REMOTE SERVICE BINDING": {BINDING: None},
    "ALTER ANY ROUTE": {ROUTE: None}, "ALTER ANY CERTIFICATE": {CERTIFICATE: None},
}
# dbo, guest, INFORMATION_SCHEMA, sys and public: shown to every user of the database
_SYSTEM_PRINCIPALS = frozenset({0, 1, 2, 3, 4})
# principal type -> the database permission that shows every principal of it (users: ALTER
# ANY USER)
_ADMIN_OF = {"R": "ALTER ANY ROLE", "A": "ALTER ANY APPLICATION ROLE"}
_USER_ADMIN = "ALTER ANY USER"


# The permissions that show a module's definition (sys.sql_modules.definition).
DEFINITION = frozenset({"VIEW DEFINITION", "ALTER", "CONTROL", "TAKE OWNERSHIP",
                        "ALTER ANY SCHEMA"})


@dataclass(frozen=True)
class Visible:
    """The securables of one class a viewer may see (when not all of them)."""

    ids: frozenset[int]                  # with a permission of their own
    # objects: those in these schemas, of the types a permission on the schema covers (None:
    # every type)
    schemas: tuple[tuple[int, frozenset[str] | None], ...] = ()
    types: frozenset[str] = frozenset()    # objects: those of these types
    everything: bool = False               # every one of the class (but the denied)
    # DENY VIEW DEFINITION (or CONTROL) on these, or on the schema holding them, hides them
    # whatever else is granted
    denied: frozenset[int] = frozenset()
    denied_schemas: frozenset[int] = frozenset()

    def covers(self, object_id: int, schema_id: int, type_: str) -> bool:
        """Whether the object (``type_`` its sys.objects type) is visible."""
        if object_id in self.denied or schema_id in self.denied_schemas:
            return False
        if self.everything or object_id in self.ids or type_ in self.types:
            return True
        return any(schema_id == s and (types is None or type_ in types)
                   for s, types in self.schemas)


def viewer(ctx: ExecContext, db_id: int) -> frozenset[int] | None:
    """The principals of database ``db_id`` the session of ``ctx`` views the catalog as, or
    None when it sees everything (dbo, sysadmin, or no interpreter attached)."""
    bridge = bridge_of(ctx.conn.store)
    if bridge is None:
        return None
    return bridge.viewer(ctx.session_id, db_id)


def require_server_state(ctx: ExecContext) -> None:
    """A server-scoped DMV (sys.dm_broker_*, sys.dm_tran_locks) needs VIEW SERVER STATE:
    Msg 300 without it (SQL Server follows it with Msg 297, which is not repeated here)."""
    bridge = bridge_of(ctx.conn.store)
    if bridge is not None and not bridge.holds_server(ctx.session_id, "VIEW SERVER STATE"):
        raise tsql_error(300, "VIEW SERVER STATE", "server", "master")


def sees_server_state(ctx: ExecContext) -> bool:
    """Whether the session may see every session in sys.dm_exec_sessions / requests (VIEW
    SERVER STATE); without it those DMVs show its own session only, as documented."""
    bridge = bridge_of(ctx.conn.store)
    return bridge is None or bridge.holds_server(ctx.session_id, "VIEW SERVER STATE")


# The built-in TSQL endpoints on which public holds CONNECT in every SQL Server instance (all
# but the dedicated admin connection, id 1): shown to every login
_PUBLIC_ENDPOINTS = frozenset({2, 3, 4, 5})


def endpoint_filter(ctx: ExecContext) -> Callable[[int, int | None], bool] | None:
    """Whether the session of ``ctx`` sees an endpoint (id, owner's principal_id) in
    sys.endpoints / tcp_endpoints / service_broker_endpoints: its owner, or a login holding
    a GRANT of some permission on it (CONNECT, ALTER, CONTROL, VIEW DEFINITION …), unless
    VIEW DEFINITION or CONTROL on it is denied; None when every endpoint is seen."""
    bridge = bridge_of(ctx.conn.store)
    principals = None if bridge is None else bridge.endpoint_viewer(ctx.session_id)
    if principals is None:
        return None
    p = Security.get(ctx.conn.store).t.permissions
    rows = ctx.conn.execute(select(p.c.major_id, p.c.state, p.c.type).where(
        p.c.database_id == 0, p.c["class"] == ENDPOINT, p.c.minor_id == 0,
        p.c.grantee_principal_id.in_(principals))).all()
    granted = {int(m) for m, state, _t in rows if state in ("G", "W")} | _PUBLIC_ENDPOINTS
    denied = {int(m) for m, state, t in rows if state == "D" and str(t).strip() in _HIDING}

    def seen(endpoint_id: int, owner: int | None) -> bool:
        return owner in principals or (endpoint_id in granted
                                       and endpoint_id not in denied)
    return seen


def visible(sec: Security, conn: StoreConnection, db_id: int, principals: frozenset[int],
            class_: int, *, only: frozenset[str] | None = None) -> Visible | None:
    """What of class ``class_`` (:data:`OBJECT`, :data:`TYPE`, :data:`MESSAGE_TYPE`,
    :data:`CONTRACT`, :data:`SERVICE`, :data:`BINDING`, :data:`ROUTE` …) ``principals`` may
    see; None: all of it.
    ``only``: count only these permissions (:data:`DEFINITION`)."""
    rows, held = _granted(sec, conn, db_id, principals, only)
    denials = _denials(sec, conn, db_id, principals)
    if (DATABASE, 0) in denials:
        return Visible(frozenset())     # DENY VIEW DEFINITION on the database: nothing
    # an owner sees what it owns, whatever is denied (CONTROL comes with ownership)
    own_objects = owners.owned_ids(sec, conn, db_id, principals, OBJECT) \
        if class_ == OBJECT else frozenset()
    own_schemas = owners.owned_ids(sec, conn, db_id, principals, SCHEMA) \
        if class_ == OBJECT else frozenset()
    denied = frozenset(m for c, m in denials if c == class_) - own_objects
    denied_schemas = frozenset(m for c, m in denials if c == SCHEMA) - own_schemas \
        if class_ in (OBJECT, TYPE) else frozenset()
    types: set[str] = set()
    everything = False
    for permission in held:
        implied = _DB_IMPLIES.get(permission)
        if implied == "*":
            everything = True
        elif isinstance(implied, dict) and class_ in implied:
            covered = implied[class_]
            if covered is None:
                everything = True
            else:
                types |= covered
    if everything and not denied and not denied_schemas:
        return None
    ids = frozenset(int(m) for c, m, _t in rows if int(c) == class_) | own_objects
    schemas = _schemas(rows) + tuple((s, None) for s in sorted(own_schemas)) \
        if class_ == OBJECT else _type_schemas(rows) if class_ == TYPE else ()
    return Visible(ids, schemas, frozenset(types), everything, denied, denied_schemas)


def _type_schemas(rows: Iterable[Any]) -> tuple[tuple[int, frozenset[str] | None], ...]:
    """The schemas whose user-defined types a permission on the schema shows."""
    return tuple((int(m), None) for m in sorted({
        int(major) for c, major, code in rows
        if int(c) == SCHEMA and NAMES.get(str(code).strip(), "") in _TYPE_SCHEMA}))


_HIDING = ("VW", "CL")     # a DENY of VIEW DEFINITION, or of CONTROL (which implies it)


def _denials(sec: Security, conn: StoreConnection, db_id: int, principals: frozenset[int]
             ) -> set[tuple[int, int]]:
    """(class, major_id) of the securables on which VIEW DEFINITION is denied to one of
    ``principals``: DENY beats every GRANT that would show them (Metadata Visibility
    Configuration: "deny him VIEW DEFINITION" hides an object he may still SELECT from)."""
    p = sec.t.permissions
    return {(int(c), int(m)) for c, m in conn.execute(select(p.c["class"], p.c.major_id).where(
        p.c.database_id == db_id, p.c.grantee_principal_id.in_(principals),
        p.c.state == "D", p.c.minor_id == 0, p.c.type.in_(_HIDING)))}


def _granted(sec: Security, conn: StoreConnection, db_id: int, principals: frozenset[int],
             only: frozenset[str] | None = None) -> tuple[list[Any], set[str]]:
    """(class, major_id, type) of the GRANTs ``principals`` hold (``only`` these
    permissions), and the database-level permissions among them or carried by their fixed
    roles."""
    p = sec.t.permissions
    rows = list(conn.execute(select(p.c["class"], p.c.major_id, p.c.type).where(
        p.c.database_id == db_id, p.c.grantee_principal_id.in_(principals),
        p.c.state.in_(("G", "W")))).all())
    if only is not None:
        rows = [r for r in rows if NAMES.get(str(r[2]).strip(), "") in only]
    held = {NAMES.get(str(t).strip(), "") for c, _m, t in rows if int(c) == DATABASE}
    for role in principals & FIXED_ROLES.keys():
        state, carried = FIXED_ROLES[role]
        if state == "G":
            held |= carried if only is None else carried & only
    return rows, held


@dataclass(frozen=True)
class PrincipalSight:
    """The database principals a viewer may see (sys.database_principals) and whose
    permissions (sys.database_permissions), as SQL Server documents for those views: its
    own user and roles always; other users with ALTER ANY USER or a permission on the user;
    other roles with ALTER ANY ROLE (application roles ALTER ANY APPLICATION ROLE) or a
    permission on them; the system users and fixed roles are listed to everyone."""

    own: frozenset[int]           # the viewer, public and the roles it is a member of
    ids: frozenset[int]           # principals it holds a permission on
    admin: frozenset[str]         # ALTER ANY USER / ROLE / APPLICATION ROLE held

    def permissions_of(self, principal_id: int, type_: str) -> bool:
        """Whether the viewer sees the permissions granted to the principal."""
        if principal_id in self.own or principal_id in self.ids:
            return True
        return _ADMIN_OF.get(type_.strip(), _USER_ADMIN) in self.admin

    def sees(self, principal_id: int, type_: str, fixed: bool) -> bool:
        """Whether the viewer sees the principal's row."""
        return fixed or principal_id in _SYSTEM_PRINCIPALS or \
            self.permissions_of(principal_id, type_)


def principal_sight(sec: Security, conn: StoreConnection, db_id: int,
                    principals: frozenset[int] | None) -> PrincipalSight | None:
    """What of database ``db_id``'s principals ``principals`` (:func:`viewer`) may see;
    None: all of them (CONTROL, ALTER or VIEW DEFINITION on the database)."""
    if principals is None:
        return None
    rows, held = _granted(sec, conn, db_id, principals)
    if any(_DB_IMPLIES.get(p) == "*" for p in held):
        return None
    admin = frozenset(held & {_USER_ADMIN, *_ADMIN_OF.values()})
    return PrincipalSight(principals, frozenset(int(m) for c, m, _t in rows
                                                if int(c) == PRINCIPAL), admin)


def _schemas(rows: Iterable[Any]) -> tuple[tuple[int, frozenset[str] | None], ...]:
    """(schema id, object types) a permission on a schema shows: SELECT tables and views,
    EXECUTE modules …; ALTER, CONTROL, VIEW DEFINITION … every object in it."""
    out: dict[int, set[str] | None] = {}
    for c, major, code in rows:
        if int(c) != SCHEMA:
            continue
        implied = _DB_IMPLIES.get(NAMES.get(str(code).strip(), ""))
        covered = implied.get(OBJECT) if isinstance(implied, dict) else None
        key = int(major)
        if covered is None or out.get(key, set()) is None:
            out[key] = None
        else:
            out.setdefault(key, set()).update(covered)  # type: ignore[union-attr]
    return tuple((k, None if v is None else frozenset(v)) for k, v in sorted(out.items()))


def object_visible(conn: StoreConnection, session_id: int, obj: Any, *,
                   definition: bool = False) -> bool:
    """Whether session ``session_id`` may see the catalog object ``obj`` (``definition``: its
    module text, which needs VIEW DEFINITION or the like); a constraint or trigger goes
    with its table."""
    bridge = bridge_of(conn.store)
    principals = None if bridge is None else bridge.viewer(session_id, int(obj.database_id))
    if principals is None:
        return True
    seen = visible(Security.get(conn.store), conn, int(obj.database_id), principals,
                   OBJECT, only=DEFINITION if definition else None)
    if seen is None:
        return True
    schema_id, parent = int(obj.schema_id), int(obj.parent_object_id or 0)
    return seen.covers(int(obj.object_id), schema_id, str(obj.type).strip()) or bool(
        parent and seen.covers(parent, schema_id, "U"))


def _ints(values: Iterable[int]) -> str:
    return ", ".join(str(int(v)) for v in sorted(values))


def _quoted(types: Iterable[str]) -> str:
    return ", ".join("'" + t.replace("'", "''") + "'" for t in sorted(types))


def condition_text(v: Visible | None, id_col: str, schema_col: str | None = None,
                   type_col: str | None = None) -> str:
    """SQL text (both backends) true for the rows ``v`` lets the viewer see."""
    if v is None:
        return "1 = 1"
    hidden = []
    if v.denied:
        hidden.append(f"{id_col} NOT IN ({_ints(v.denied)})")
    if v.denied_schemas and schema_col:
        hidden.append(f"{schema_col} NOT IN ({_ints(v.denied_schemas)})")
    if v.everything:
        return "(" + " AND ".join(hidden) + ")" if hidden else "1 = 1"
    parts = []
    if v.ids:
        parts.append(f"{id_col} IN ({_ints(v.ids)})")
    if schema_col:
        for schema_id, types in v.schemas:
            on_types = "" if types is None or not type_col else \
                f" AND {type_col} IN ({_quoted(types)})"
            parts.append(f"({schema_col} = {schema_id}{on_types})")
    if v.types and type_col:
        parts.append(f"{type_col} IN ({_quoted(v.types)})")
    shown = "(" + " OR ".join(parts) + ")" if parts else "1 = 0"
    return "(" + " AND ".join([shown, *hidden]) + ")" if hidden else shown


def condition(v: Visible | None, id_col: Any, schema_col: Any = None,
              type_col: Any = None) -> Any:
    """The SQLAlchemy form of :func:`condition_text`."""
    if v is None:
        return literal_column("1") == 1
    hidden = []
    if v.denied:
        hidden.append(id_col.notin_(sorted(v.denied)))
    if v.denied_schemas and schema_col is not None:
        hidden.append(schema_col.notin_(sorted(v.denied_schemas)))
    if v.everything:
        return and_(*hidden) if hidden else literal_column("1") == 1
    parts = []
    if v.ids:
        parts.append(id_col.in_(sorted(v.ids)))
    if schema_col is not None:
        for schema_id, types in v.schemas:
            on_schema = schema_col == schema_id
            parts.append(on_schema if types is None or type_col is None
                         else and_(on_schema, type_col.in_(sorted(types))))
    if v.types and type_col is not None:
        parts.append(type_col.in_(sorted(v.types)))
    shown = or_(*parts) if parts else false()
    return and_(shown, *hidden) if hidden else shown
