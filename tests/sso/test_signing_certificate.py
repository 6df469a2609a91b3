"""GET /api/v2/sso-providers/{id}/signing-certificate: the service provider certificate a SAML provider's
administrators download, as the reference serves it (a PEM attachment named after the provider's slug)."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta

import httpx
import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

from houndgraph.db import Database
from houndgraph.settings import Settings
from tests.conftest import ADMIN_PASSWORD, another_server, login
from tests.factories import user_with_role
from tests.sso import idp_documents as idp
from tests.sso.conftest import assert_error, create, unique_name

URL = "/api/v2/sso-providers/{}/signing-certificate"


def self_signed() -> tuple[bytes, bytes]:
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "houndgraph test service provider")])
    now = datetime.now(UTC)
    certificate = (x509.CertificateBuilder().subject_name(name).issuer_name(name).public_key(key.public_key())
                   .serial_number(x509.random_serial_number()).not_valid_before(now)
                   .not_valid_after(now + timedelta(days=1)).sign(key, hashes.SHA256()))
    key_pem = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                serialization.NoEncryption())
    return key_pem, certificate.public_bytes(serialization.Encoding.PEM)


@pytest.fixture(scope="module")
def certificate_and_server(server_settings: Settings, database: Database, tmp_path_factory: pytest.TempPathFactory
                           ) -> Iterator[tuple[bytes, httpx.Client]]:
    """A server whose certificate file holds the private key first, then the certificate."""
    key_pem, certificate_pem = self_signed()
    path = tmp_path_factory.mktemp("sp") / "service-provider.pem"
    path.write_bytes(key_pem + certificate_pem)
    with another_server(server_settings, database, saml_service_provider_certificate=path) as server, \
            httpx.Client(base_url=server.base_url, timeout=60) as http:
        http.headers["Authorization"] = f"Bearer {login(http, 'admin', ADMIN_PASSWORD)}"
        yield certificate_pem, http


def test_the_certificate_of_a_saml_provider_is_served_without_the_key(
        certificate_and_server: tuple[bytes, httpx.Client]) -> None:
    certificate_pem, http = certificate_and_server
    name = unique_name("Cert IdP")
    created = create(http, name, idp.OKTA)
    assert created.status_code == 200, created.text
    provider_id = created.json()["data"]["sso_provider_id"]
    slug = http.get(f"/api/v2/sso-providers/{provider_id}").json()["data"]["slug"]
    response = http.get(URL.format(provider_id))
    assert response.status_code == 200, response.text
    assert response.content == certificate_pem
    assert b"PRIVATE KEY" not in response.content
    assert response.headers["content-disposition"] == (
        f'attachment; filename="{slug}-signing-certificate.pem"')
    assert response.headers["content-type"].startswith("text/plain")

    _, user = user_with_role(http, "User")
    assert http.get(URL.format(provider_id), headers=user).status_code == 403
    for missing in ("2147483647", "not-a-number", "99999999999"):
        assert_error(http.get(URL.format(missing)), 404, "resource not found")


def test_without_a_configured_certificate_the_route_answers_404(admin: httpx.Client) -> None:
    created = create(admin, unique_name("No Cert IdP"), idp.OKTA)
    assert created.status_code == 200, created.text
    response = admin.get(URL.format(created.json()["data"]["sso_provider_id"]))
    assert_error(response, 404, "no SAML service provider certificate is configured")
