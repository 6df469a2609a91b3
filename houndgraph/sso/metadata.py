"""SAML 2.0 metadata: reading an identity provider's (untrusted upload) and writing our service provider's.

The upload is parsed with defusedxml and refused, naming the problem, when it declares entities (billion
laughs, external entities reading local files or URLs), carries a DTD at all, references anything
external, is larger than 10 MiB, is not XML, or is XML but not SAML metadata.
"""

from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import urlsplit
from xml.etree.ElementTree import Element, ParseError, SubElement, tostring

import defusedxml.ElementTree as SafeET
from defusedxml import DefusedXmlException, DTDForbidden, EntitiesForbidden, ExternalReferenceForbidden

from houndgraph.errors import BadRequest

MAX_METADATA_BYTES = 10 * 1024 * 1024
MD = "urn:oasis:names:tc:SAML:2.0:metadata"
HTTP_POST_BINDING = "urn:oasis:names:tc:SAML:2.0:bindings:HTTP-POST"
SAML2_PROTOCOL = "urn:oasis:names:tc:SAML:2.0:protocol"
NAMEID_EMAIL = "urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress"

NO_POST_SSO = "metadata does not have a SSO service that supports HTTP POST binding"
TOO_LARGE = f"metadata file is larger than the limit of {MAX_METADATA_BYTES} bytes"


@dataclass(frozen=True, slots=True)
class IdentityProviderMetadata:
    entity_id: str
    sso_post_url: str
    # The service-provider ACS URL, when the document also describes a service provider (some IdPs export
    # metadata with both); it tells which of our URL layouts the IdP was configured with.
    acs_post_url: str | None


def is_web_url(value: str) -> bool:
    """An absolute http(s) URL: what a browser may be sent to from a provider's metadata (a `javascript:` or
    `data:` location would run in our origin's page)."""
    try:
        parts = urlsplit(value)
    except ValueError:
        return False
    return parts.scheme.lower() in ("http", "https") and bool(parts.hostname)


def _refuse(problem: str) -> BadRequest:
    return BadRequest(f"metadata XML refused: {problem}")


def _parse(data: bytes) -> Element:
    # First pass with DTDs allowed but entities and external references forbidden: this names the attack
    # precisely. The second pass refuses any DTD left (an inert one is still not metadata we accept).
    try:
        SafeET.fromstring(data, forbid_dtd=False, forbid_entities=True, forbid_external=True)
    except EntitiesForbidden as error:
        if error.sysid or error.pubid:
            raise _refuse(f"it declares the external entity {error.name!r} ({error.sysid or error.pubid}); "
                          "external entities are not allowed") from None
        raise _refuse(f"it declares the entity {error.name!r}; entity declarations (and their expansion) "
                      "are not allowed") from None
    except ExternalReferenceForbidden as error:
        raise _refuse(f"it references the external resource {error.sysid or error.pubid!r}") from None
    except DefusedXmlException as error:
        raise _refuse(str(error)) from None
    except ParseError as error:
        raise BadRequest(f"metadata is not well-formed XML: {error}") from None
    try:
        return SafeET.fromstring(data, forbid_dtd=True, forbid_entities=True, forbid_external=True)
    except DTDForbidden:
        raise _refuse("it contains a document type declaration (DTD); DTDs are not allowed") from None


def _entity_descriptor(root: Element) -> Element:
    if root.tag == f"{{{MD}}}EntityDescriptor":
        return root
    if root.tag == f"{{{MD}}}EntitiesDescriptor":
        # A federation document: take the first entity that is an identity provider.
        for entity in root.iter(f"{{{MD}}}EntityDescriptor"):
            if entity.find(f"{{{MD}}}IDPSSODescriptor") is not None:
                return entity
        raise BadRequest(NO_POST_SSO)
    raise BadRequest(f"metadata is not SAML 2.0 metadata: the document element is {root.tag}, "
                     f"expected {{{MD}}}EntityDescriptor")


def _post_location(entity: Element, descriptor: str, service: str) -> str | None:
    for role in entity.findall(f"{{{MD}}}{descriptor}"):
        for endpoint in role.findall(f"{{{MD}}}{service}"):
            if endpoint.get("Binding") == HTTP_POST_BINDING and endpoint.get("Location"):
                return endpoint.get("Location")
    return None


def parse_identity_provider(data: bytes) -> IdentityProviderMetadata:
    """`idp_issuer_uri` is the EntityDescriptor's entityID, `idp_sso_uri` its HTTP-POST SingleSignOnService."""
    if len(data) > MAX_METADATA_BYTES:
        raise BadRequest(TOO_LARGE)
    if not data.strip():
        raise BadRequest("metadata is not well-formed XML: the file is empty")
    entity = _entity_descriptor(_parse(data))
    entity_id = (entity.get("entityID") or "").strip()
    if not entity_id:
        raise BadRequest("metadata is not SAML 2.0 metadata: the EntityDescriptor has no entityID")
    sso_url = _post_location(entity, "IDPSSODescriptor", "SingleSignOnService")
    if sso_url is None:
        raise BadRequest(NO_POST_SSO)
    if not is_web_url(sso_url.strip()):
        raise _refuse(f"the SingleSignOnService location {sso_url[:200]!r} is not an http(s) URL")
    sso_url = sso_url.strip()
    return IdentityProviderMetadata(entity_id, sso_url,
                                    _post_location(entity, "SPSSODescriptor", "AssertionConsumerService"))


@dataclass(frozen=True, slots=True)
class ServiceProviderURLs:
    issuer: str
    sso: str
    metadata: str
    acs: str


def service_provider_metadata(urls: ServiceProviderURLs) -> bytes:
    """What an identity provider imports to trust us: our entity id and where assertions are posted.
    No signing key is configured, so requests are unsigned and assertions must be signed by the IdP."""
    # Prefixed names with an explicit xmlns:md, rather than ElementTree's global namespace registry.
    root = Element("md:EntityDescriptor", {"xmlns:md": MD, "entityID": urls.issuer})
    sp = SubElement(root, "md:SPSSODescriptor", {
        "AuthnRequestsSigned": "false", "WantAssertionsSigned": "true", "protocolSupportEnumeration": SAML2_PROTOCOL,
    })
    SubElement(sp, "md:NameIDFormat").text = NAMEID_EMAIL
    SubElement(sp, "md:AssertionConsumerService",
               {"Binding": HTTP_POST_BINDING, "Location": urls.acs, "index": "1", "isDefault": "true"})
    return tostring(root, encoding="utf-8", xml_declaration=True)
