"""Certificate material: the serial number keeps SQL Server's 16 bytes whatever is drawn."""

from __future__ import annotations

from datetime import datetime

import pytest

from tsqlbroker.engine import certs


@pytest.mark.parametrize("first", [0, 0x3F, 0x7E], ids=["lowest", "middle", "highest"])
def test_serial_is_sixteen_bytes_for_any_first_byte(monkeypatch: pytest.MonkeyPatch,
                                                     first: int) -> None:
    """The first byte is drawn in 1..0x7F (``1 + randbelow(0x7F)``); at 1 a serial once lost
    its first byte on the way into the certificate (cert_serial_number 44 characters, not 47)."""
    monkeypatch.setattr(certs.secrets, "randbelow", lambda _n: first)
    material = certs.generate("s", datetime(2024, 1, 1), datetime(2034, 1, 1), "pw")
    assert len(material.serial) == 16
    assert material.serial[0] == first + 1
    assert len(certs.serial_text(material.serial)) == 47
