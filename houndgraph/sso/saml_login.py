"""SAML sign-in: the authentication request we send an identity provider, and the check of the signed
response it posts back to our assertion consumer service.

The response is untrusted input: it is refused when it carries a DTD or entities (checked with defusedxml
before anything else reads it), when no signature by the provider's certificate (from its metadata) covers
the assertion (signxml; only the signed element is read afterwards, so a wrapped, unsigned assertion is
never seen), when it is not for us (audience, recipient), or when it is outside its validity window.
"""

from __future__ import annotations

import base64
import binascii
import html
import uuid
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

import defusedxml.ElementTree as SafeET
from defusedxml import DefusedXmlException
from lxml import etree  # type: ignore[import-untyped]
from signxml import InvalidInput, InvalidSignature, XMLVerifier

from houndgraph.errors import BadRequest
from houndgraph.sso.metadata import MD, ServiceProviderURLs

SAMLP = "urn:oasis:names:tc:SAML:2.0:protocol"
SAML = "urn:oasis:names:tc:SAML:2.0:assertion"
DS = "http://www.w3.org/2000/09/xmldsig#"
STATUS_SUCCESS = "urn:oasis:names:tc:SAML:2.0:status:Success"
MAX_RESPONSE_BYTES = 1024 * 1024
CLOCK_SKEW = timedelta(minutes=2)
# The reference's default principal attributes: the LDAP `mail` OID, then the WS-Federation e-mail claim.
DEFAULT_PRINCIPAL_ATTRIBUTES = ("urn:oid:0.9.2342.19200300.100.1.3",
                                "http://schemas.xmlsoap.org/ws/2005/05/identity/claims/emailaddress")
GIVEN_NAME = "http://schemas.xmlsoap.org/ws/2005/05/identity/claims/givenname"
SURNAME = "http://schemas.xmlsoap.org/ws/2005/05/identity/claims/surname"
ROLE = "http://schemas.microsoft.com/ws/2008/06/identity/claims/role"


# How long a used assertion is remembered when it names no end of its own validity.
DEFAULT_ASSERTION_LIFETIME = timedelta(hours=1)


@dataclass(frozen=True)
class SignedAssertion:
    principal: str
    attributes: dict[str, list[str]]
    # Its ID and the end of its validity: used once, it is refused until then.
    assertion_id: str
    valid_until: datetime


def login_page_headers(script_nonce: str) -> dict[str, str]:
    """The page runs its one script and nothing else, and is never framed."""
    return {"Content-Security-Policy": f"default-src 'none'; script-src 'nonce-{script_nonce}'; base-uri 'none'; "
                                       "frame-ancestors 'none'",
            "X-Frame-Options": "DENY", "Referrer-Policy": "no-referrer", "Cache-Control": "no-store"}


def authn_request_form(idp_sso_url: str, urls: ServiceProviderURLs, script_nonce: str, relay_state: str = "") -> str:
    """An HTML page that posts an AuthnRequest to the provider (HTTP-POST binding, the one its metadata
    is required to offer). Its one script carries `script_nonce`, the only script its CSP lets run."""
    request = (
        f'<samlp:AuthnRequest xmlns:samlp="{SAMLP}" xmlns:saml="{SAML}" ID="_{uuid.uuid4().hex}" Version="2.0" '
        f'IssueInstant="{datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")}" Destination="{html.escape(idp_sso_url)}" '
        f'AssertionConsumerServiceURL="{html.escape(urls.acs)}" '
        f'ProtocolBinding="urn:oasis:names:tc:SAML:2.0:bindings:HTTP-POST">'
        f"<saml:Issuer>{html.escape(urls.issuer)}</saml:Issuer></samlp:AuthnRequest>")
    encoded = base64.b64encode(request.encode()).decode()
    return ("<!DOCTYPE html><html><body>"
            f'<form method="post" action="{html.escape(idp_sso_url)}">'
            f'<input type="hidden" name="SAMLRequest" value="{encoded}">'
            f'<input type="hidden" name="RelayState" value="{html.escape(relay_state)}">'
            "<noscript><button type=\"submit\">Continue</button></noscript></form>"
            f'<script nonce="{script_nonce}">document.forms[0].submit()</script></body></html>')


def signing_certificates(metadata_xml: bytes) -> list[str]:
    """The provider's signing certificates (PEM) from its metadata (already checked when it was uploaded)."""
    root = SafeET.fromstring(metadata_xml, forbid_dtd=True)
    found = []
    for descriptor in root.iter(f"{{{MD}}}IDPSSODescriptor"):
        for key in descriptor.findall(f"{{{MD}}}KeyDescriptor"):
            if key.get("use") not in (None, "signing"):
                continue
            for cert in key.iter(f"{{{DS}}}X509Certificate"):
                body = "".join((cert.text or "").split())
                if body:
                    found.append(f"-----BEGIN CERTIFICATE-----\n{body}\n-----END CERTIFICATE-----\n")
    return found


