"""Owners of schemas and schema-scoped objects, as SQL Server keeps them.

A built-in schema belongs to the principal of its id (dbo 1, guest 2, INFORMATION_SCHEMA 3,
sys 4); a created one to dbo unless CREATE SCHEMA … AUTHORIZATION or ALTER AUTHORIZATION
named another principal. An object belongs to its schema's owner unless ALTER AUTHORIZATION
gave it one of its own (sys.objects.principal_id is NULL for the former, as SQL Server shows
it). Named owners are rows of ``tsqlb_sec_owners``; broker securables (message types,
contracts, services, routes, bindings) keep theirs in their own tables. The owner of a
securable holds CONTROL on it (:func:`access.holds` is told who owns the path it checks).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from sqlalchemy import delete, insert, select, update

from .access import DBO
from .catalog import FIRST_USER_SCHEMA_ID
from .securables import CLASSES

if TYPE_CHECKING:
    from ..storage.store import StoreConnection
    from .security import Security

OBJECT = CLASSES["OBJECT"][0]
SCHEMA = CLASSES["SCHEMA"][0]
ROLE = CLASSES["ROLE"][0]
TYPE = CLASSES["TYPE"][0]
XML_SCHEMA_COLLECTION = CLASSES["XML SCHEMA COLLECTION"][0]
CERTIFICATE = CLASSES["CERTIFICATE"][0]
# Classes whose owner, when ALTER AUTHORIZATION named one, is a row of tsqlb_sec_owners (no
# row: the schema's owner); roles and certificates keep theirs in their own tables.
NAMED_OWNER_CLASSES = frozenset({OBJECT, TYPE, XML_SCHEMA_COLLECTION})


class OwnerCache:
    """The owner rows (``tsqlb_sec_owners``) of each database asked about, read in one
    query the first time: for one permission check, which asks for the owners of a module,
    of each object it reaches and of their schemas several times over. Made for the check
    and dropped after it (``interpreter/authorize.py``), so it never outlives a change of
    owner."""

    def __init__(self, sec: Security, conn: StoreConnection) -> None:
        self._sec, self._conn = sec, conn
        self._rows: dict[int, dict[tuple[int, int], int]] = {}

    def named(self, db_id: int, class_: int, major_id: int) -> int | None:
        """:func:`named_owner`, from the rows of ``db_id`` read once."""
        rows = self._rows.get(db_id)
        if rows is None:
            self._sec.ensure(self._conn)
            o = self._sec.t.owners
            rows = self._rows[db_id] = {
                (int(c), int(m)): int(p) for c, m, p in self._conn.execute(
                    select(o.c["class"], o.c.major_id, o.c.principal_id)
                    .where(o.c.database_id == db_id))}
        return rows.get((class_, major_id))


def named_owner(sec: Security, conn: StoreConnection, db_id: int, class_: int,
                major_id: int, cache: OwnerCache | None = None) -> int | None:
    """The owner ALTER AUTHORIZATION / CREATE SCHEMA … AUTHORIZATION recorded for the
    schema or object, or None (the default owner); from ``cache`` when one is given."""
    if cache is not None:
        return cache.named(db_id, class_, major_id)
    sec.ensure(conn)
    o = sec.t.owners
    value = conn.execute(select(o.c.principal_id).where(
        o.c.database_id == db_id, o.c["class"] == class_, o.c.major_id == major_id)).scalar()
    return None if value is None else int(value)


def schema_owner(sec: Security, conn: StoreConnection, db_id: int, schema_id: int,
                 cache: OwnerCache | None = None) -> int:
    """The principal owning schema ``schema_id``."""
    named = named_owner(sec, conn, db_id, SCHEMA, schema_id, cache)
    if named is not None:
        return named
    return schema_id if schema_id < FIRST_USER_SCHEMA_ID else DBO


def object_owner(sec: Security, conn: StoreConnection, db_id: int, object_id: int,
                 schema_id: int, cache: OwnerCache | None = None) -> int:
    """The principal owning object ``object_id`` (its own, else its schema's owner)."""
    named = named_owner(sec, conn, db_id, OBJECT, object_id, cache)
    return named if named is not None else schema_owner(sec, conn, db_id, schema_id, cache)


def path_owners(sec: Security, conn: StoreConnection, db_id: int,
                path: list[tuple[int, int]], cache: OwnerCache | None = None
                ) -> frozenset[int]:
    """The owners of the schemas and objects on a permission path ((class, major_id), the
    securable first, its containers after): each holds CONTROL on the securable. The
    database's owner (dbo) is never checked and is left out."""
    out: set[int] = set()
    for class_, major in path:
        if class_ == SCHEMA:
            out.add(schema_owner(sec, conn, db_id, major, cache))
        elif class_ in NAMED_OWNER_CLASSES:
            named = named_owner(sec, conn, db_id, class_, major, cache)
            if named is not None:
                out.add(named)
        elif class_ in (ROLE, CERTIFICATE):
            owner = principal_owner(sec, conn, db_id, class_, major)
            if owner is not None:
                out.add(owner)
    return frozenset(out)


def principal_owner(sec: Security, conn: StoreConnection, db_id: int, class_: int,
                    major_id: int) -> int | None:
    """The owner of a created role (:data:`ROLE`) or certificate (:data:`CERTIFICATE`),
    None when there is no such role or certificate."""
    sec.ensure(conn)
    if class_ == ROLE:
        t, key = sec.t.roles, sec.t.roles.c.principal_id
        column = t.c.owning_principal_id
    else:
        t, key = sec.t.certificates, sec.t.certificates.c.certificate_id
        column = t.c.principal_id
    value = conn.execute(select(column).where(t.c.database_id == db_id, key == major_id)
                         ).scalar()
    return None if value is None else int(value)


def set_principal_owner(sec: Security, conn: StoreConnection, db_id: int, class_: int,
                        major_id: int, principal_id: int) -> None:
    """ALTER AUTHORIZATION of a role or certificate: record its new owner."""
    sec.ensure(conn)
    conn.write()
    if class_ == ROLE:
        t = sec.t.roles
        conn.execute(update(t).where(t.c.database_id == db_id, t.c.principal_id == major_id)
                     .values(owning_principal_id=principal_id))
    else:
        t = sec.t.certificates
        conn.execute(update(t).where(t.c.database_id == db_id, t.c.certificate_id == major_id)
                     .values(principal_id=principal_id))


def set_owner(sec: Security, conn: StoreConnection, db_id: int, class_: int, major_id: int,
              principal_id: int | None) -> None:
    """Record the owner of a schema or object; None: back to its default owner."""
    sec.ensure(conn)
    o = sec.t.owners
    conn.write()
    key = (o.c.database_id == db_id, o.c["class"] == class_, o.c.major_id == major_id)
    if principal_id is None:
        conn.execute(delete(o).where(*key))
    elif conn.execute(select(o.c.principal_id).where(*key)).first() is None:
        conn.execute(insert(o).values(database_id=db_id, **{"class": class_},
                                      major_id=major_id, principal_id=principal_id))
    else:
        conn.execute(update(o).where(*key).values(principal_id=principal_id))


def owned_by(sec: Security, conn: StoreConnection, db_id: int, principal_id: int
             ) -> str | None:
    """What ``principal_id`` owns that keeps it from being dropped: "schema" (Msg 15138) or
    "object" (an object of a schema owned by another), else None. Rows of objects dropped
    since do not count."""
    sec.ensure(conn)
    o = sec.t.owners
    classes = {int(c) for c, in conn.execute(select(o.c["class"]).where(
        o.c.database_id == db_id, o.c.principal_id == principal_id, _existing(sec, o)))}
    if SCHEMA in classes:
        return "schema"
    if OBJECT in classes:
        return "object"
    ro = sec.t.roles
    if conn.execute(select(ro.c.principal_id).where(
            ro.c.database_id == db_id, ro.c.owning_principal_id == principal_id,
            ro.c.principal_id != principal_id)).first() is not None:
        return "role"
    # Types and XML schema collections: their rows go when they are dropped
    # (Security.forget_securable).
    return next((_CLASS_WORDS[c] for c in (TYPE, XML_SCHEMA_COLLECTION) if c in classes), None)


# What Msg 15138 calls an owned securable of these classes.
_CLASS_WORDS = {TYPE: "type", XML_SCHEMA_COLLECTION: "XML schema collection"}


def _existing(sec: Security, o: Any) -> Any:
    """The owner rows whose schema or object still exists (a type's or XML schema
    collection's goes when it is dropped)."""
    objects, schemas = sec.catalog.t.objects, sec.catalog.t.schemas
    return (((o.c["class"] == OBJECT) & o.c.major_id.in_(
        select(objects.c.object_id).where(objects.c.database_id == o.c.database_id)))
        | ((o.c["class"] == SCHEMA) & o.c.major_id.in_(
            select(schemas.c.schema_id).where(schemas.c.database_id == o.c.database_id)))
        | o.c["class"].in_([TYPE, XML_SCHEMA_COLLECTION]))


def owned_ids(sec: Security, conn: StoreConnection, db_id: int,
              principals: frozenset[int], class_: int) -> frozenset[int]:
    """The ids of the schemas (``class_`` :data:`SCHEMA`, built-in ones included) or objects
    (:data:`OBJECT`: those with an owner of their own) that one of ``principals`` owns."""
    sec.ensure(conn)
    o = sec.t.owners
    found = {int(m) for m, in conn.execute(select(o.c.major_id).where(
        o.c.database_id == db_id, o.c["class"] == class_, o.c.principal_id.in_(principals)))}
    if class_ == SCHEMA:
        found |= {p for p in principals if DBO <= p < FIRST_USER_SCHEMA_ID}
    return frozenset(found)


def owned_map(sec: Security, conn: StoreConnection, db_id: int, class_: int) -> dict[int, int]:
    """major_id -> principal_id of the securables of ``class_`` with an owner of their own."""
    sec.ensure(conn)
    o = sec.t.owners
    return {int(m): int(p) for m, p in conn.execute(select(o.c.major_id, o.c.principal_id)
                                                    .where(o.c.database_id == db_id,
                                                           o.c["class"] == class_))}


def module_principal_column(sec: Security, db_id: Any, object_id: Any) -> Any:
    """A scalar subquery: a module's execute_as_principal_id (NULL: CALLER), for
    sys.sql_modules."""
    m = sec.t.module_principals
    return (select(m.c.principal_id).where(m.c.database_id == db_id, m.c.object_id == object_id)
            .scalar_subquery())


def owner_column(sec: Security, class_: int, db_id: Any, major_id: Any) -> Any:
    """A scalar subquery: the recorded owner of a schema / object (NULL when it has none),
    for the catalog views."""
    o = sec.t.owners
    return (select(o.c.principal_id).where(
        o.c.database_id == db_id, o.c["class"] == class_, o.c.major_id == major_id)
        .scalar_subquery())


def set_module_principal(sec: Security, conn: StoreConnection, db_id: int, object_id: int,
                         principal_id: int | None) -> None:
    """Record a module's execute_as_principal_id (SELF: the principal that created or last
    altered it; -2 OWNER; a user's id); None: EXECUTE AS CALLER (the row goes)."""
    sec.ensure(conn)
    m = sec.t.module_principals
    conn.write()
    conn.execute(delete(m).where(m.c.database_id == db_id, m.c.object_id == object_id))
    if principal_id is not None:
        conn.execute(insert(m).values(database_id=db_id, object_id=object_id,
                                      principal_id=principal_id))


def module_principal(sec: Security, conn: StoreConnection, db_id: int, object_id: int
                     ) -> int | None:
    """Module ``object_id``'s execute_as_principal_id: for EXECUTE AS SELF the principal it
    runs as (None: CALLER, or a module made before this was kept)."""
    sec.ensure(conn)
    m = sec.t.module_principals
    value = conn.execute(select(m.c.principal_id).where(
        m.c.database_id == db_id, m.c.object_id == object_id)).scalar()
    return None if value is None else int(value)
