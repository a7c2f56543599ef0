"""System tables of the security catalog: database principals (users), logins,
certificates, database master keys and permissions (``tsqlb_sec_*``).

Built-in principals (public, dbo, guest, sys, INFORMATION_SCHEMA, the fixed roles; sa and
the fixed server roles) are not stored: every database has the same ones with SQL Server's
ids, so :mod:`security` lists them from constants and stores only what scripts create.
"""

from __future__ import annotations

from dataclasses import dataclass, fields

from sqlalchemy import (
    Boolean,
    Column,
    DateTime,
    Integer,
    LargeBinary,
    MetaData,
    String,
    Table,
    Text,
)

PREFIX = "tsqlb_sec_"


@dataclass(frozen=True)
class SecurityTables:
    """The security tables of one store's metadata."""

    principals: Table
    logins: Table
    certificates: Table
    master_keys: Table
    permissions: Table
    roles: Table
    role_members: Table
    owners: Table
    module_principals: Table
    databases: Table

    def all(self) -> list[Table]:
        """The tables in creation order."""
        return [getattr(self, f.name) for f in fields(self)]


def security_tables(metadata: MetaData) -> SecurityTables:
    """Define (once per ``metadata``) and return the security tables."""
    if PREFIX + "principals" in metadata.tables:
        return SecurityTables(*(metadata.tables[PREFIX + f.name] for f in fields(SecurityTables)))
    principals = Table(
        PREFIX + "principals", metadata,
        Column("database_id", Integer, primary_key=True, autoincrement=False),
        Column("principal_id", Integer, primary_key=True, autoincrement=False),
        Column("name", String(128), nullable=False),
        Column("name_key", String(128), nullable=False),
        Column("type", String(1), nullable=False),          # S SQL user, C certificate user
        Column("default_schema_name", String(128)),
        Column("sid", String(200)),                          # hex
        Column("authentication_type", Integer, nullable=False),
        Column("create_date", DateTime, nullable=False),
        Column("modify_date", DateTime, nullable=False),
    )
    logins = Table(
        PREFIX + "logins", metadata,
        Column("principal_id", Integer, primary_key=True, autoincrement=False),
        Column("name", String(128), nullable=False),
        Column("name_key", String(128), nullable=False, unique=True),
        Column("type", String(1), nullable=False),          # S SQL, U Windows, C certificate
        Column("sid", String(200), nullable=False),
        Column("is_disabled", Boolean, nullable=False),
        Column("default_database_name", String(128), nullable=False),
        Column("password_hash", String(200)),
        Column("is_policy_checked", Boolean, nullable=False),
        Column("is_expiration_checked", Boolean, nullable=False),
        Column("create_date", DateTime, nullable=False),
        Column("modify_date", DateTime, nullable=False),
    )
    certificates = Table(
        PREFIX + "certificates", metadata,
        Column("database_id", Integer, primary_key=True, autoincrement=False),
        Column("certificate_id", Integer, primary_key=True, autoincrement=False),
        Column("name", String(128), nullable=False),
        Column("name_key", String(128), nullable=False),
        Column("principal_id", Integer, nullable=False),
        Column("pvt_key_encryption_type", String(2), nullable=False),   # MK / PW / NA
        Column("password_hash", String(200)),
        Column("is_active_for_begin_dialog", Boolean, nullable=False),
        Column("issuer_name", String(884), nullable=False),
        Column("cert_serial_number", String(64), nullable=False),
        Column("subject", String(4000), nullable=False),
        Column("start_date", DateTime, nullable=False),
        Column("expiry_date", DateTime, nullable=False),
        Column("thumbprint", String(64), nullable=False),             # hex
        Column("key_length", Integer, nullable=False),
        Column("der", LargeBinary),
        Column("private_key", LargeBinary),
        Column("pvt_key_last_backup_date", DateTime),
    )
    master_keys = Table(
        PREFIX + "master_keys", metadata,
        Column("database_id", Integer, primary_key=True, autoincrement=False),
        Column("key_guid", String(36), nullable=False),
        # The key's secret (private keys "encrypted by the master key" are encrypted with
        # it), encrypted by the service master key ('' once that encryption is dropped); the
        # password encryptions are in password_hashes. Never in clear: engine/servicekey.py.
        Column("secret", String(100), nullable=False),
        Column("by_service_key", Boolean, nullable=False),
        Column("password_hashes", Text, nullable=False),               # JSON list
        Column("create_date", DateTime, nullable=False),
        Column("modify_date", DateTime, nullable=False),
    )
    permissions = Table(
        PREFIX + "permissions", metadata,
        # 0 for server-level permissions (sys.server_permissions), else the database.
        Column("database_id", Integer, primary_key=True, autoincrement=False),
        Column("class", Integer, primary_key=True, autoincrement=False),
        Column("major_id", Integer, primary_key=True, autoincrement=False),
        Column("minor_id", Integer, primary_key=True, autoincrement=False),
        Column("grantee_principal_id", Integer, primary_key=True, autoincrement=False),
        Column("type", String(4), primary_key=True),
        Column("grantor_principal_id", Integer, nullable=False),
        Column("state", String(1), nullable=False),                   # G W D
    )
    # Created roles are principals (type R); their owners and members are kept here.
    roles = Table(
        PREFIX + "roles", metadata,
        Column("database_id", Integer, primary_key=True, autoincrement=False),
        Column("principal_id", Integer, primary_key=True, autoincrement=False),
        Column("owning_principal_id", Integer, nullable=False),
    )
    role_members = Table(
        PREFIX + "role_members", metadata,
        Column("database_id", Integer, primary_key=True, autoincrement=False),
        Column("role_principal_id", Integer, primary_key=True, autoincrement=False),
        Column("member_principal_id", Integer, primary_key=True, autoincrement=False),
    )
    # The owner of a schema or schema-scoped object set by CREATE SCHEMA … AUTHORIZATION or
    # ALTER AUTHORIZATION (class 3 / 1, as sys.database_permissions numbers them); no row:
    # a created schema is dbo's, an object its schema owner's (sys.objects.principal_id NULL).
    owners = Table(
        PREFIX + "owners", metadata,
        Column("database_id", Integer, primary_key=True, autoincrement=False),
        Column("class", Integer, primary_key=True, autoincrement=False),
        Column("major_id", Integer, primary_key=True, autoincrement=False),
        Column("principal_id", Integer, nullable=False),
    )
    # sys.sql_modules.execute_as_principal_id of a module WITH EXECUTE AS: for SELF who
    # created or last altered it (whom it runs as), -2 for OWNER, a named user's id; no row
    # for CALLER.
    module_principals = Table(
        PREFIX + "module_principals", metadata,
        Column("database_id", Integer, primary_key=True, autoincrement=False),
        Column("object_id", Integer, primary_key=True, autoincrement=False),
        Column("principal_id", Integer, nullable=False),
    )
    # A database's owner (a login's principal_id; no row: sa) and DB_CHAINING
    # (sys.databases.owner_sid, is_db_chaining_on): kept here so that tsqlb_databases, a
    # released table, keeps its columns.
    databases = Table(
        PREFIX + "databases", metadata,
        Column("database_id", Integer, primary_key=True, autoincrement=False),
        Column("owner_principal_id", Integer, nullable=False),
        Column("is_db_chaining_on", Boolean, nullable=False),
    )
    return SecurityTables(principals, logins, certificates, master_keys, permissions, roles,
                          role_members, owners, module_principals, databases)