def _decode(saml_response: str) -> bytes:
    try:
        data = base64.b64decode(saml_response, validate=False)
    except (binascii.Error, ValueError):
        raise BadRequest("SAML response is not base64") from None
    if not data or len(data) > MAX_RESPONSE_BYTES:
        raise BadRequest("SAML response is empty or too large")
    try:
        SafeET.fromstring(data, forbid_dtd=True)
    except DefusedXmlException as error:
        raise BadRequest(f"SAML response refused: {type(error).__name__}") from None
    except SafeET.ParseError:
        raise BadRequest("SAML response is not well-formed XML") from None
    return data


def _verified_assertion(data: bytes, certificates: list[str]) -> Any:
    """The assertion as covered by a valid signature of one of `certificates`."""
    for certificate in certificates:
        try:
            result = XMLVerifier().verify(data, x509_cert=certificate)
        except (InvalidSignature, InvalidInput):
            continue
        signed = (result[0] if isinstance(result, list) else result).signed_xml
        if signed is None:
            continue
        if signed.tag == f"{{{SAML}}}Assertion":
            return signed
        assertions = signed.findall(f"{{{SAML}}}Assertion")
        if signed.tag == f"{{{SAMLP}}}Response" and len(assertions) == 1:
            return assertions[0]
    raise BadRequest("SAML response signature is missing or invalid")


def _time(value: str | None) -> datetime | None:
    return datetime.fromisoformat(value.replace("Z", "+00:00")) if value else None


def _check_window(not_before: str | None, not_on_or_after: str | None, now: datetime) -> None:
    start, end = _time(not_before), _time(not_on_or_after)
    if (start is not None and now + CLOCK_SKEW < start) or (end is not None and now - CLOCK_SKEW >= end):
        raise BadRequest("SAML assertion is expired or not yet valid")


def verify_response(saml_response: str, *, metadata_xml: bytes, idp_entity_id: str, urls: ServiceProviderURLs,
                    principal_attributes: list[str], now: datetime | None = None) -> SignedAssertion:
    now = now or datetime.now(UTC)
    data = _decode(saml_response)
    response = etree.fromstring(data, parser=etree.XMLParser(resolve_entities=False, no_network=True))
    status = response.find(f"{{{SAMLP}}}Status/{{{SAMLP}}}StatusCode")
    if response.tag == f"{{{SAMLP}}}Response" and (status is None or status.get("Value") != STATUS_SUCCESS):
        raise BadRequest("the identity provider did not authenticate the user")
    assertion = _verified_assertion(data, signing_certificates(metadata_xml))
    issuer = assertion.findtext(f"{{{SAML}}}Issuer") or ""
    if issuer.strip() != idp_entity_id:
        raise BadRequest("SAML assertion was issued by another identity provider")
    conditions = assertion.find(f"{{{SAML}}}Conditions")
    if conditions is None:
        raise BadRequest("SAML assertion has no conditions")
    _check_window(conditions.get("NotBefore"), conditions.get("NotOnOrAfter"), now)
    assertion_id = (assertion.get("ID") or "").strip()
    if not assertion_id:
        raise BadRequest("SAML assertion has no ID")
    ends = [_time(conditions.get("NotOnOrAfter"))]
    audiences = [a.text.strip() for a in conditions.iter(f"{{{SAML}}}Audience") if a.text]
    if urls.issuer not in audiences:
        raise BadRequest("SAML assertion is meant for another service provider")
    for confirmation in assertion.iter(f"{{{SAML}}}SubjectConfirmationData"):
        if confirmation.get("Recipient") not in (None, urls.acs):
            raise BadRequest("SAML assertion is meant for another service provider")
        _check_window(None, confirmation.get("NotOnOrAfter"), now)
        ends.append(_time(confirmation.get("NotOnOrAfter")))
    valid_until = max((end for end in ends if end is not None), default=now + DEFAULT_ASSERTION_LIFETIME) + CLOCK_SKEW
    attributes: dict[str, list[str]] = {}
    for attribute in assertion.iter(f"{{{SAML}}}Attribute"):
        values = [(v.text or "").strip() for v in attribute.findall(f"{{{SAML}}}AttributeValue")]
        attributes.setdefault(attribute.get("Name") or "", []).extend(v for v in values if v)
    for name in principal_attributes or DEFAULT_PRINCIPAL_ATTRIBUTES:
        if attributes.get(name):
            return SignedAssertion(attributes[name][0], attributes, assertion_id, valid_until)
    raise BadRequest("SAML assertion does not name the user")
