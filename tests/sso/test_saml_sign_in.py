"""SAML sign-in end to end, against an identity provider played by the test: its keys are generated here,
its metadata uploaded, its responses signed with signxml as a real IdP would sign them."""

from __future__ import annotations

import base64
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from urllib.parse import parse_qs, urlparse

import httpx
import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import rsa
from cryptography.x509.oid import NameOID
from lxml import etree
from signxml import XMLSigner

from houndgraph.db import Database
from tests.conftest import LiveServer
from tests.factories import insert_user
from tests.sso.conftest import create, unique_name

SAML, SAMLP = "urn:oasis:names:tc:SAML:2.0:assertion", "urn:oasis:names:tc:SAML:2.0:protocol"
MAIL = "urn:oid:0.9.2342.19200300.100.1.3"


@dataclass
class SAMLTestIdP:
    entity_id: str
    key: rsa.RSAPrivateKey
    cert: x509.Certificate

    @staticmethod
    def generate(entity_id: str) -> SAMLTestIdP:
        key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
        name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "houndgraph test idp")])
        now = datetime.now(UTC)
        cert = (x509.CertificateBuilder().subject_name(name).issuer_name(name).public_key(key.public_key())
                .serial_number(x509.random_serial_number()).not_valid_before(now - timedelta(days=1))
                .not_valid_after(now + timedelta(days=30)).sign(key, hashes.SHA256()))
        return SAMLTestIdP(entity_id, key, cert)

    def metadata(self) -> bytes:
        der = base64.b64encode(self.cert.public_bytes(serialization.Encoding.DER)).decode()
        return f"""<md:EntityDescriptor xmlns:md="urn:oasis:names:tc:SAML:2.0:metadata" entityID="{self.entity_id}">
  <md:IDPSSODescriptor protocolSupportEnumeration="urn:oasis:names:tc:SAML:2.0:protocol">
    <md:KeyDescriptor use="signing"><ds:KeyInfo xmlns:ds="http://www.w3.org/2000/09/xmldsig#"><ds:X509Data>
      <ds:X509Certificate>{der}</ds:X509Certificate></ds:X509Data></ds:KeyInfo></md:KeyDescriptor>
    <md:SingleSignOnService Binding="urn:oasis:names:tc:SAML:2.0:bindings:HTTP-POST"
                            Location="https://idp.example.test/sso"/>
  </md:IDPSSODescriptor>
</md:EntityDescriptor>""".encode()

    def response(self, *, principal: str, audience: str, acs: str, issuer: str | None = None,
                 valid_for: timedelta = timedelta(minutes=5), attributes: dict[str, str] | None = None,
                 signer: SAMLTestIdP | None = None) -> etree._Element:
        """A Response holding one assertion signed (enveloped signature) by this IdP, or by `signer`."""
        now = datetime.now(UTC)
        stamp = now.strftime("%Y-%m-%dT%H:%M:%SZ")
        until = (now + valid_for).strftime("%Y-%m-%dT%H:%M:%SZ")
        values = {MAIL: principal, **(attributes or {})}
        attrs = "".join(f'<saml:Attribute Name="{name}"><saml:AttributeValue>{value}</saml:AttributeValue>'
                        "</saml:Attribute>" for name, value in values.items())
        assertion = etree.fromstring(
            f'<saml:Assertion xmlns:saml="{SAML}" ID="_{uuid.uuid4().hex}" Version="2.0" IssueInstant="{stamp}">'
            f"<saml:Issuer>{issuer or self.entity_id}</saml:Issuer>"
            f'<saml:Subject><saml:NameID>{principal}</saml:NameID><saml:SubjectConfirmation '
            f'Method="urn:oasis:names:tc:SAML:2.0:cm:bearer"><saml:SubjectConfirmationData NotOnOrAfter="{until}" '
            f'Recipient="{acs}"/></saml:SubjectConfirmation></saml:Subject>'
            f'<saml:Conditions NotBefore="{stamp}" NotOnOrAfter="{until}"><saml:AudienceRestriction>'
            f"<saml:Audience>{audience}</saml:Audience></saml:AudienceRestriction></saml:Conditions>"
            f"<saml:AttributeStatement>{attrs}</saml:AttributeStatement></saml:Assertion>")
        by = signer or self
        signed = XMLSigner(c14n_algorithm="http://www.w3.org/2001/10/xml-exc-c14n#").sign(
            assertion, key=by.key, cert=by.cert.public_bytes(serialization.Encoding.PEM).decode())
        response = etree.fromstring(
            f'<samlp:Response xmlns:samlp="{SAMLP}" ID="_{uuid.uuid4().hex}" Version="2.0" IssueInstant="{stamp}" '
            f'Destination="{acs}"><samlp:Status><samlp:StatusCode '
            f'Value="urn:oasis:names:tc:SAML:2.0:status:Success"/></samlp:Status></samlp:Response>')
        response.append(signed)
        return response


