"""What GET /api/v2/search and GET /api/v2/available-domains answer (built as plain dicts by the service;
declared here for the OpenAPI document)."""

from __future__ import annotations

from pydantic import BaseModel

from houndgraph.kit.envelopes import DataEnvelope
from houndgraph.kit.graph_shapes import BloodHoundGraph


class SearchResult(BaseModel):
    """Upstream `model.search-result`."""

    objectid: str
    type: str
    name: str
    distinguishedname: str
    system_tags: str


class AvailableDomain(BaseModel):
    type: str
    name: str
    id: str
    collected: bool


SearchAnswer = DataEnvelope[list[SearchResult]]
GraphSearchAnswer = DataEnvelope[BloodHoundGraph]
AvailableDomainsAnswer = DataEnvelope[list[AvailableDomain]]
