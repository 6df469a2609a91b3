"""The one renderer of the reference error body."""

from __future__ import annotations

from collections.abc import MutableMapping
from datetime import UTC, datetime
from typing import Any

import orjson
from pydantic import BaseModel, Field

from houndgraph.errors import ServiceError


class ErrorDetail(BaseModel):
    context: str
    message: str


class ErrorBody(BaseModel):
    """What `error_body` writes (upstream `api.error-wrapper`), declared for the OpenAPI document."""

    http_status: int = Field(ge=100, le=600)
    timestamp: str = Field(json_schema_extra={"format": "date-time"})
    request_id: str = Field(json_schema_extra={"format": "uuid"})
    errors: list[ErrorDetail]


def error_body(status: int, messages: list[str], request_id: str) -> dict[str, Any]:
    return {
        "http_status": status,
        "timestamp": datetime.now(UTC).isoformat().replace("+00:00", "Z"),
        "request_id": request_id,
        "errors": [{"context": "", "message": message} for message in messages],
    }


def render_error_bytes(scope: MutableMapping[str, Any], error: ServiceError) -> bytes:
    request_id = scope.get("state", {}).get("request_id", "")
    return orjson.dumps(error_body(int(error.status), error.messages, request_id))
