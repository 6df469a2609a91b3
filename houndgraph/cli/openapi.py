from __future__ import annotations

import json
import tempfile
from pathlib import Path

import typer

from houndgraph.app import create_app
from houndgraph.settings import Settings


def openapi_document() -> dict[str, object]:
    """The service's OpenAPI document, as GET /api/openapi.json serves it (no database needed to describe it)."""
    with tempfile.TemporaryDirectory() as data_dir:
        document: dict[str, object] = create_app(Settings(data_dir=Path(data_dir))).openapi()
    return document


def openapi() -> None:
    """Print the OpenAPI document of this version (the web UI's wire types are generated from it)."""
    typer.echo(json.dumps(openapi_document(), indent=1, sort_keys=True))
