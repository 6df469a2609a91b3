"""The explorer is served by the API process: /ui with its SPA fallback, `/` redirecting to it, a strict CSP."""

import re

import httpx
from playwright.sync_api import Browser

from houndgraph.ui.serving import STATIC_ROOT
from tests.conftest import LiveServer
from tests.ui.browser import open_ui


def test_root_redirects_to_the_ui(client: httpx.Client) -> None:
    response = client.get("/", follow_redirects=False)
    assert response.status_code in (302, 307)
    assert response.headers["location"].endswith("/ui/")


def test_client_routes_answer_the_app_with_a_strict_csp(client: httpx.Client) -> None:
    for path in ("/ui", "/ui/", "/ui/explore", "/ui/administration/file-ingest"):
        response = client.get(path)
        assert response.status_code == 200, path
        assert response.headers["content-type"].startswith("text/html")
        assert '<div id="app">' in response.text
        csp = response.headers["content-security-policy"]
        assert "script-src 'self'" in csp and "connect-src 'self'" in csp and "frame-ancestors 'none'" in csp
        assert "unsafe-inline" not in csp and "unsafe-eval" not in csp
        assert response.headers["x-content-type-options"] == "nosniff"
        assert response.headers["cache-control"] == "no-cache"


def test_the_page_has_no_inline_script_or_style(client: httpx.Client) -> None:
    html = client.get("/ui/").text
    assert re.search(r"<script(?![^>]*\bsrc=)[^>]*>", html) is None
    assert "<style" not in html and " style=" not in html


def test_hashed_assets_are_cached_for_good_and_missing_ones_are_404(client: httpx.Client) -> None:
    html = client.get("/ui/").text
    script = re.search(r'src="(/ui/assets/[^"]+\.js)"', html)
    assert script, html
    response = client.get(script.group(1))
    assert response.status_code == 200
    assert "javascript" in response.headers["content-type"]
    assert "immutable" in response.headers["cache-control"]
    assert client.get("/ui/assets/missing-0000.js").status_code == 404


def test_no_file_outside_the_bundle_is_served(client: httpx.Client) -> None:
    for path in ("/ui/../serving.py", "/ui/%2e%2e/serving.py", "/ui/..%2fserving.py"):
        response = client.get(path)
        assert "STATIC_ROOT" not in response.text, path
    assert (STATIC_ROOT / "index.html").is_file()


def test_api_routes_are_not_shadowed_by_the_ui(live_server: LiveServer, client: httpx.Client) -> None:
    assert client.get("/api/version").status_code == 200
    response = client.get("/api/v2/no-such-route")
    # The reference's router's own 404 (clients tell "no such route" by it), not the UI's page.
    assert response.status_code == 404
    assert response.text == "404 page not found\n"


def test_the_docs_pages_render_under_their_csp(browser: Browser, live_server: LiveServer) -> None:
    # The docs pages' policy admits their inline scripts by hash: each still draws, and nothing is blocked.
    for visitor in open_ui(browser, live_server):
        visitor.goto("/api/docs")
        visitor.page.locator(".swagger-ui .info .title").wait_for()
        visitor.goto("/api/redoc")
        visitor.page.locator("h1").first.wait_for()
        # ReDoc's bundle also asks for its logo from its CDN: refused, as the policy should (and offline anyway).
        assert [error for error in visitor.take_errors() if "cdn.redoc.ly" not in error] == []
