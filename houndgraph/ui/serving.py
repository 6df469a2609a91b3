"""Serves the built explorer at /ui: files of the bundle, index.html for client-side routes, `/` -> `/ui/`.

The bundle only calls /api/v2 with a Bearer token, so these routes need no authentication; they carry a strict
Content-Security-Policy (no inline script or style, connections to this origin only) and may not be framed.
"""

from __future__ import annotations

from pathlib import Path

from starlette.requests import Request
from starlette.responses import FileResponse, PlainTextResponse, RedirectResponse, Response
from starlette.routing import Route, Router

STATIC_ROOT = Path(__file__).resolve().parent / "static"
UI_PREFIX = "/ui"
# Vite names every file under assets/ after a hash of its content: such a URL never changes meaning.
HASHED_ASSETS = "assets/"

CONTENT_SECURITY_POLICY = "; ".join((
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self'",
    # Node pictograms are SVG data URLs; PNG export goes through a blob URL.
    "img-src 'self' data: blob:",
    "font-src 'self'",
    "connect-src 'self'",
    "manifest-src 'self'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
))

SECURITY_HEADERS = {
    "Content-Security-Policy": CONTENT_SECURITY_POLICY,
    "X-Content-Type-Options": "nosniff",
    "X-Frame-Options": "DENY",
    "Referrer-Policy": "no-referrer",
    "Cross-Origin-Opener-Policy": "same-origin",
    "Cross-Origin-Resource-Policy": "same-origin",
}
IMMUTABLE = "public, max-age=31536000, immutable"
REVALIDATE = "no-cache"


def _file_under_root(root: Path, relative: str) -> Path | None:
    candidate = (root / relative).resolve()
    if candidate != root and root in candidate.parents and candidate.is_file():
        return candidate
    return None


def _with_headers(response: Response, cache_control: str) -> Response:
    response.headers.update(SECURITY_HEADERS)
    response.headers["Cache-Control"] = cache_control
    return response


def ui_routes(root: Path = STATIC_ROOT) -> list[Route]:
    root = root.resolve()
    index = root / "index.html"

    async def redirect_to_ui(request: Request) -> Response:
        return RedirectResponse(f"{UI_PREFIX}/", status_code=307)

    async def serve(request: Request) -> Response:
        relative = request.path_params.get("path", "")
        found = _file_under_root(root, relative) if relative else None
        if found is not None:
            immutable = relative.startswith(HASHED_ASSETS)
            return _with_headers(FileResponse(found), IMMUTABLE if immutable else REVALIDATE)
        if relative.startswith(HASHED_ASSETS) or "." in relative.rsplit("/", 1)[-1]:
            # A missing file is a 404, not the app: a stale tab must not parse index.html as a script.
            return _with_headers(PlainTextResponse("not found", status_code=404), REVALIDATE)
        if not index.is_file():
            return _with_headers(PlainTextResponse("the web UI is not built: run `make web`", status_code=404),
                                 REVALIDATE)
        return _with_headers(FileResponse(index, media_type="text/html"), REVALIDATE)

    return [
        Route("/", redirect_to_ui, methods=["GET", "HEAD"]),
        Route(UI_PREFIX, serve, methods=["GET", "HEAD"]),
        Route(UI_PREFIX + "/{path:path}", serve, methods=["GET", "HEAD"]),
    ]


def mount_ui(router: Router, root: Path = STATIC_ROOT) -> None:
    """Add the UI's routes to the app's router (after the API's, which they never shadow)."""
    router.routes.extend(ui_routes(root))
