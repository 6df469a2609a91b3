from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Query
from pydantic import BaseModel, SerializeAsAny

from houndgraph.data_quality import service
from houndgraph.data_quality.schemas import (
    DEFAULT_WINDOW_DAYS,
    SORT_COLUMNS,
    ADDataQualityAggregation,
    ADDataQualityStat,
    AzureDataQualityAggregation,
    AzureDataQualityStat,
    Completeness,
    Platform,
)
from houndgraph.deps import SessionDep
from houndgraph.kit.envelopes import DataEnvelope, WindowEnvelope
from houndgraph.kit.params import LimitText, SkipText

# The platform route answers AD or Azure rows: serialize each row as what it is, not as the declared base.
Row = SerializeAsAny[BaseModel]


SortBy = Annotated[list[str], Query(description=f"Sortable columns are {', '.join(SORT_COLUMNS)}; "
                                               "prefix with - for descending (default -created_at).")]
TimeText = Annotated[str | None, Query(description="RFC 3339 time; the window defaults to the last "
                                                   f"{DEFAULT_WINDOW_DAYS} days.")]


def _platform(platform_id: str) -> Platform:
    return service.parse_platform(platform_id)


def _window(sort_by: SortBy = [], start: TimeText = None, end: TimeText = None,  # noqa: B006
            skip: SkipText = None, limit: LimitText = None) -> service.Window:
    return service.parse_window(sort_by, start, end, skip, limit)


# The platform is checked before the window, as the reference does.
PlatformDep = Annotated[Platform, Depends(_platform)]
WindowDep = Annotated[service.Window, Depends(_window)]


def _envelope(rows: list[Row], count: int, window: service.Window) -> WindowEnvelope[list[Row]]:
    return WindowEnvelope(count=count, skip=window.skip, limit=window.limit, start=window.start, end=window.end,
                          data=rows)


async def list_platform_stats(platform: PlatformDep, window: WindowDep,
                              session: SessionDep) -> WindowEnvelope[list[Row]]:
    rows, count = await service.list_stats(session, platform.value, None, window)
    model = ADDataQualityAggregation if platform is Platform.AD else AzureDataQualityAggregation
    return _envelope([model.of(row) for row in rows], count, window)


async def list_domain_stats(domain_id: str, window: WindowDep, session: SessionDep) -> WindowEnvelope[list[Row]]:
    rows, count = await service.list_stats(session, "ad_domain", domain_id, window)
    return _envelope([ADDataQualityStat.of(row) for row in rows], count, window)


async def list_tenant_stats(tenant_id: str, window: WindowDep, session: SessionDep) -> WindowEnvelope[list[Row]]:
    rows, count = await service.list_stats(session, "azure_tenant", tenant_id, window)
    return _envelope([AzureDataQualityStat.of(row) for row in rows], count, window)


async def get_completeness(session: SessionDep) -> DataEnvelope[Completeness]:
    return DataEnvelope(data=await service.completeness(session))
