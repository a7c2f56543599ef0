"""Security catalog views with SQL Server's columns: ``sys.database_principals``,
``sys.server_principals``, ``sys.sql_logins``, ``sys.certificates``,
``sys.database_permissions``, ``sys.server_permissions``, ``sys.symmetric_keys``.

They are computed in Python (built-in principals are constants) and handed to the backend as
literal rows, like ``sys.columns``; merged into the catalog views by :mod:`sysviews`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from sqlalchemy import select

from ..errors import tsql_error
from . import certs, visibility
from .approles import SID_BYTES
from .catalog import MASTER, MSDB, TEMPDB
from .context import ExecContext, VirtualTable
from .keys import MASTER_KEY_NAME
from .literal_rows import literal_rows
from .roles import members, server_members
from .securables import CLASS_DESC, NAMES
from .security import (
    AUTH_DESC,
    LOGIN_TYPE_DESC,
    SQL_EPOCH,
    USER_TYPE_DESC,
    Principal,
    Security,
)

Columns = list[tuple[str, str | None]]
_STATE_DESC = {"G": "GRANT", "W": "GRANT_WITH_GRANT_OPTION", "D": "DENY"}
_PVT_DESC = {"MK": "ENCRYPTED_BY_MASTER_KEY", "PW": "ENCRYPTED_BY_PASSWORD",
             "NA": "NO_PRIVATE_KEY"}


def _rows(ctx: ExecContext, columns: Columns, rows: Sequence[Sequence[Any]]) -> VirtualTable:
    """A read-only virtual table of literal ``rows`` (Msg 259 on writes)."""
    return VirtualTable(literal_rows(columns, rows, ctx.conn.backend), columns,
                        refuse_error=tsql_error(259))


def shown_sid(principal: Principal) -> bytes | None:
    """A principal's ``sid`` as sys.database_principals / sys.server_principals show it: an
    application role's column holds its password hash, of which the salt is shown."""
    if principal.type == "A" and principal.sid:
        return principal.sid[:SID_BYTES]
    return principal.sid


def _database_principals(ctx: ExecContext, db_id: int) -> VirtualTable:
    cols: Columns = [
        ("name", "sysname"), ("principal_id", "int"), ("type", "char(1)"),
        ("type_desc", "nvarchar(60)"), ("default_schema_name", "sysname"),
        ("create_date", "datetime"), ("modify_date", "datetime"),
        ("owning_principal_id", "int"), ("sid", "varbinary(85)"), ("is_fixed_role", "bit"),
        ("authentication_type", "int"), ("authentication_type_desc", "nvarchar(60)"),
        ("default_language_name", "sysname"), ("default_language_lcid", "int"),
        ("allow_encrypted_value_modifications", "bit")]
    sec = Security.get(ctx.conn.store)
    sight = visibility.principal_sight(sec, ctx.conn, db_id, visibility.viewer(ctx, db_id))
    rows = [(u.name, u.principal_id, u.type, USER_TYPE_DESC.get(u.type, u.type),
             u.default_schema_name, u.create_date or SQL_EPOCH, u.modify_date or SQL_EPOCH,
             u.owning_principal_id, shown_sid(u),
             u.is_fixed_role,
             u.authentication_type if u.type != "R" else 0,
             AUTH_DESC[u.authentication_type if u.type != "R" else 0], None, None, False)
            for u in sec.users(ctx.conn, db_id)
            if sight is None or sight.sees(u.principal_id, u.type, bool(u.is_fixed_role))]
    return _rows(ctx, cols, rows)


_LOGIN_COLUMNS: Columns = [
    ("name", "sysname"), ("principal_id", "int"), ("sid", "varbinary(85)"), ("type", "char(1)"),
    ("type_desc", "nvarchar(60)"), ("is_disabled", "bit"), ("create_date", "datetime"),
    ("modify_date", "datetime"), ("default_database_name", "sysname"),
    ("default_language_name", "sysname"), ("credential_id", "int"),
    ("owning_principal_id", "int"), ("is_fixed_role", "bit")]


