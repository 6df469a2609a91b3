"""GET /api/version and GET /api/v2/spec/openapi.yaml: what this server is and the API it serves."""

from __future__ import annotations

import yaml  # type: ignore[import-untyped]
from fastapi import Request, Response
from pydantic import BaseModel

from houndgraph import __version__
from houndgraph.kit.envelopes import DataEnvelope


class ApiVersions(BaseModel):
    current_version: str = "v2"
    deprecated_version: str = "v1"


class VersionInfo(BaseModel):
    API: ApiVersions = ApiVersions()
    server_version: str = __version__
    product_edition: str = "community"


async def get_version() -> DataEnvelope[VersionInfo]:
    return DataEnvelope(data=VersionInfo())


async def get_openapi_yaml(request: Request) -> Response:
    """This server's own OpenAPI document (the one at /api/openapi.json), as YAML."""
    document = yaml.safe_dump(request.app.openapi(), sort_keys=False, allow_unicode=True)
    return Response(document, media_type="application/yaml")
