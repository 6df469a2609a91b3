"""OIDC providers and sign-in, against a small OpenID Connect provider run by the test on a port of its own
(discovery, keys, an authorization endpoint that approves at once, a token endpoint issuing RS256 ID tokens)."""

from __future__ import annotations

import asyncio
import base64
import hashlib
import secrets
import threading
import time
import uuid
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any
from urllib.parse import parse_qs, urlencode, urlparse

import httpx
import jwt
import pytest
import uvicorn
from cryptography.hazmat.primitives.asymmetric import rsa
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, RedirectResponse
from starlette.routing import Route

from houndgraph.db import Database
from tests.conftest import LiveServer, _free_port
from tests.factories import insert_user
from tests.sso.conftest import unique_name

CLIENT_ID = "houndgraph-test"


class OIDCTestProvider:
    """The provider: `email` is who its next sign-in is for; `tamper` spoils the next ID token."""

    def __init__(self) -> None:
        self.port = _free_port()
        self.issuer = f"http://127.0.0.1:{self.port}"
        self.key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
        self.email = ""
        self.tamper: str | None = None
        self.discovery_delay = 0.0  # seconds the discovery document takes (a slow provider)
        self.authorization_endpoint = f"{self.issuer}/authorize"
        self.codes: dict[str, dict[str, Any]] = {}
        app = Starlette(routes=[
            Route("/.well-known/openid-configuration", self.discovery), Route("/jwks", self.jwks),
            Route("/authorize", self.authorize), Route("/token", self.token, methods=["POST"]),
        ])
        self.server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=self.port, log_level="warning"))
        self.thread = threading.Thread(target=self.server.run, daemon=True)

    async def discovery(self, request: Request) -> JSONResponse:
        await asyncio.sleep(self.discovery_delay)
        return JSONResponse({"issuer": self.issuer, "authorization_endpoint": self.authorization_endpoint,
                             "token_endpoint": f"{self.issuer}/token", "jwks_uri": f"{self.issuer}/jwks"})

    async def jwks(self, request: Request) -> JSONResponse:
        public = jwt.algorithms.RSAAlgorithm.to_jwk(self.key.public_key(), as_dict=True)
        return JSONResponse({"keys": [{**public, "kid": "k1", "use": "sig", "alg": "RS256"}]})

    async def authorize(self, request: Request) -> RedirectResponse:
        params = request.query_params
        code = secrets.token_urlsafe(16)
        self.codes[code] = {"nonce": params["nonce"], "challenge": params["code_challenge"],
                            "client_id": params["client_id"], "redirect_uri": params["redirect_uri"]}
        return RedirectResponse(f"{params['redirect_uri']}?{urlencode({'code': code, 'state': params['state']})}")

    async def token(self, request: Request) -> JSONResponse:
        form = await request.form()
        grant = self.codes.pop(str(form["code"]), None)
        verifier = str(form.get("code_verifier", ""))
        challenge = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).rstrip(b"=").decode()
        if grant is None or challenge != grant["challenge"] or form["redirect_uri"] != grant["redirect_uri"]:
            return JSONResponse({"error": "invalid_grant"}, status_code=400)
        now = int(time.time())
        claims = {"iss": self.issuer, "sub": uuid.uuid4().hex, "aud": grant["client_id"], "iat": now,
                  "exp": now + 300, "nonce": grant["nonce"], "email": self.email, "given_name": "Olive",
                  "family_name": "Idsen"}
        key: Any = self.key
        if self.tamper == "other key":
            key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
        elif self.tamper == "other audience":
            claims["aud"] = "someone-else"
        elif self.tamper == "nonce":
            claims["nonce"] = "replayed"
        elif self.tamper == "expired":
            claims["exp"] = now - 600
        elif self.tamper == "unverified email":
            claims["email_verified"] = False
        token = jwt.encode(claims, key, algorithm="RS256", headers={"kid": "k1"})
        return JSONResponse({"access_token": "unused", "token_type": "Bearer", "id_token": token})


