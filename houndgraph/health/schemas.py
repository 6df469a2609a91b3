from __future__ import annotations

from pydantic import BaseModel


class DatapipeHealth(BaseModel):
    alive: bool
    status: str | None


class HealthView(BaseModel):
    healthy: bool
    database_reachable: bool
    datapipe: DatapipeHealth
