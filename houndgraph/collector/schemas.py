from __future__ import annotations

from pydantic import BaseModel


class CollectorVersion(BaseModel):
    version: str
    sha256sum: str
    deprecated: bool


class CollectorManifest(BaseModel):
    """What `GET /api/v2/collectors/{type}` answers: the newest version and every one on offer."""

    latest: str
    versions: list[CollectorVersion]
