"""Identity-provider metadata as Azure AD (Entra ID), Okta and Keycloak publish it (layouts kept, keys and
signature values shortened), and hostile documents."""

from __future__ import annotations

AZURE_TENANT = "4a1c3f5e-9b2d-4e7f-8a6c-1d2e3f4a5b6c"
AZURE_ENTITY_ID = f"https://sts.windows.net/{AZURE_TENANT}/"
AZURE_SSO = f"https://login.microsoftonline.com/{AZURE_TENANT}/saml2"
CERT = ("MIIC8DCCAdigAwIBAgIQHqS0pqBqq4ZKtAE0TjSz6jANBgkqhkiG9w0BAQsFADA0MTIwMAYDVQQDEylNaWNyb3NvZnQgQXp1cmUg"
        "RmVkZXJhdGVkIFNTTyBDZXJ0aWZpY2F0ZTAeFw0yNDAxMDEwMDAwMDBaFw0yNzAxMDEwMDAwMDBa")

AZURE_AD = f"""<?xml version="1.0" encoding="utf-8"?>
<EntityDescriptor ID="_8d3c2b1a-0f9e-4d8c-b7a6-5e4d3c2b1a0f" entityID="{AZURE_ENTITY_ID}"
    xmlns="urn:oasis:names:tc:SAML:2.0:metadata">
  <Signature xmlns="http://www.w3.org/2000/09/xmldsig#">
    <SignedInfo>
      <CanonicalizationMethod Algorithm="http://www.w3.org/2001/10/xml-exc-c14n#" />
      <SignatureMethod Algorithm="http://www.w3.org/2001/04/xmldsig-more#rsa-sha256" />
      <Reference URI="#_8d3c2b1a-0f9e-4d8c-b7a6-5e4d3c2b1a0f">
        <Transforms>
          <Transform Algorithm="http://www.w3.org/2000/09/xmldsig#enveloped-signature" />
          <Transform Algorithm="http://www.w3.org/2001/10/xml-exc-c14n#" />
        </Transforms>
        <DigestMethod Algorithm="http://www.w3.org/2001/04/xmlenc#sha256" />
        <DigestValue>Zm9vYmFyYmF6cXV4cXV1eGNvcmdlZ3JhdWx0</DigestValue>
      </Reference>
    </SignedInfo>
    <SignatureValue>c2lnbmF0dXJldmFsdWVzaG9ydGVuZWRmb3J0aGV0ZXN0</SignatureValue>
    <KeyInfo><X509Data><X509Certificate>{CERT}</X509Certificate></X509Data></KeyInfo>
  </Signature>
  <RoleDescriptor xsi:type="fed:SecurityTokenServiceType"
      protocolSupportEnumeration="http://docs.oasis-open.org/wsfed/federation/200706"
      xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xmlns:fed="http://docs.oasis-open.org/wsfed/federation/200706">
    <KeyDescriptor use="signing">
      <KeyInfo xmlns="http://www.w3.org/2000/09/xmldsig#"><X509Data><X509Certificate>{CERT}</X509Certificate></X509Data></KeyInfo>
    </KeyDescriptor>
    <fed:ClaimTypesOffered>
      <auth:ClaimType Uri="http://schemas.xmlsoap.org/ws/2005/05/identity/claims/emailaddress"
          xmlns:auth="http://docs.oasis-open.org/wsfed/authorization/200706">
        <auth:DisplayName>Email</auth:DisplayName>
      </auth:ClaimType>
    </fed:ClaimTypesOffered>
    <fed:PassiveRequestorEndpoint>
      <wsa:EndpointReference xmlns:wsa="http://www.w3.org/2005/08/addressing">
        <wsa:Address>https://login.microsoftonline.com/{AZURE_TENANT}/wsfed</wsa:Address>
      </wsa:EndpointReference>
    </fed:PassiveRequestorEndpoint>
  </RoleDescriptor>
  <IDPSSODescriptor protocolSupportEnumeration="urn:oasis:names:tc:SAML:2.0:protocol">
    <KeyDescriptor use="signing">
      <KeyInfo xmlns="http://www.w3.org/2000/09/xmldsig#"><X509Data><X509Certificate>{CERT}</X509Certificate></X509Data></KeyInfo>
    </KeyDescriptor>
    <SingleLogoutService Binding="urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect" Location="{AZURE_SSO}" />
    <SingleSignOnService Binding="urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect" Location="{AZURE_SSO}" />
    <SingleSignOnService Binding="urn:oasis:names:tc:SAML:2.0:bindings:HTTP-POST" Location="{AZURE_SSO}" />
  </IDPSSODescriptor>
</EntityDescriptor>
""".encode()

