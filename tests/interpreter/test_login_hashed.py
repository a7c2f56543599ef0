"""CREATE / ALTER LOGIN … WITH PASSWORD = 0x… HASHED: a login made from a SQL Server hash
connects with the password the hash was made from (0x0100 SHA-1, 0x0200 SHA-512), and one
copied through LOGINPROPERTY(…, 'PasswordHash') with its original's password."""

from __future__ import annotations

import hashlib

import pytest

from tsqlbroker.errors import TSqlError
from tsqlbroker.interpreter.instance import Instance
from tsqlbroker.interpreter.sink import CollectingSink

# PWDENCRYPT('P@ssw0rd') of a SQL Server 2008 instance (a public example).
SHA1_HASH = "0x01003BA91A73BB0B9C06A647FC81F3B221EDA8E74AF33C20252F"


def _sha512_hash(password: str, salt: bytes) -> str:
    """SQL Server 2012's form: 0x0200, the salt, SHA-512 of the UTF-16LE password + salt."""
    digest = hashlib.sha512(password.encode("utf-16-le") + salt).digest()
    return "0x" + (b"\x02\x00" + salt + digest).hex()


def _connects(instance: Instance, login: str, password: str) -> bool:
    try:
        instance.session(CollectingSink(), login=login, password=password).close()
    except TSqlError as e:
        assert e.number == 18456
        return False
    return True


def test_hashed_passwords_authenticate(instance: Instance) -> None:
    sink = CollectingSink()
    sa = instance.session(sink)
    try:
        sa.execute(f"""
            CREATE LOGIN old_form WITH PASSWORD = {SHA1_HASH} HASHED
            CREATE LOGIN new_form WITH PASSWORD = {_sha512_hash('Secret1!', b'1234')} HASHED
            CREATE LOGIN clear_form WITH PASSWORD = 'Str0ng!Passw0rd'
            DECLARE @h varbinary(256)
                = CAST(LOGINPROPERTY('clear_form', 'PasswordHash') AS varbinary(256))
            DECLARE @copy nvarchar(max) = N'CREATE LOGIN copied WITH PASSWORD = '
                + CONVERT(nvarchar(max), @h, 1) + N' HASHED'
            EXEC (@copy)
            CREATE LOGIN altered WITH PASSWORD = 'Str0ng!Passw0rd'
            ALTER LOGIN altered WITH PASSWORD = {_sha512_hash('N3w!pass', b'abcd')} HASHED
        """)
        assert not [e for kind, e in sink.events if kind == "error"]
    finally:
        sa.close()
    assert _connects(instance, "old_form", "P@ssw0rd")
    assert not _connects(instance, "old_form", "p@ssw0rd")  # the case-sensitive hash
    assert _connects(instance, "new_form", "Secret1!")
    assert not _connects(instance, "new_form", "Secret1")
    assert _connects(instance, "copied", "Str0ng!Passw0rd")
    assert not _connects(instance, "copied", "wrong")
    assert _connects(instance, "altered", "N3w!pass")
    assert not _connects(instance, "altered", "Str0ng!Passw0rd")


@pytest.mark.parametrize("statement", [
    "CREATE LOGIN x WITH PASSWORD = 0x0200 HASHED",
    "CREATE LOGIN x WITH PASSWORD = 0x5442 HASHED",
    "CREATE LOGIN x WITH PASSWORD = 0x HASHED",
])
def test_malformed_hashes_are_msg_15021(instance: Instance, statement: str) -> None:
    sink = CollectingSink()
    sa = instance.session(sink)
    try:
        sa.execute(statement)
    finally:
        sa.close()
    assert [(e.number, e.state) for kind, e in sink.events if kind == "error"] == [(15021, 2)]