def _login_rows(ctx: ExecContext, types: set[str] | None = None) -> list[tuple[Any, ...]]:
    out = []
    for lg in Security.get(ctx.conn.store).logins(ctx.conn):
        if types is not None and lg.type not in types:
            continue
        role = lg.type == "R"
        out.append((lg.name, lg.principal_id, shown_sid(lg), lg.type, LOGIN_TYPE_DESC[lg.type],
                    lg.is_disabled, lg.create_date or SQL_EPOCH, lg.modify_date or SQL_EPOCH,
                    None if role else lg.default_database_name or "master",
                    None if role else "us_english", None, lg.owning_principal_id,
                    lg.is_fixed_role))
    return out


def _server_principals(ctx: ExecContext, _db_id: int) -> VirtualTable:
    return _rows(ctx, _LOGIN_COLUMNS, _login_rows(ctx))


def _sql_logins(ctx: ExecContext, _db_id: int) -> VirtualTable:
    sec = Security.get(ctx.conn.store)
    sec.ensure(ctx.conn)
    lg = sec.t.logins
    checks = {r.principal_id: (bool(r.is_policy_checked), bool(r.is_expiration_checked))
              for r in ctx.conn.execute(select(lg.c.principal_id, lg.c.is_policy_checked,
                                               lg.c.is_expiration_checked))}
    cols = [*_LOGIN_COLUMNS, ("is_policy_checked", "bit"), ("is_expiration_checked", "bit")]
    # sa: the policy is checked, expiration is not (a fresh instance's defaults).
    rows = [(*r, *checks.get(r[1], (True, False))) for r in _login_rows(ctx, {"S"})]
    return _rows(ctx, cols, rows)


def _certificates(ctx: ExecContext, db_id: int) -> VirtualTable:
    cols: Columns = [
        ("name", "sysname"), ("certificate_id", "int"), ("principal_id", "int"),
        ("pvt_key_encryption_type", "char(2)"), ("pvt_key_encryption_type_desc", "nvarchar(60)"),
        ("is_active_for_begin_dialog", "bit"), ("issuer_name", "nvarchar(442)"),
        ("cert_serial_number", "nvarchar(64)"), ("sid", "varbinary(85)"),
        ("string_sid", "nvarchar(128)"), ("subject", "nvarchar(4000)"),
        ("expiry_date", "datetime"), ("start_date", "datetime"), ("thumbprint", "varbinary(32)"),
        ("attested_by", "nvarchar(260)"), ("pvt_key_last_backup_date", "datetime"),
        ("key_length", "int")]
    rows = []
    sec = Security.get(ctx.conn.store)
    principals = visibility.viewer(ctx, db_id)
    seen = None if principals is None else visibility.visible(
        sec, ctx.conn, db_id, principals, visibility.CERTIFICATE)
    for r in sec.certificates(ctx.conn, db_id):
        # the owner sees its certificate; others need a permission on it (or one implying it)
        if principals is not None and seen is not None and \
                r["principal_id"] not in principals and \
                not seen.covers(r["certificate_id"], -1, ""):
            continue
        thumb = bytes.fromhex(r["thumbprint"])
        sid = certs.certificate_sid(thumb)
        rows.append((r["name"], r["certificate_id"], r["principal_id"],
                     r["pvt_key_encryption_type"], _PVT_DESC[r["pvt_key_encryption_type"]],
                     bool(r["is_active_for_begin_dialog"]), r["issuer_name"],
                     r["cert_serial_number"], sid, certs.sid_text(sid), r["subject"],
                     r["expiry_date"], r["start_date"], thumb, None,
                     r["pvt_key_last_backup_date"], r["key_length"]))
    return _rows(ctx, cols, rows)


_PERMISSION_COLUMNS: Columns = [
    ("class", "tinyint"), ("class_desc", "nvarchar(60)"), ("major_id", "int"),
    ("minor_id", "int"), ("grantee_principal_id", "int"), ("grantor_principal_id", "int"),
    ("type", "char(4)"), ("permission_name", "nvarchar(128)"), ("state", "char(1)"),
    ("state_desc", "nvarchar(60)")]


