"""Test stand-ins for the far side of a broker connection with endpoint security
(docs/transport.md, *Endpoint security*): a peer with its own certificate that trusts given
ones, and the SQL that makes such a certificate known to an instance."""

from __future__ import annotations

import ssl
from collections.abc import Iterable
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from pathlib import Path

from tsqlbroker.engine import certs
from tsqlbroker.engine.broker import Broker
from tsqlbroker.engine.broker.endpoint_tls import (
    NO_CERTIFICATE,
    REQUIRED,
    EndpointSecurity,
    LocalEndpoint,
    Peer,
    Refused,
)
from tsqlbroker.engine.broker.transport import Transport
from tsqlbroker.engine.catalog import MASTER
from tsqlbroker.engine.security import Security
from tsqlbroker.storage.store import Store
from tsqlbroker.storage.txn import Txn

_SECRET = "peer key secret"


class PeerSecurity(EndpointSecurity):
    """A far broker's endpoint security without a store: its own new self-signed
    certificate (``der``), trusting ``trusted`` (DER) and admitting their holders."""

    def __init__(self, trusted: Iterable[bytes] = (), encryption: str = REQUIRED,
                 subject: str = "far peer") -> None:
        super().__init__(None)      # type: ignore[arg-type] - no store: nothing is read
        now = datetime.now(UTC).replace(microsecond=0, tzinfo=None)
        made = certs.generate(subject, now - timedelta(minutes=5), now + timedelta(days=1),
                              _SECRET)
        assert made.der is not None and made.private_key_pem is not None
        self.der: bytes = made.der
        self.trusted = [*trusted]
        self.endpoint = LocalEndpoint(65536, encryption, 256, certs.pem_of(made.der),
                                      certs.clear_key_pem(made.private_key_pem, _SECRET),
                                      (made.der, *self.trusted))

    def local(self) -> LocalEndpoint:
        return self.endpoint

    def trust(self, der: bytes) -> None:
        """Trust (and admit) the holder of certificate ``der`` from now on."""
        self.trusted.append(der)
        self.endpoint = replace(self.endpoint, trusted=(self.der, *self.trusted))

    def admit(self, local: LocalEndpoint, der: bytes | None) -> Peer:
        if der not in self.trusted:
            raise Refused(NO_CERTIFICATE)
        return Peer(256, "far")


def endpoint_der(store: Store) -> bytes:
    """The DER of the certificate the endpoint of ``store`` authenticates with."""
    pem = EndpointSecurity.get(store).local().cert_pem.decode("ascii")
    return ssl.PEM_cert_to_DER_cert(pem)


def trust_sql(der: bytes, folder: Path, name: str, *, grant: bool = True) -> str:
    """T-SQL that makes certificate ``der`` known in master as ``{name}Cert``, owned by the
    user of login ``{name}Login`` — granted CONNECT on BrokerEndpoint when ``grant``."""
    file = folder / f"{name}.cer"
    file.write_bytes(der)
    return (f"USE master;\nCREATE LOGIN {name}Login WITH PASSWORD = 'P@ssw0rd!{name}';\n"
            f"CREATE USER {name}User FOR LOGIN {name}Login;\n"
            f"CREATE CERTIFICATE {name}Cert AUTHORIZATION {name}User FROM FILE = '{file}';\n"
            + (f"GRANT CONNECT ON ENDPOINT::BrokerEndpoint TO {name}Login;\n" if grant else ""))


def secure_endpoint(store: Store, txn: Txn, far: PeerSecurity, folder: Path) -> None:
    """Give the instance of ``store`` an endpoint authenticating with a new certificate
    (its private key under master's master key), trusting ``far``'s certificate (owned by
    dbo: sa's, so it may connect) — and ``far`` trusting it (engine calls in ``txn``)."""
    conn = txn.conn
    sec = Security.get(store)
    sec.create_master_key(conn, MASTER, "M@sterKey1")
    made = {"owner_id": 1, "start": None, "expiry": None, "password": None,
            "key_file": None, "key_password": None, "active": None, "master_key_open": None}
    sec.create_certificate(conn, MASTER, "EndpointCert", subject="near", file=None, **made)
    file = folder / "far.cer"
    file.write_bytes(far.der)
    sec.create_certificate(conn, MASTER, "FarCert", subject=None, file=str(file), **made)
    Broker.get(store).create_endpoint(txn, "BrokerEndpoint", {
        "authentication": "CERTIFICATE EndpointCert", "encryption": "REQUIRED"})
    der = sec.find_certificate(conn, MASTER, "EndpointCert")["der"]
    far.trust(bytes(der))


def refusals(transport: Transport) -> dict[str, int]:
    """The connections ``transport``'s listener refused, by reason."""
    with transport.registry.lock:
        return dict(transport.registry.refused)


def log_text(transport: Transport) -> str:
    """``transport``'s broker log as text."""
    return "\n".join(e.text for e in transport.log.entries())
