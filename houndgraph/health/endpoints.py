from __future__ import annotations

from fastapi import Request

from houndgraph.deps import DatabaseDep
from houndgraph.errors import DATABASE_UNREACHABLE, ServiceUnavailable
from houndgraph.health import service
from houndgraph.health.schemas import DatapipeHealth, HealthView
from houndgraph.kit.envelopes import DataEnvelope


async def get_health(request: Request, database: DatabaseDep) -> DataEnvelope[HealthView]:
    """200 when this process can serve; 503 (naming what is down) when its database or its datapipe is not."""
    status = await service.datapipe_state(database)
    if status is None:
        raise ServiceUnavailable(DATABASE_UNREACHABLE)
    datapipe = getattr(request.app.state, "datapipe", None)
    if datapipe is None or not datapipe.alive():
        raise ServiceUnavailable("the datapipe is not running in this process")
    return DataEnvelope(data=HealthView(healthy=True, database_reachable=True,
                                        datapipe=DatapipeHealth(alive=True, status=status)))