OKTA_ENTITY_ID = "http://www.okta.com/exk1fxp5d8ZzTYyA0357"
OKTA_SSO_POST = "https://dev-7145322.okta.com/app/dev-7145322_houndgraph_1/exk1fxp5d8ZzTYyA0357/sso/saml"
OKTA_SSO_REDIRECT = OKTA_SSO_POST + "?binding=redirect"

OKTA = f"""<?xml version="1.0" encoding="UTF-8"?><md:EntityDescriptor xmlns:md="urn:oasis:names:tc:SAML:2.0:metadata" entityID="{OKTA_ENTITY_ID}"><md:IDPSSODescriptor WantAuthnRequestsSigned="false" protocolSupportEnumeration="urn:oasis:names:tc:SAML:2.0:protocol"><md:KeyDescriptor use="signing"><ds:KeyInfo xmlns:ds="http://www.w3.org/2000/09/xmldsig#"><ds:X509Data><ds:X509Certificate>{CERT}</ds:X509Certificate></ds:X509Data></ds:KeyInfo></md:KeyDescriptor><md:NameIDFormat>urn:oasis:names:tc:SAML:1.1:nameid-format:unspecified</md:NameIDFormat><md:NameIDFormat>urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress</md:NameIDFormat><md:SingleSignOnService Binding="urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect" Location="{OKTA_SSO_REDIRECT}"/><md:SingleSignOnService Binding="urn:oasis:names:tc:SAML:2.0:bindings:HTTP-POST" Location="{OKTA_SSO_POST}"/></md:IDPSSODescriptor></md:EntityDescriptor>""".encode()  # noqa: E501

KEYCLOAK_ENTITY_ID = "https://keycloak.corp.example/realms/corp"
KEYCLOAK_SSO = "https://keycloak.corp.example/realms/corp/protocol/saml"

# Keycloak's "SAML 2.0 Identity Provider Metadata" export: an EntitiesDescriptor around the IdP.
KEYCLOAK = f"""<?xml version="1.0" encoding="UTF-8"?>
<md:EntitiesDescriptor xmlns="urn:oasis:names:tc:SAML:2.0:metadata"
    xmlns:md="urn:oasis:names:tc:SAML:2.0:metadata" xmlns:saml="urn:oasis:names:tc:SAML:2.0:assertion"
    xmlns:ds="http://www.w3.org/2000/09/xmldsig#" Name="urn:keycloak">
  <md:EntityDescriptor entityID="{KEYCLOAK_ENTITY_ID}">
    <md:IDPSSODescriptor WantAuthnRequestsSigned="true"
        protocolSupportEnumeration="urn:oasis:names:tc:SAML:2.0:protocol">
      <md:KeyDescriptor use="signing">
        <ds:KeyInfo><ds:KeyName>kV3aZ1bQ9xNc</ds:KeyName>
          <ds:X509Data><ds:X509Certificate>{CERT}</ds:X509Certificate></ds:X509Data>
        </ds:KeyInfo>
      </md:KeyDescriptor>
      <md:ArtifactResolutionService Binding="urn:oasis:names:tc:SAML:2.0:bindings:SOAP"
          Location="{KEYCLOAK_SSO}/resolve" index="0"/>
      <md:SingleLogoutService Binding="urn:oasis:names:tc:SAML:2.0:bindings:HTTP-POST" Location="{KEYCLOAK_SSO}"/>
      <md:SingleLogoutService Binding="urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect" Location="{KEYCLOAK_SSO}"/>
      <md:NameIDFormat>urn:oasis:names:tc:SAML:2.0:nameid-format:persistent</md:NameIDFormat>
      <md:NameIDFormat>urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress</md:NameIDFormat>
      <md:SingleSignOnService Binding="urn:oasis:names:tc:SAML:2.0:bindings:HTTP-POST" Location="{KEYCLOAK_SSO}"/>
      <md:SingleSignOnService Binding="urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect" Location="{KEYCLOAK_SSO}"/>
      <md:SingleSignOnService Binding="urn:oasis:names:tc:SAML:2.0:bindings:SOAP" Location="{KEYCLOAK_SSO}"/>
      <md:SingleSignOnService Binding="urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Artifact" Location="{KEYCLOAK_SSO}"/>
    </md:IDPSSODescriptor>
  </md:EntityDescriptor>
</md:EntitiesDescriptor>
""".encode()

