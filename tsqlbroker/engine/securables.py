"""Securables and their permissions: the permission names and their type codes
(sys.database_permissions.type), the securable classes with their numbers and class_desc, and
which permissions each class and each object type takes.

Plain tables, kept apart from :mod:`permissions` (resolving GRANT / REVOKE / DENY, recording
their rows), which finds broker securables through the broker: the permission checks
(:mod:`access`) and the catalog views' filters (:mod:`visibility`) sit below the broker and
need only these tables.
"""

from __future__ import annotations

# permission name -> type code (sys.database_permissions.type)
CODES: dict[str, str] = {
    "ALTER": "AL", "CONTROL": "CL", "CONNECT": "CO", "DELETE": "DL", "EXECUTE": "EX",
    "IMPERSONATE": "IM", "INSERT": "IN", "RECEIVE": "RC", "REFERENCES": "RF", "SELECT": "SL",
    "SEND": "SN", "TAKE OWNERSHIP": "TO", "UPDATE": "UP", "VIEW DEFINITION": "VW",
    "VIEW CHANGE TRACKING": "VWCT", "AUTHENTICATE": "AUTH", "SHOWPLAN": "SPLN",
    "CHECKPOINT": "CP", "BACKUP DATABASE": "BADB", "BACKUP LOG": "BALO",
    "VIEW DATABASE STATE": "VWDS", "SUBSCRIBE QUERY NOTIFICATIONS": "SUQN",
    "CREATE TABLE": "CRTB", "CREATE VIEW": "CRVW", "CREATE PROCEDURE": "CRPR",
    "CREATE FUNCTION": "CRFN", "CREATE SCHEMA": "CRSM", "CREATE ROLE": "CRRL",
    "CREATE TYPE": "CRTY", "CREATE DEFAULT": "CRDF", "CREATE RULE": "CRRU",
    "CREATE SYNONYM": "CRSN", "CREATE SEQUENCE": "CRSO", "CREATE QUEUE": "CRQU",
    "CREATE SERVICE": "CRSV", "CREATE CONTRACT": "CRSC", "CREATE MESSAGE TYPE": "CRMT",
    "CREATE ROUTE": "CRRT", "CREATE REMOTE SERVICE BINDING": "CRSB",
    "CREATE CERTIFICATE": "CRCF", "CREATE ASYMMETRIC KEY": "CRAK",
    "CREATE SYMMETRIC KEY": "CRSK", "CREATE XML SCHEMA COLLECTION": "CRXS",
    "CREATE DATABASE": "CRDB", "CREATE ENDPOINT": "CRHE", "ALTER ANY USER": "ALUS",
    "ALTER ANY ROLE": "ALRL", "ALTER ANY SCHEMA": "ALSM", "ALTER ANY CERTIFICATE": "ALCF",
    "ALTER ANY SYMMETRIC KEY": "ALSK", "ALTER ANY ASYMMETRIC KEY": "ALAK",
    "ALTER ANY MESSAGE TYPE": "ALMT", "ALTER ANY CONTRACT": "ALSC", "ALTER ANY SERVICE": "ALSV",
    "ALTER ANY ROUTE": "ALRT", "ALTER ANY REMOTE SERVICE BINDING": "ALSB",
    "ALTER ANY LOGIN": "ALLG", "ALTER ANY ENDPOINT": "ALHE", "CONTROL SERVER": "CL",
    "VIEW SERVER STATE": "VWSS", "VIEW ANY DEFINITION": "VWAD", "CONNECT SQL": "COSQ",
    "ALTER ANY DATABASE": "ALDB", "VIEW ANY DATABASE": "VWDB", "SHUTDOWN": "SHDN",
    "CREATE ANY DATABASE": "CRDB", "ALTER ANY CONNECTION": "ALCO",
    "ALTER ANY APPLICATION ROLE": "ALAR",
    "CREATE SERVER ROLE": "CRSR", "ALTER ANY SERVER ROLE": "ALSR",
}
# The permissions SQL Server grants per column (GRANT SELECT (col, …) ON t).
COLUMN_LEVEL = frozenset({"SELECT", "UPDATE", "REFERENCES"})
NAMES = {code: name for name, code in reversed(list(CODES.items()))}
NAMES["CL"] = "CONTROL"

