"""Signed requests built from the documented chain, independently of the service's own code:
k1 = HMAC(key as its base64 string, METHOD + path-with-query); k2 = HMAC(k1, RequestDate[:13]);
signature = base64(HMAC(k2, body))."""

from __future__ import annotations

import base64
import hashlib
import hmac
from datetime import UTC, datetime


def sign(key: str, method: str, uri: str, request_date: str, body: bytes = b"") -> str:
    k1 = hmac.new(key.encode(), f"{method}{uri}".encode(), hashlib.sha256).digest()
    k2 = hmac.new(k1, request_date[:13].encode(), hashlib.sha256).digest()
    return base64.b64encode(hmac.new(k2, body, hashlib.sha256).digest()).decode()


def signed_headers(token_id: str, key: str, method: str, uri: str, body: bytes = b"",
                   when: datetime | None = None) -> dict[str, str]:
    request_date = (when or datetime.now(UTC)).isoformat()
    return {
        "Authorization": f"bhesignature {token_id}",
        "RequestDate": request_date,
        "Signature": sign(key, method, uri, request_date, body),
    }