@pytest.fixture(scope="module")
def oidc_provider() -> Iterator[OIDCTestProvider]:
    provider = OIDCTestProvider()
    provider.thread.start()
    deadline = time.monotonic() + 30
    while not provider.server.started:
        assert time.monotonic() < deadline, "the test OIDC provider did not start"
        time.sleep(0.05)
    yield provider
    provider.server.should_exit = True
    provider.thread.join(timeout=10)


@pytest.fixture
def registered(admin: httpx.Client, oidc_provider: OIDCTestProvider, role_ids: dict) -> dict:
    body = {"name": unique_name("oidc"), "issuer": oidc_provider.issuer, "client_id": CLIENT_ID,
            "config": {"auto_provision": {"enabled": True, "default_role_id": role_ids["Read-Only"],
                                          "role_provision": False}}}
    response = admin.post("/api/v2/sso-providers/oidc", json=body)
    assert response.status_code == 201, response.text
    return response.json()["data"]


def sign_in(live_server: LiveServer, provider: dict) -> httpx.Response:
    """A browser going through the whole flow: our login, the provider, back to our callback."""
    with httpx.Client(base_url=live_server.base_url, follow_redirects=False) as browser:
        to_provider = browser.get(f"/api/v2/sso/{provider['slug']}/login")
        assert to_provider.status_code == 302, to_provider.text
        back = browser.get(to_provider.headers["Location"])
        assert back.status_code in (302, 307), back.text
        return browser.get(back.headers["Location"])


def test_an_oidc_provider_is_created_and_listed(admin: httpx.Client, registered: dict,
                                                oidc_provider: OIDCTestProvider) -> None:
    assert registered["type"] == "oidc"
    assert registered["details"]["issuer"] == oidc_provider.issuer and registered["details"]["client_id"] == CLIENT_ID
    listed = {p["id"]: p for p in admin.get("/api/v2/sso-providers").json()["data"]}
    assert listed[registered["id"]]["details"]["client_id"] == CLIENT_ID
    bad = admin.post("/api/v2/sso-providers/oidc", json={"name": unique_name(), "issuer": "ftp://x", "client_id": "c"})
    assert bad.status_code == 400


def test_anyone_may_list_the_providers_and_where_their_sign_in_starts(live_server: LiveServer,
                                                                    registered: dict) -> None:
    """As the reference does: a login page lists the providers before anyone has signed in."""
    with httpx.Client(base_url=live_server.base_url) as anonymous:
        response = anonymous.get("/api/v2/sso-providers")
    assert response.status_code == 200
    listed = {p["id"]: p for p in response.json()["data"]}[registered["id"]]
    assert listed["login_uri"] == f"{live_server.base_url}/api/v2/sso/{registered['slug']}/login"
    assert listed["callback_uri"] == f"{live_server.base_url}/api/v2/sso/{registered['slug']}/callback"
    assert set(listed["details"]) <= {"id", "sso_provider_id", "client_id", "issuer", "created_at", "updated_at",
                                      "deleted_at"}  # no secret among them
    # The listed login URI is the one that starts the flow.
    with httpx.Client(follow_redirects=False) as browser:
        assert browser.get(listed["login_uri"]).status_code == 302


def test_sign_in_provisions_a_new_user_and_opens_a_session(live_server: LiveServer, registered: dict,
                                                           oidc_provider: OIDCTestProvider) -> None:
    oidc_provider.email, oidc_provider.tamper = f"{uuid.uuid4().hex[:8]}@corp.example.test", None
    answer = sign_in(live_server, registered)
    assert answer.status_code == 302 and answer.headers["Location"] == "/ui/", answer.headers
    token = answer.cookies["token"]
    with httpx.Client(base_url=live_server.base_url, headers={"Authorization": f"Bearer {token}"}) as user:
        me = user.get("/api/v2/self").json()["data"]
    assert me["principal_name"] == oidc_provider.email and me["first_name"] == "Olive"
    assert me["sso_provider_id"] == registered["id"] and [r["name"] for r in me["roles"]] == ["Read-Only"]


def test_a_user_of_another_provider_is_refused(live_server: LiveServer, database: Database, registered: dict,
                                               oidc_provider: OIDCTestProvider) -> None:
    oidc_provider.email, oidc_provider.tamper = insert_user(database).principal_name, None
    answer = sign_in(live_server, registered)
    assert parse_qs(urlparse(answer.headers["Location"]).query)["error"] == ["user is not authorized for this provider"]