def encoded(response: etree._Element | bytes) -> str:
    raw = response if isinstance(response, bytes) else etree.tostring(response)
    return base64.b64encode(raw).decode()


@pytest.fixture
def idp(admin: httpx.Client, role_ids: dict) -> Iterator[tuple[SAMLTestIdP, dict]]:
    test_idp = SAMLTestIdP.generate(f"https://idp.example.test/{uuid.uuid4().hex[:8]}")
    response = create(admin, unique_name("signin"), test_idp.metadata(), enabled="true",
                      role=str(role_ids["Read-Only"]), role_provision="false")
    assert response.status_code == 200, response.text
    yield test_idp, response.json()["data"]


def post_back(live_server: LiveServer, provider: dict, saml_response: str) -> httpx.Response:
    with httpx.Client(base_url=live_server.base_url) as browser:
        return browser.post(provider["sp_acs_uri"], data={"SAMLResponse": saml_response})


def error_of(response: httpx.Response) -> str:
    assert response.status_code == 302, response.text
    location = urlparse(response.headers["Location"])
    assert location.path == "/ui", location
    return parse_qs(location.query)["error"][0]


def test_login_page_posts_an_authentication_request_to_the_idp(live_server: LiveServer,
                                                              idp: tuple[SAMLTestIdP, dict]) -> None:
    _, provider = idp
    with httpx.Client(base_url=live_server.base_url) as browser:
        page = browser.get(provider["sp_sso_uri"])
        assert page.status_code == 200 and page.headers["Content-Type"].startswith("text/html")
        assert 'action="https://idp.example.test/sso"' in page.text
        request_b64 = page.text.split('name="SAMLRequest" value="')[1].split('"')[0]
        request = etree.fromstring(base64.b64decode(request_b64))
        assert request.get("AssertionConsumerServiceURL") == provider["sp_acs_uri"]
        slug = provider["sp_sso_uri"].rstrip("/").split("/")[-2]
        legacy = browser.get(f"/api/v2/login/saml/{slug}")
        assert legacy.status_code == 302 and legacy.headers["Location"] == f"/api/v2/sso/{slug}/login"


def test_a_signed_response_signs_in_a_new_user_with_auto_provisioning(live_server: LiveServer,
                                                                     idp: tuple[SAMLTestIdP, dict]) -> None:
    test_idp, provider = idp
    principal = f"{uuid.uuid4().hex[:8]}@corp.example.test"
    response = test_idp.response(principal=principal, audience=provider["sp_issuer_uri"],
                                 acs=provider["sp_acs_uri"])
    answer = post_back(live_server, provider, encoded(response))
    assert answer.status_code == 302 and answer.headers["Location"] == "/ui/", answer.headers
    token = answer.cookies["token"]
    with httpx.Client(base_url=live_server.base_url, headers={"Authorization": f"Bearer {token}"}) as user:
        me = user.get("/api/v2/self").json()["data"]
    assert me["principal_name"] == principal and me["sso_provider_id"] == provider["sso_provider_id"]
    assert [role["name"] for role in me["roles"]] == ["Read-Only"]


def test_an_existing_user_of_another_provider_is_refused(live_server: LiveServer, database: Database,
                                                        idp: tuple[SAMLTestIdP, dict]) -> None:
    test_idp, provider = idp
    someone = insert_user(database)
    response = test_idp.response(principal=someone.principal_name, audience=provider["sp_issuer_uri"],
                                 acs=provider["sp_acs_uri"])
    assert error_of(post_back(live_server, provider, encoded(response))) == "user is not authorized for this provider"


BAD_SIGNATURE = "SAML response signature is missing or invalid"


