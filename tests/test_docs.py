"""The docs pages work without internet (issue #11, defect 8): every script, style and image they load
is served by the service itself."""

from __future__ import annotations

import base64
import hashlib
import re

import httpx
import pytest


@pytest.mark.parametrize("page", ["/api/docs", "/api/redoc"])
def test_docs_pages_load_only_assets_served_here(client: httpx.Client, page: str) -> None:
    response = client.get(page)
    assert response.status_code == 200
    assert "text/html" in response.headers["content-type"]
    html = response.text
    assert "/api/openapi.json" in html
    assert not re.search(r"https?://", html), "the page refers to another host"
    assets = re.findall(r"""(?:src|href)=["']([^"']+)["']""", html)
    assert any(asset.endswith(".js") for asset in assets)
    for asset in assets:
        fetched = client.get(asset)
        assert fetched.status_code == 200, asset
        assert len(fetched.content) > 1000, asset


@pytest.mark.parametrize("page", ["/api/docs", "/api/redoc"])
def test_docs_pages_are_never_framed_and_run_only_their_own_scripts(client: httpx.Client, page: str) -> None:
    response = client.get(page)
    policy = response.headers["Content-Security-Policy"]
    assert "frame-ancestors 'none'" in policy and response.headers["X-Frame-Options"] == "DENY"
    assert "'unsafe-inline'" not in policy.split("script-src", 1)[1].split(";", 1)[0]
    inline = re.findall(r"<script>(.*?)</script>", response.text, re.DOTALL)
    for script in inline:
        digest = base64.b64encode(hashlib.sha256(script.encode()).digest()).decode()
        assert f"'sha256-{digest}'" in policy