@pytest.mark.parametrize("tamper", ["other key", "other audience", "nonce", "expired"])
def test_untrustworthy_id_tokens_are_refused(live_server: LiveServer, registered: dict,
                                             oidc_provider: OIDCTestProvider, tamper: str) -> None:
    oidc_provider.email, oidc_provider.tamper = f"{uuid.uuid4().hex[:8]}@corp.example.test", tamper
    answer = sign_in(live_server, registered)
    location = urlparse(answer.headers["Location"])
    assert answer.status_code == 302 and location.path == "/ui"
    assert parse_qs(location.query)["error"][0].startswith("OIDC ID token refused")
    assert "token" not in answer.cookies


def test_a_callback_without_the_state_cookie_is_refused(live_server: LiveServer, registered: dict) -> None:
    with httpx.Client(base_url=live_server.base_url) as stranger:
        answer = stranger.get(f"/api/v2/sso/{registered['slug']}/callback", params={"code": "x", "state": "y"})
    assert parse_qs(urlparse(answer.headers["Location"]).query)["error"] == [
        "OIDC sign-in expired or was not started here"]


def test_an_address_the_provider_has_not_verified_signs_no_one_in(live_server: LiveServer, registered: dict,
                                                                  oidc_provider: OIDCTestProvider) -> None:
    # Someone who registered another's address at the provider, unverified, would take over that account.
    oidc_provider.email, oidc_provider.tamper = f"{uuid.uuid4().hex[:8]}@corp.example.test", "unverified email"
    answer = sign_in(live_server, registered)
    assert parse_qs(urlparse(answer.headers["Location"]).query)["error"] == [
        "OIDC ID token names an e-mail address the provider has not verified"]
    assert "token" not in answer.cookies


def test_an_authorization_endpoint_that_is_not_http_is_refused(live_server: LiveServer, registered: dict,
                                                               oidc_provider: OIDCTestProvider) -> None:
    oidc_provider.authorization_endpoint = "javascript:alert(document.cookie)"
    try:
        with httpx.Client(base_url=live_server.base_url) as browser:
            answer = browser.get(f"/api/v2/sso/{registered['slug']}/login")
    finally:
        oidc_provider.authorization_endpoint = f"{oidc_provider.issuer}/authorize"
    assert answer.status_code == 302
    assert parse_qs(urlparse(answer.headers["Location"]).query)["error"] == ["OIDC provider discovery failed"]


def test_an_unreachable_issuer_is_reported_without_the_kind_of_failure(admin: httpx.Client,
                                                                      live_server: LiveServer) -> None:
    # "ConnectError" against "ReadTimeout" told whoever may name an issuer which local ports answer.
    body = {"name": unique_name("oidc"), "issuer": f"http://127.0.0.1:{_free_port()}", "client_id": CLIENT_ID}
    provider = admin.post("/api/v2/sso-providers/oidc", json=body).json()["data"]
    with httpx.Client(base_url=live_server.base_url) as browser:
        answer = browser.get(f"/api/v2/sso/{provider['slug']}/login")
    assert parse_qs(urlparse(answer.headers["Location"]).query)["error"] == ["OIDC provider discovery failed"]


def test_a_slow_provider_holds_no_database_connection(live_server: LiveServer, registered: dict,
                                                      oidc_provider: OIDCTestProvider) -> None:
    # Anonymous sign-ins against a slow provider each held a pooled connection while they waited: a few dozen
    # took the pool from everyone.
    pool = live_server.app.state.database.async_engine.pool
    oidc_provider.discovery_delay = 3.0
    try:
        with ThreadPoolExecutor(4) as waiting, httpx.Client(base_url=live_server.base_url, timeout=30) as browser:
            logins = [waiting.submit(browser.get, f"/api/v2/sso/{registered['slug']}/login") for _ in range(4)]
            time.sleep(1.5)  # all four are waiting for the provider now
            held = pool.checkedout()
            assert all(login.result().status_code == 302 for login in logins)
    finally:
        oidc_provider.discovery_delay = 0.0
    assert held == 0