def _permission_row(cls: int, major: int, minor: int, grantee: int, grantor: int, code: str,
                    state: str) -> tuple[Any, ...]:
    return (cls, CLASS_DESC.get(cls, ""), major, minor, grantee, grantor, code.ljust(4),
            NAMES.get(code, code), state, _STATE_DESC[state])


def _stored_permissions(ctx: ExecContext, db_id: int) -> list[tuple[Any, ...]]:
    sec = Security.get(ctx.conn.store)
    sec.ensure(ctx.conn)
    p = sec.t.permissions
    rows = ctx.conn.execute(select(p).where(p.c.database_id == db_id).order_by(
        p.c["class"], p.c.major_id, p.c.minor_id, p.c.grantee_principal_id, p.c.type)).mappings()
    out = []
    for r in rows:
        # Objects dropped since the GRANT take their permissions with them.
        if r["class"] == 1 and sec.catalog.object_by_id(ctx.conn, db_id, r["major_id"]) is None:
            continue
        out.append(_permission_row(r["class"], r["major_id"], r["minor_id"],
                                   r["grantee_principal_id"], r["grantor_principal_id"],
                                   r["type"], r["state"]))
    return out


def _database_permissions(ctx: ExecContext, db_id: int) -> VirtualTable:
    # Every database grants its owner CONNECT; master, tempdb and msdb also guest.
    builtin = [_permission_row(0, 0, 0, 1, 1, "CO", "G")]
    if db_id in (MASTER, TEMPDB, MSDB):
        builtin.append(_permission_row(0, 0, 0, 2, 1, "CO", "G"))
    rows = sorted([*builtin, *_stored_permissions(ctx, db_id)],
                  key=lambda r: (r[0], r[2], r[3], r[4], r[6]))
    sec = Security.get(ctx.conn.store)
    sight = visibility.principal_sight(sec, ctx.conn, db_id, visibility.viewer(ctx, db_id))
    if sight is not None:
        kinds = {u.principal_id: u.type for u in sec.users(ctx.conn, db_id)}
        rows = [r for r in rows if sight.permissions_of(r[4], kinds.get(r[4], "S"))]
    return _rows(ctx, _PERMISSION_COLUMNS, rows)


def _server_permissions(ctx: ExecContext, _db_id: int) -> VirtualTable:
    return _rows(ctx, _PERMISSION_COLUMNS, _stored_permissions(ctx, 0))


def _symmetric_keys(ctx: ExecContext, db_id: int) -> VirtualTable:
    cols: Columns = [
        ("name", "sysname"), ("principal_id", "int"), ("symmetric_key_id", "int"),
        ("key_length", "int"), ("key_algorithm", "char(2)"), ("algorithm_desc", "nvarchar(60)"),
        ("create_date", "datetime"), ("modify_date", "datetime"),
        ("key_guid", "uniqueidentifier")]
    row = Security.get(ctx.conn.store).master_key(ctx.conn, db_id)
    rows = [] if row is None else [(MASTER_KEY_NAME, 1, 101, 256, "A3", "AES_256",
                                    row["create_date"], row["modify_date"], row["key_guid"])]
    return _rows(ctx, cols, rows)


def _database_role_members(ctx: ExecContext, db_id: int) -> VirtualTable:
    cols: Columns = [("role_principal_id", "int"), ("member_principal_id", "int")]
    return _rows(ctx, cols, members(Security.get(ctx.conn.store), ctx.conn, db_id))


def _server_role_members(ctx: ExecContext, _db_id: int) -> VirtualTable:
    cols: Columns = [("role_principal_id", "int"), ("member_principal_id", "int")]
    return _rows(ctx, cols, server_members(Security.get(ctx.conn.store), ctx.conn))


VIEWS: dict[str, Callable[[ExecContext, int], VirtualTable]] = {
    "database_principals": _database_principals, "server_principals": _server_principals,
    "sql_logins": _sql_logins, "certificates": _certificates,
    "database_permissions": _database_permissions, "server_permissions": _server_permissions,
    "symmetric_keys": _symmetric_keys, "database_role_members": _database_role_members,
    "server_role_members": _server_role_members,
}
