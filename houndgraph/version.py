from __future__ import annotations

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