@pytest.mark.parametrize(("fault", "expected"), [
    ("tampered", BAD_SIGNATURE), ("other key", BAD_SIGNATURE), ("unsigned", BAD_SIGNATURE),
    ("other audience", "SAML assertion is meant for another service provider"),
    ("other issuer", "SAML assertion was issued by another identity provider"),
    ("expired", "SAML assertion is expired or not yet valid"),
    ("doctype", "SAML response refused: DTDForbidden"),
])
def test_untrustworthy_responses_are_refused(live_server: LiveServer, idp: tuple[SAMLTestIdP, dict], fault: str,
                                             expected: str) -> None:
    test_idp, provider = idp
    principal = f"{uuid.uuid4().hex[:8]}@corp.example.test"
    good = {"principal": principal, "audience": provider["sp_issuer_uri"], "acs": provider["sp_acs_uri"]}
    if fault == "other audience":
        good["audience"] = "https://elsewhere.example.test/sp"
    response = test_idp.response(
        **good, issuer="https://impostor.example.test" if fault == "other issuer" else None,
        valid_for=timedelta(minutes=-10) if fault == "expired" else timedelta(minutes=5),
        signer=SAMLTestIdP.generate(test_idp.entity_id) if fault == "other key" else None)
    raw = etree.tostring(response)
    if fault == "tampered":
        raw = raw.replace(principal.encode(), b"admin")
    if fault == "unsigned":
        signature = response.find(f".//{{{SAML}}}Assertion/{{http://www.w3.org/2000/09/xmldsig#}}Signature")
        signature.getparent().remove(signature)
        raw = etree.tostring(response)
    if fault == "doctype":
        raw = b'<!DOCTYPE r [<!ENTITY x SYSTEM "file:///etc/passwd">]>' + raw
    assert error_of(post_back(live_server, provider, encoded(raw))) == expected
    with httpx.Client(base_url=live_server.base_url) as anyone:
        assert anyone.get("/api/v2/bloodhound-users-minimal").status_code == 401


def test_the_login_page_runs_only_its_own_script_and_is_never_framed(live_server: LiveServer,
                                                                    idp: tuple[SAMLTestIdP, dict]) -> None:
    _, provider = idp
    with httpx.Client(base_url=live_server.base_url) as browser:
        page = browser.get(provider["sp_sso_uri"])
    policy = page.headers["Content-Security-Policy"]
    nonce = policy.split("'nonce-")[1].split("'")[0]
    assert "default-src 'none'" in policy and "frame-ancestors 'none'" in policy
    assert page.headers["X-Frame-Options"] == "DENY"
    assert f'<script nonce="{nonce}">' in page.text and "onload" not in page.text


def test_a_response_signs_in_once(live_server: LiveServer, idp: tuple[SAMLTestIdP, dict]) -> None:
    # A captured SAMLResponse (a proxy log, a shared machine's history) must not open a second session.
    test_idp, provider = idp
    principal = f"{uuid.uuid4().hex[:8]}@corp.example.test"
    response = encoded(test_idp.response(principal=principal, audience=provider["sp_issuer_uri"],
                                         acs=provider["sp_acs_uri"]))
    first = post_back(live_server, provider, response)
    assert first.status_code == 302 and first.headers["Location"] == "/ui/", first.headers
    assert error_of(post_back(live_server, provider, response)) == "SAML assertion was already used"


def test_the_audience_comes_from_configuration_not_the_host_header(live_server: LiveServer,
                                                                   idp: tuple[SAMLTestIdP, dict]) -> None:
    # An assertion the IdP made for another service provider (its audience and recipient at another host) was
    # accepted when posted with that host in the Host header.
    test_idp, provider = idp
    path = urlparse(provider["sp_acs_uri"]).path
    other = "http://other-sp.example.test"
    response = test_idp.response(principal=f"{uuid.uuid4().hex[:8]}@corp.example.test",
                                 audience=f"{other}{urlparse(provider['sp_issuer_uri']).path}", acs=f"{other}{path}")
    with httpx.Client(base_url=live_server.base_url) as browser:
        answer = browser.post(path, data={"SAMLResponse": encoded(response)},
                              headers={"Host": "other-sp.example.test"})
    assert error_of(answer) == "SAML assertion is meant for another service provider"