# The permissions every owned securable takes.
OWNED = frozenset({"ALTER", "CONTROL", "TAKE OWNERSHIP", "VIEW DEFINITION"})
# class number, class_desc, permissions valid on it ("*" = database-level ones)
CLASSES: dict[str, tuple[int, str, frozenset[str]]] = {
    "DATABASE": (0, "DATABASE", frozenset()),
    "OBJECT": (1, "OBJECT_OR_COLUMN", frozenset()),
    "SCHEMA": (3, "SCHEMA", frozenset(OWNED | {"SELECT", "INSERT", "UPDATE", "DELETE",
                                               "EXECUTE", "REFERENCES", "VIEW CHANGE TRACKING",
                                               "CREATE SEQUENCE"})),
    "USER": (4, "DATABASE_PRINCIPAL", frozenset({"ALTER", "CONTROL", "IMPERSONATE",
                                                 "VIEW DEFINITION"})),
    "ROLE": (4, "DATABASE_PRINCIPAL", OWNED),
    "APPLICATION ROLE": (4, "DATABASE_PRINCIPAL", frozenset({"ALTER", "CONTROL",
                                                             "VIEW DEFINITION"})),
    "XML SCHEMA COLLECTION": (10, "XML_SCHEMA_COLLECTION",
                              frozenset(OWNED | {"EXECUTE", "REFERENCES"})),
    "TYPE": (6, "TYPE", frozenset(OWNED | {"EXECUTE", "REFERENCES"})),
    "MESSAGE TYPE": (15, "MESSAGE_TYPE", frozenset(OWNED | {"REFERENCES"})),
    "CONTRACT": (16, "SERVICE_CONTRACT", frozenset(OWNED | {"REFERENCES"})),
    "SERVICE": (17, "SERVICE", frozenset(OWNED | {"SEND"})),
    "REMOTE SERVICE BINDING": (18, "REMOTE_SERVICE_BINDING", OWNED),
    "ROUTE": (19, "ROUTE", OWNED),
    "CERTIFICATE": (25, "CERTIFICATE", frozenset(OWNED | {"REFERENCES"})),
    # server level (sys.server_permissions)
    "LOGIN": (101, "SERVER_PRINCIPAL", frozenset({"ALTER", "CONTROL", "IMPERSONATE",
                                                  "VIEW DEFINITION"})),
    "SERVER ROLE": (101, "SERVER_PRINCIPAL", OWNED),
    "ENDPOINT": (105, "ENDPOINT", frozenset(OWNED | {"CONNECT"})),
}
CLASS_DESC = {n: d for n, d, _p in CLASSES.values()} | {100: "SERVER"}
# Classes of ALTER AUTHORIZATION whose owner is a login, not a database principal.
SERVER_LEVEL_OWNED = frozenset({"DATABASE", "ENDPOINT"})
_TABLE_PERMS = OWNED | {"SELECT", "INSERT", "UPDATE", "DELETE", "REFERENCES",
                        "VIEW CHANGE TRACKING"}
OBJECT_PERMS: dict[str, frozenset[str]] = {
    "U": frozenset(_TABLE_PERMS), "V": frozenset(_TABLE_PERMS),
    "IF": frozenset(_TABLE_PERMS), "TF": frozenset(_TABLE_PERMS),
    "P": frozenset(OWNED | {"EXECUTE"}),
    "FN": frozenset(OWNED | {"EXECUTE", "REFERENCES"}),
    "SQ": frozenset(OWNED | {"RECEIVE", "SELECT", "REFERENCES", "VIEW CHANGE TRACKING"}),
    # GRANT Object Permissions: a sequence's and a synonym's
    "SO": frozenset(OWNED | {"UPDATE", "REFERENCES"}),
    "SN": frozenset({"CONTROL", "TAKE OWNERSHIP", "VIEW DEFINITION", "SELECT", "INSERT",
                     "UPDATE", "DELETE", "EXECUTE"}),
}
