"""The API's docs pages, Swagger UI at /api/docs and ReDoc at /api/redoc, with every asset served by the
service itself (from the fastapi-offline wheel): the machines this runs on often have no internet."""

from __future__ import annotations

import base64
import hashlib
import re
from pathlib import Path

import fastapi_offline
from fastapi import FastAPI
from fastapi.openapi.docs import get_redoc_html, get_swagger_ui_html
from fastapi.staticfiles import StaticFiles
from starlette.requests import Request
from starlette.responses import HTMLResponse

ASSETS = Path(fastapi_offline.__file__).resolve().parent / "static"
ASSETS_URL = "/api/docs-assets"
INLINE_SCRIPT = re.compile(r"<script>(.*?)</script>", re.DOTALL)


def _locked_down(page: HTMLResponse) -> HTMLResponse:
    """The page may run its own inline scripts (by their hash) and this origin's files, nothing else, and is
    never framed (a framed docs page with the user's token typed in is a clickjacking target)."""
    body = bytes(page.body).decode()
    hashes = " ".join(f"'sha256-{base64.b64encode(hashlib.sha256(script.encode()).digest()).decode()}'"
                      for script in INLINE_SCRIPT.findall(body))
    page.headers["Content-Security-Policy"] = (
        f"default-src 'self'; script-src 'self' {hashes}; style-src 'self' 'unsafe-inline'; img-src 'self' data:; "
        "worker-src 'self' blob:; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'")
    page.headers["X-Frame-Options"] = "DENY"
    return page


def install_docs(app: FastAPI, openapi_url: str) -> None:
    title = f"{app.title} API"
    app.mount(ASSETS_URL, StaticFiles(directory=ASSETS), name="docs-assets")

    async def swagger_ui(request: Request) -> HTMLResponse:
        return _locked_down(get_swagger_ui_html(
            openapi_url=openapi_url, title=title, swagger_js_url=f"{ASSETS_URL}/swagger-ui-bundle.js",
            swagger_css_url=f"{ASSETS_URL}/swagger-ui.css", swagger_favicon_url=f"{ASSETS_URL}/favicon.png",
        ))

    async def redoc(request: Request) -> HTMLResponse:
        return _locked_down(get_redoc_html(
            openapi_url=openapi_url, title=title, redoc_js_url=f"{ASSETS_URL}/redoc.standalone.js",
            redoc_favicon_url=f"{ASSETS_URL}/favicon.png", with_google_fonts=False))

    app.add_route("/api/docs", swagger_ui, include_in_schema=False)
    app.add_route("/api/redoc", redoc, include_in_schema=False)
