"""OpenID Connect sign-in (authorization code flow with PKCE): the redirect to the provider, and the check of
what comes back. The provider's endpoints and keys come from its discovery document; the ID token must be
signed by one of its keys, issued by it, for our client id, and carry the nonce we sent. Between the two
legs the state, nonce and PKCE verifier travel in a short-lived cookie signed with the server's key, so no
process keeps them."""

from __future__ import annotations

import base64
import hashlib
import logging
import secrets
import ssl
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from functools import cache
from typing import Any
from urllib.parse import urlencode

import httpx
import jwt

from houndgraph.errors import BadRequest
from houndgraph.sso.metadata import is_web_url

log = logging.getLogger(__name__)

DISCOVERY_FAILED = "OIDC provider discovery failed"
STATE_COOKIE = "oidc_state"
STATE_LIFETIME = timedelta(minutes=10)
SCOPES = "openid profile email"
TIMEOUT = 10.0


@cache
def _tls() -> ssl.SSLContext:
    """The CA bundle, read once: httpx reads it for every client it makes (about 40 ms of CPU a sign-in)."""
    return httpx.create_ssl_context()


@dataclass(frozen=True)
class Discovery:
    issuer: str
    authorization_endpoint: str
    token_endpoint: str
    jwks_uri: str


@dataclass(frozen=True)
class Identity:
    principal: str
    given_name: str | None
    family_name: str | None


async def discover(issuer: str) -> Discovery:
    """The provider's endpoints. A failure says no more than that it failed: the kind of error (refused,
    timed out, not JSON) would tell whoever may name an issuer which ports answer where the service runs."""
    url = f"{issuer.rstrip('/')}/.well-known/openid-configuration"
    try:
        async with httpx.AsyncClient(timeout=TIMEOUT, verify=_tls()) as http:
            document = (await http.get(url)).raise_for_status().json()
        discovery = Discovery(document["issuer"], document["authorization_endpoint"], document["token_endpoint"],
                              document["jwks_uri"])
    except (httpx.HTTPError, KeyError, TypeError, ValueError) as error:
        log.info("OIDC discovery at %s failed: %s", url, type(error).__name__)
        raise BadRequest(DISCOVERY_FAILED) from None
    endpoints = (discovery.authorization_endpoint, discovery.token_endpoint, discovery.jwks_uri)
    if not all(isinstance(endpoint, str) and is_web_url(endpoint) for endpoint in endpoints):
        # The browser is sent to the authorization endpoint: a `javascript:` one would run in our origin.
        log.info("OIDC discovery at %s names an endpoint that is not an http(s) URL", url)
        raise BadRequest(DISCOVERY_FAILED)
    return discovery


def start(discovery: Discovery, client_id: str, redirect_uri: str, slug: str, signing_key: bytes
          ) -> tuple[str, str]:
    """(the provider's authorization URL, the signed state cookie)."""
    state, nonce, verifier = secrets.token_urlsafe(24), secrets.token_urlsafe(24), secrets.token_urlsafe(48)
    challenge = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).rstrip(b"=").decode()
    query = urlencode({"response_type": "code", "client_id": client_id, "redirect_uri": redirect_uri,
                       "scope": SCOPES, "state": state, "nonce": nonce, "code_challenge": challenge,
                       "code_challenge_method": "S256"})
    cookie = jwt.encode({"slug": slug, "state": state, "nonce": nonce, "verifier": verifier,
                         "exp": datetime.now(UTC) + STATE_LIFETIME}, signing_key, algorithm="HS256")
    return f"{discovery.authorization_endpoint}?{query}", cookie


def _pending(cookie: str | None, slug: str, state: str, signing_key: bytes) -> dict[str, Any]:
    try:
        pending: dict[str, Any] = jwt.decode(cookie or "", signing_key, algorithms=["HS256"])
    except jwt.PyJWTError:
        raise BadRequest("OIDC sign-in expired or was not started here") from None
    if pending.get("slug") != slug or not secrets.compare_digest(str(pending.get("state")), state):
        raise BadRequest("OIDC state does not match")
    return pending


async def finish(discovery: Discovery, client_id: str, redirect_uri: str, slug: str, code: str, state: str,
                 cookie: str | None, signing_key: bytes) -> Identity:
    pending = _pending(cookie, slug, state, signing_key)
    form = {"grant_type": "authorization_code", "code": code, "redirect_uri": redirect_uri, "client_id": client_id,
            "code_verifier": pending["verifier"]}
    try:
        async with httpx.AsyncClient(timeout=TIMEOUT, verify=_tls()) as http:
            tokens = (await http.post(discovery.token_endpoint, data=form)).raise_for_status().json()
            keys = jwt.PyJWKSet.from_dict((await http.get(discovery.jwks_uri)).raise_for_status().json())
        id_token = tokens["id_token"]
        key_id = jwt.get_unverified_header(id_token).get("kid")
        key = next(k for k in keys.keys if key_id is None or k.key_id == key_id)
        claims = jwt.decode(id_token, key.key, algorithms=["RS256", "ES256"], audience=client_id,
                            issuer=discovery.issuer)
    except (httpx.HTTPError, KeyError, ValueError, StopIteration, jwt.PyJWTError) as error:
        raise BadRequest(f"OIDC ID token refused: {type(error).__name__}") from None
    if not secrets.compare_digest(str(claims.get("nonce")), pending["nonce"]):
        raise BadRequest("OIDC ID token refused: nonce does not match")
    principal = claims.get("email")
    if not isinstance(principal, str) or not principal:
        raise BadRequest("OIDC ID token does not name the user")
    # The e-mail address names the account: one the provider says it has not verified could be anyone's.
    if "email_verified" in claims and claims["email_verified"] not in (True, "true"):
        raise BadRequest("OIDC ID token names an e-mail address the provider has not verified")
    return Identity(principal, claims.get("given_name"), claims.get("family_name"))