REDIRECT_ONLY = OKTA.replace(b"HTTP-POST", b"HTTP-Artifact")


def with_acs(document: bytes, acs: str) -> bytes:
    """An IdP export that also carries the service provider's description (some IdPs include it)."""
    sp = (f'<md:SPSSODescriptor protocolSupportEnumeration="urn:oasis:names:tc:SAML:2.0:protocol">'
          f'<md:AssertionConsumerService Binding="urn:oasis:names:tc:SAML:2.0:bindings:HTTP-POST" '
          f'Location="{acs}" index="1"/></md:SPSSODescriptor></md:EntityDescriptor>')
    return document.replace(b"</md:EntityDescriptor>", sp.encode())


BILLION_LAUGHS = b"""<?xml version="1.0"?>
<!DOCTYPE lolz [
 <!ENTITY lol "lol">
 <!ENTITY lol1 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">
 <!ENTITY lol2 "&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;">
 <!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">
 <!ENTITY lol4 "&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;">
 <!ENTITY lol5 "&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;">
 <!ENTITY lol6 "&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;">
 <!ENTITY lol7 "&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;">
 <!ENTITY lol8 "&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;">
 <!ENTITY lol9 "&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;">
]>
<md:EntityDescriptor xmlns:md="urn:oasis:names:tc:SAML:2.0:metadata" entityID="&lol9;"/>
"""


def external_entity(path: str) -> bytes:
    return f"""<?xml version="1.0"?>
<!DOCTYPE md:EntityDescriptor [ <!ENTITY secret SYSTEM "file://{path}"> ]>
<md:EntityDescriptor xmlns:md="urn:oasis:names:tc:SAML:2.0:metadata" entityID="&secret;">
  <md:IDPSSODescriptor protocolSupportEnumeration="urn:oasis:names:tc:SAML:2.0:protocol">
    <md:SingleSignOnService Binding="urn:oasis:names:tc:SAML:2.0:bindings:HTTP-POST" Location="https://idp/&secret;"/>
  </md:IDPSSODescriptor>
</md:EntityDescriptor>
""".encode()


EXTERNAL_PARAMETER_ENTITY = b"""<?xml version="1.0"?>
<!DOCTYPE md:EntityDescriptor [ <!ENTITY % remote SYSTEM "http://127.0.0.1:9/evil.dtd"> %remote; ]>
<md:EntityDescriptor xmlns:md="urn:oasis:names:tc:SAML:2.0:metadata" entityID="https://idp.example/"/>
"""

# A DTD with no entities at all: still refused.
INERT_DTD = OKTA.replace(b'<?xml version="1.0" encoding="UTF-8"?>',
                         b'<?xml version="1.0" encoding="UTF-8"?><!DOCTYPE md:EntityDescriptor [ <!ELEMENT x ANY> ]>')
EXTERNAL_DTD = OKTA.replace(b'<?xml version="1.0" encoding="UTF-8"?>',
                            b'<?xml version="1.0" encoding="UTF-8"?>'
                            b'<!DOCTYPE md:EntityDescriptor SYSTEM "http://127.0.0.1:9/saml.dtd">')
NOT_XML = b"-----BEGIN CERTIFICATE-----\nMIIC8DCCAdigAwIBAgIQ\n-----END CERTIFICATE-----\n"
NOT_METADATA = b"""<?xml version="1.0"?>
<samlp:Response xmlns:samlp="urn:oasis:names:tc:SAML:2.0:protocol" ID="_1" Version="2.0"
    IssueInstant="2026-01-01T00:00:00Z"><samlp:Status/></samlp:Response>"""
NO_ENTITY_ID = OKTA.replace(f' entityID="{OKTA_ENTITY_ID}"'.encode(), b"")
