"""GET /api/v2/search, GET /api/v2/graph-search and GET /api/v2/available-domains."""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Query, Response

from houndgraph.deps import SessionDep
from houndgraph.kit.answers import answers
from houndgraph.kit.pagination import Page
from houndgraph.kit.params import list_query, page_query, required_query
from houndgraph.kit.query import ListQuery
from houndgraph.kit.responses import JSONResponse
from houndgraph.search import service
from houndgraph.search.listing import DOMAINS
from houndgraph.search.schemas import AvailableDomainsAnswer, GraphSearchAnswer, SearchAnswer


def _node_types(
    types: Annotated[list[str], Query(alias="type", description="Node kinds to search (AD or Azure).")] = [],  # noqa: B006
) -> list[str]:
    return service.check_node_types(types)


SearchText = Annotated[str, Depends(required_query("q", service.MISSING_QUERY))]
NodeTypes = Annotated[list[str], Depends(_node_types)]
SearchPage = Annotated[Page, Depends(page_query(service.SEARCH_DEFAULT_LIMIT))]
GraphSearchText = Annotated[str, Depends(required_query("query", service.MISSING_GRAPH_QUERY))]
SearchType = Annotated[str | None, Query(alias="type", description="fuzzy (default) or exact")]
DomainQuery = Annotated[ListQuery, Depends(list_query(DOMAINS))]


@answers(SearchAnswer)
async def search(q: SearchText, types: NodeTypes, page: SearchPage, session: SessionDep) -> Response:
    return JSONResponse({"data": await service.search(session, q, types, page)})


@answers(AvailableDomainsAnswer)
async def get_available_domains(query: DomainQuery, session: SessionDep) -> Response:
    return JSONResponse({"data": await service.available_domains(session, query)})


@answers(GraphSearchAnswer)
async def graph_search(query: GraphSearchText, session: SessionDep, search_type: SearchType = None) -> Response:
    exact = service.check_search_type(search_type)
    return JSONResponse({"data": await service.graph_search(session, query, exact)})
