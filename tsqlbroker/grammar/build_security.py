"""Builder methods for the security statements of ``rules/security.lark``: GRANT / REVOKE /
DENY, users, logins, certificates, the database master key and EXECUTE AS / REVERT.

Passwords, subjects, dates and file names are literal strings in T-SQL (no variables), so
the nodes carry them as plain ``str``.
"""

from __future__ import annotations

from typing import Any

from lark import Token

from tsqlbroker.grammar import ast
from tsqlbroker.grammar.build_expr import name_of

Options = tuple[tuple[str, Any], ...]


class SecurityBuilder:
    """Mixin: security statements."""

    # ---- names and strings -------------------------------------------------------------
    def sec_name(self, tok: Token) -> str:
        return name_of(tok)

    def sec_string(self, tok: Token) -> str:
        text = str(tok)
        body = text[2:-1] if text[0] in "nN" else text[1:-1]
        return body.replace("''", "'")

    def sec_binary(self, tok: Token) -> bytes:
        """``PASSWORD = 0x… HASHED``, ``SID = 0x…``."""
        digits = str(tok)[2:]
        return bytes.fromhex(digits if len(digits) % 2 == 0 else "0" + digits)

    # ---- permissions -------------------------------------------------------------------
    def perm_word(self, tok: Token) -> str:
        return str(tok).upper()

    def permission(self, *children: Any) -> ast.Permission:
        *words, columns = children
        name = " ".join(words)
        if name in ("EXEC",):
            name = "EXECUTE"
        elif name == "ALL PRIVILEGES":
            name = "ALL"
        return ast.Permission(name, tuple(columns or ()))

    def permissions(self, *perms: ast.Permission) -> tuple[ast.Permission, ...]:
        return perms

    def securable(self, cls: str | None, name: ast.ObjectName) -> ast.Securable:
        # auth_class drops its DATABASE keyword (a reserved word, not a NAME): "" is DATABASE.
        return ast.Securable("DATABASE" if cls == "" else cls, name)

    def grant_option(self) -> bool:
        return True

    grant_option_for = grant_option
    cascade = grant_option

    def grant_as(self, tok: Token) -> str:
        return name_of(tok)

    def grant_stmt(self, perms: tuple[ast.Permission, ...], securable: ast.Securable | None,
                   principals: tuple[str, ...], with_grant: Any,
                   as_principal: str | None) -> ast.PermissionStatement:
        return ast.PermissionStatement("GRANT", perms, securable, principals,
                                       with_grant_option=bool(with_grant),
                                       as_principal=as_principal)

    def revoke_stmt(self, option_for: Any, perms: tuple[ast.Permission, ...],
                    securable: ast.Securable | None, principals: tuple[str, ...],
                    cascade: Any, as_principal: str | None) -> ast.PermissionStatement:
        return ast.PermissionStatement("REVOKE", perms, securable, principals,
                                       grant_option_for=bool(option_for),
                                       cascade=bool(cascade), as_principal=as_principal)

    def deny_stmt(self, perms: tuple[ast.Permission, ...], securable: ast.Securable | None,
                  principals: tuple[str, ...], cascade: Any,
                  as_principal: str | None) -> ast.PermissionStatement:
        return ast.PermissionStatement("DENY", perms, securable, principals,
                                       cascade=bool(cascade), as_principal=as_principal)

    # ---- users and logins --------------------------------------------------------------
    def sec_option(self, key: Token, value: Any, tail: Options | None) -> Options:
        """``KEY = value``, and what follows a password (each an option of its own:
        ``old_password``, ``must_change``, ``unlock``)."""
        return ((str(key).lower(), value),) + (tail or ())

    def old_password(self, value: str) -> Options:
        return (("old_password", value),)

    def password_flags(self, *flags: Token | None) -> Options:
        return tuple((str(f).lower(), True) for f in flags if f is not None)

    def password_flag(self, flag: Token) -> Token:
        return flag

    def user_with(self, *options: Options) -> Options:
        return tuple(o for group in options for o in group)

    def user_for_login(self, name: str) -> tuple[str, str | None]:
        return ("LOGIN", name)

    def user_without_login(self) -> tuple[str, str | None]:
        return ("WITHOUT LOGIN", None)

    def user_for_certificate(self, name: str) -> tuple[str, str | None]:
        return ("CERTIFICATE", name)

    def create_user(self, name: str, source: tuple[str, str | None] | None,
                    options: Options | None) -> ast.CreateUser:
        kind, other = source if source else (None, None)
        return ast.CreateUser(name, kind, other, options or ())

    def alter_user(self, name: str, options: Options) -> ast.AlterUser:
        return ast.AlterUser(name, options)

    def drop_user(self, if_exists: Any, name: str) -> ast.DropUser:
        return ast.DropUser(name, bool(if_exists))

    def login_with(self, options: Options) -> tuple[str, Any]:
        return ("WITH", options)

    def login_windows(self, options: Options | None) -> tuple[str, Any]:
        return ("WINDOWS", options or ())

    def login_certificate(self, name: str) -> tuple[str, Any]:
        return ("CERTIFICATE", name)

    def login_enable(self) -> tuple[str, Any]:
        return ("ENABLE", True)

    def login_disable(self) -> tuple[str, Any]:
        return ("ENABLE", False)

    def create_login(self, name: str, source: tuple[str, Any]) -> ast.CreateLogin:
        kind, value = source
        if kind == "CERTIFICATE":
            return ast.CreateLogin(name, "CERTIFICATE", certificate=value)
        if kind == "WINDOWS":
            return ast.CreateLogin(name, "WINDOWS", options=value)
        return ast.CreateLogin(name, "PASSWORD", options=value)

    def alter_login(self, name: str, change: tuple[str, Any]) -> ast.AlterLogin:
        kind, value = change
        if kind == "ENABLE":
            return ast.AlterLogin(name, enable=value)
        return ast.AlterLogin(name, options=value)

    def drop_login(self, name: str) -> ast.DropLogin:
        return ast.DropLogin(name)

    # ---- roles --------------------------------------------------------------------------
    def create_role(self, name: str, owner: str | None) -> ast.CreateRole:
        return ast.CreateRole(name, owner)

    def role_add_member(self, member: str) -> dict[str, Any]:
        return {"add_member": member}

    def role_drop_member(self, member: str) -> dict[str, Any]:
        return {"drop_member": member}

    def role_with(self, options: Options) -> dict[str, Any]:
        return {"options": options}

    def alter_role(self, name: str, change: dict[str, Any]) -> ast.AlterRole:
        return ast.AlterRole(name, **change)

    def create_server_role(self, name: str, owner: str | None) -> ast.CreateRole:
        return ast.CreateRole(name, owner, server=True)

    def alter_server_role(self, name: str, change: dict[str, Any]) -> ast.AlterRole:
        return ast.AlterRole(name, **change, server=True)

    def drop_server_role(self, name: str) -> ast.DropRole:
        return ast.DropRole(name, server=True)

    def drop_role(self, if_exists: Any, name: str) -> ast.DropRole:
        return ast.DropRole(name, bool(if_exists))

    def create_approle(self, name: str, options: Options) -> ast.ApplicationRole:
        return ast.ApplicationRole("CREATE", name, options)

    def alter_approle(self, name: str, options: Options) -> ast.ApplicationRole:
        return ast.ApplicationRole("ALTER", name, options)

    def drop_approle(self, name: str) -> ast.ApplicationRole:
        return ast.ApplicationRole("DROP", name)

    # ---- certificates ------------------------------------------------------------------
    def cert_owner(self, name: str) -> str:
        return name

    def cert_password(self, password: str) -> str:
        return password

    def cert_start(self, value: str) -> tuple[str, str]:
        return ("start_date", value)

    def cert_expiry(self, value: str) -> tuple[str, str]:
        return ("expiry_date", value)

    def cert_generate(self, password: str | None, subject: str,
                      *dates: tuple[str, str]) -> dict[str, Any]:
        return {"password": password, "subject": subject, **dict(dates)}

    def cert_from_file(self, file: str, key: ast.PrivateKeyOptions | None) -> dict[str, Any]:
        return {"file": file, "private_key": key}

    def pk_file(self, value: str) -> tuple[str, str]:
        return ("file", value)

    def pk_decryption(self, value: str) -> tuple[str, str]:
        return ("decryption_password", value)

    def pk_encryption(self, value: str) -> tuple[str, str]:
        return ("encryption_password", value)

    def private_key(self, *options: tuple[str, str]) -> ast.PrivateKeyOptions:
        return ast.PrivateKeyOptions(**dict(options))

    def cert_active(self, on: bool) -> bool:
        return on

    def create_certificate(self, name: str, owner: str | None, source: dict[str, Any],
                           active: bool | None) -> ast.CreateCertificate:
        return ast.CreateCertificate(name, owner, active_for_begin_dialog=active, **source)

    def cert_remove_key(self) -> dict[str, Any]:
        return {"remove_private_key": True}

    def cert_set_active(self, on: bool) -> dict[str, Any]:
        return {"active_for_begin_dialog": on}

    def cert_add_key(self, key: ast.PrivateKeyOptions) -> dict[str, Any]:
        return {"private_key": key}

    def alter_certificate(self, name: str, change: dict[str, Any]) -> ast.AlterCertificate:
        return ast.AlterCertificate(name, **change)

    def drop_certificate(self, name: str) -> ast.DropCertificate:
        return ast.DropCertificate(name)

    def backup_certificate(self, name: str, file: str,
                           key: ast.PrivateKeyOptions | None) -> ast.BackupCertificate:
        return ast.BackupCertificate(name, file, key)

    # ---- the database master key -------------------------------------------------------
    def mk_password(self, password: str) -> str:
        return password

    def create_master_key(self, password: str | None) -> ast.CreateMasterKey:
        return ast.CreateMasterKey(password)

    def mk_force(self) -> bool:
        return True

    def mk_service(self) -> tuple[str, str | None]:
        return ("service", None)

    def mk_by_password(self, password: str) -> tuple[str, str | None]:
        return ("password", password)

    def mk_regenerate(self, force: Any, password: str) -> ast.AlterMasterKey:
        return ast.AlterMasterKey("REGENERATE", password, force=bool(force))

    def mk_add(self, encryptor: tuple[str, str | None]) -> ast.AlterMasterKey:
        return ast.AlterMasterKey("ADD", encryptor[1], encryptor[0] == "service")

    def mk_drop(self, encryptor: tuple[str, str | None]) -> ast.AlterMasterKey:
        return ast.AlterMasterKey("DROP", encryptor[1], encryptor[0] == "service")

    def alter_master_key(self, change: ast.AlterMasterKey) -> ast.AlterMasterKey:
        return change

    def drop_master_key(self) -> ast.DropMasterKey:
        return ast.DropMasterKey()

    def open_master_key(self, password: str) -> ast.OpenMasterKey:
        return ast.OpenMasterKey(password)

    def close_master_key(self) -> ast.CloseMasterKey:
        return ast.CloseMasterKey()

    # ---- impersonation -----------------------------------------------------------------
    def as_user(self, name: str) -> tuple[str, str | None]:
        return ("USER", name)

    def as_login(self, name: str) -> tuple[str, str | None]:
        return ("LOGIN", name)

    def as_caller(self) -> tuple[str, str | None]:
        return ("CALLER", None)

    def as_no_revert(self) -> tuple[str, str | None]:
        return ("no_revert", None)

    def as_cookie(self, var: Token) -> tuple[str, str | None]:
        return ("cookie", str(var))

    def execute_as_stmt(self, who: tuple[str, str | None],
                   option: tuple[str, str | None] | None) -> ast.ExecuteAs:
        kind, name = who
        opt, var = option if option else (None, None)
        return ast.ExecuteAs(kind, name, no_revert=opt == "no_revert", cookie_variable=var)

    def revert_stmt(self, var: Token | None) -> ast.Revert:
        return ast.Revert(str(var) if var is not None else None)
