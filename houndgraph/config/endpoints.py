from __future__ import annotations

from fastapi import Request

from houndgraph.config import service
from houndgraph.config.schemas import ParameterUpdate, ParameterUpdated, ParameterView
from houndgraph.deps import SessionDep
from houndgraph.kit.envelopes import DataEnvelope
from houndgraph.kit.filters import FilterColumn, Predicate, parse_filters

PARAMETER_FILTERS = {"parameter": FilterColumn(frozenset({Predicate.EQ}))}


async def list_parameters(request: Request, session: SessionDep) -> DataEnvelope[list[ParameterView]]:
    # Only `parameter` is a filter here; other query parameters are ignored, as in the reference.
    raw = [(name, value) for name, value in request.query_params.multi_items() if name == "parameter"]
    parameters = await service.list_parameters(session, parse_filters(raw, PARAMETER_FILTERS))
    return DataEnvelope(data=[ParameterView.of(parameter) for parameter in parameters])


async def update_parameter(body: ParameterUpdate, session: SessionDep) -> DataEnvelope[ParameterUpdated]:
    value = await service.update(session, body.key, body.value)
    return DataEnvelope(data=ParameterUpdated(key=body.key, value=value))
