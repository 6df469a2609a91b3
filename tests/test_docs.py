"""The docs pages work without internet (issue #11, defect 8): every script, style and image they load
is served by the service itself."""

from __future__ import annotations

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
