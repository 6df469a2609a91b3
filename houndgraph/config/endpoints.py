from __future__ import annotations

from typing import Annotated

from fastapi import Query, Request

from houndgraph.auth.dependencies import generation_cached
from houndgraph.config import service
from houndgraph.config.schemas import ParameterUpdate, ParameterUpdated, ParameterView
from houndgraph.deps import SessionDep
from houndgraph.kit.envelopes import DataEnvelope
from houndgraph.kit.filters import FilterColumn, Predicate, parse_filters

PARAMETER_FILTERS = {"parameter": FilterColumn(frozenset({Predicate.EQ}))}


ParameterFilter = Annotated[list[str], Query(description="`eq:<key>`: only that parameter.")]


async def list_parameters(request: Request, session: SessionDep, parameter: ParameterFilter = []  # noqa: B006
                          ) -> DataEnvelope[list[ParameterView]]:
    # Only `parameter` is a filter here; other query parameters are ignored, as in the reference.
    raw = [("parameter", value) for value in parameter]
    filters = parse_filters(raw, PARAMETER_FILTERS)

    async def listed() -> DataEnvelope[list[ParameterView]]:
        parameters = await service.list_parameters(session, filters)
        return DataEnvelope(data=[ParameterView.of(parameter) for parameter in parameters])

    # Every change of a parameter moves the cache generation (migration 0017).
    return await generation_cached(request, session, listed)


async def update_parameter(body: ParameterUpdate, session: SessionDep) -> DataEnvelope[ParameterUpdated]:
    value = await service.update(session, body.key, body.value)
    return DataEnvelope(data=ParameterUpdated(key=body.key, value=value))
