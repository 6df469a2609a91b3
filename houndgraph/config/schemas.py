from __future__ import annotations

from datetime import datetime
from typing import Any

from pydantic import BaseModel

from houndgraph.kit.nullable import SqlNullTime
from houndgraph.models import Parameter


class ParameterView(BaseModel):
    key: str
    name: str
    description: str
    value: dict[str, Any]
    id: int
    created_at: datetime
    updated_at: datetime
    deleted_at: SqlNullTime = SqlNullTime()

    @classmethod
    def of(cls, parameter: Parameter) -> ParameterView:
        return cls(key=parameter.key, name=parameter.name, description=parameter.description,
                   value=parameter.value, id=parameter.id, created_at=parameter.created_at,
                   updated_at=parameter.updated_at)


class ParameterUpdate(BaseModel):
    key: str
    # Any JSON: the service answers a missing or ill-shaped value with the reference message.
    value: Any = None


class ParameterUpdated(BaseModel):
    key: str
    value: dict[str, Any]
