"""GET /api/version, GET /api/v2/spec and /api/v2/spec/openapi.yaml: what this server is and the API it serves."""

from __future__ import annotations

from typing import Any

import yaml  # type: ignore[import-untyped]
from fastapi import Request, Response
from fastapi.concurrency import run_in_threadpool
from pydantic import BaseModel, ConfigDict, Field

from houndgraph import __version__
from houndgraph.kit.answers import answers, answers_file
from houndgraph.kit.envelopes import DataEnvelope
from houndgraph.kit.responses import JSONResponse


class ApiVersions(BaseModel):
    current_version: str = "v2"
    deprecated_version: str = "v1"


class VersionInfo(BaseModel):
    API: ApiVersions = ApiVersions()
    server_version: str = __version__
    product_edition: str = "community"


async def get_version() -> DataEnvelope[VersionInfo]:
    return DataEnvelope(data=VersionInfo())


# libyaml's dumper when the wheel has it: the pure-Python one takes seconds over 200+ operations.
_DUMPER = getattr(yaml, "CSafeDumper", yaml.SafeDumper)


def _as_yaml(document: dict[str, Any]) -> str:
    return yaml.dump(document, Dumper=_DUMPER, sort_keys=False, allow_unicode=True)


@answers_file("application/yaml", schema={"type": "object", "description": "This OpenAPI document."})
async def get_openapi_yaml(request: Request) -> Response:
    """This server's own OpenAPI document (the one at /api/openapi.json), as YAML: written once per process,
    off the event loop, then served from memory (the document does not change while the process runs)."""
    state = request.app.state
    document: str | None = getattr(state, "openapi_yaml", None)
    if document is None:
        document = await run_in_threadpool(_as_yaml, request.app.openapi())
        state.openapi_yaml = document
    return Response(document, media_type="application/yaml")


class OpenApiDocument(BaseModel):
    """An OpenAPI 3 document: the fixed fields a reader relies on, every other field kept as it is."""

    model_config = ConfigDict(extra="allow")

    openapi: str = Field(description="The OpenAPI version the document follows.")
    info: dict[str, Any]
    paths: dict[str, dict[str, Any]]
    components: dict[str, Any] = {}


@answers(OpenApiDocument)
async def get_openapi_json(request: Request) -> Response:
    """The OpenAPI document as JSON, where the reference serves its own (its UI's API Explorer loads it)."""
    return JSONResponse(request.app.openapi())
