from __future__ import annotations

from fastapi import Query
from pydantic import BaseModel, SerializeAsAny

from houndgraph.data_quality import service
from houndgraph.data_quality.schemas import (
    ADDataQualityAggregation,
    ADDataQualityStat,
    AzureDataQualityAggregation,
    AzureDataQualityStat,
    Completeness,
    Platform,
)
from houndgraph.deps import SessionDep
from houndgraph.kit.envelopes import DataEnvelope, WindowEnvelope

# The platform route answers AD or Azure rows: serialize each row as what it is, not as the declared base.
Row = SerializeAsAny[BaseModel]


def _envelope(rows: list[Row], count: int, window: service.Window) -> WindowEnvelope[list[Row]]:
    return WindowEnvelope(count=count, skip=window.skip, limit=window.limit, start=window.start, end=window.end,
                          data=rows)


async def list_platform_stats(
    platform_id: str, session: SessionDep, sort_by: list[str] = Query(default=[]), start: str | None = None,
    end: str | None = None, skip: str | None = None, limit: str | None = None,
) -> WindowEnvelope[list[Row]]:
    platform = service.parse_platform(platform_id)
    window = service.parse_window(sort_by, start, end, skip, limit)
    rows, count = await service.list_stats(session, platform.value, None, window)
    model = ADDataQualityAggregation if platform is Platform.AD else AzureDataQualityAggregation
    return _envelope([model.of(row) for row in rows], count, window)


async def list_domain_stats(
    domain_id: str, session: SessionDep, sort_by: list[str] = Query(default=[]), start: str | None = None,
    end: str | None = None, skip: str | None = None, limit: str | None = None,
) -> WindowEnvelope[list[Row]]:
    window = service.parse_window(sort_by, start, end, skip, limit)
    rows, count = await service.list_stats(session, "ad_domain", domain_id, window)
    return _envelope([ADDataQualityStat.of(row) for row in rows], count, window)


async def list_tenant_stats(
    tenant_id: str, session: SessionDep, sort_by: list[str] = Query(default=[]), start: str | None = None,
    end: str | None = None, skip: str | None = None, limit: str | None = None,
) -> WindowEnvelope[list[Row]]:
    window = service.parse_window(sort_by, start, end, skip, limit)
    rows, count = await service.list_stats(session, "azure_tenant", tenant_id, window)
    return _envelope([AzureDataQualityStat.of(row) for row in rows], count, window)


async def get_completeness(session: SessionDep) -> DataEnvelope[Completeness]:
    return DataEnvelope(data=await service.completeness(session))
