"""Success envelopes: `{data}`, `{count, skip, limit, data}` and the time-windowed list."""

from __future__ import annotations

from datetime import datetime
from typing import Generic, TypeVar

from pydantic import BaseModel, Field

T = TypeVar("T")


class DataEnvelope(BaseModel, Generic[T]):
    data: T


class PageEnvelope(BaseModel, Generic[T]):
    count: int = Field(ge=0)
    skip: int = Field(ge=0)
    limit: int = Field(ge=0)
    data: T


class WindowEnvelope(PageEnvelope[T], Generic[T]):
    start: datetime
    end: datetime
