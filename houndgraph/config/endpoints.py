from __future__ import annotations

from typing import Annotated

from fastapi import Query

from houndgraph.config import service
from houndgraph.config.schemas import ParameterUpdate, ParameterUpdated, ParameterView
from houndgraph.deps import SessionDep
from houndgraph.kit.envelopes import DataEnvelope
from houndgraph.kit.filters import FilterColumn, Predicate, parse_filters

PARAMETER_FILTERS = {"parameter": FilterColumn(frozenset({Predicate.EQ}))}


ParameterFilter = Annotated[list[str], Query(description="`eq:<key>`: only that parameter.")]


async def list_parameters(session: SessionDep, parameter: ParameterFilter = []  # noqa: B006
                          ) -> DataEnvelope[list[ParameterView]]:
    # Only `parameter` is a filter here; other query parameters are ignored, as in the reference.
    raw = [("parameter", value) for value in parameter]
    parameters = await service.list_parameters(session, parse_filters(raw, PARAMETER_FILTERS))
    return DataEnvelope(data=[ParameterView.of(parameter) for parameter in parameters])


async def update_parameter(body: ParameterUpdate, session: SessionDep) -> DataEnvelope[ParameterUpdated]:
    value = await service.update(session, body.key, body.value)
    return DataEnvelope(data=ParameterUpdated(key=body.key, value=value))
