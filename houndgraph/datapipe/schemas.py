from __future__ import annotations

from datetime import datetime

from pydantic import BaseModel, ConfigDict, Field

from houndgraph.kit.nullable import ZERO_TIME, or_zero
from houndgraph.models import DatapipeStatus


class AnalysisRequestView(BaseModel):
    """`model.AnalysisRequest`: the pending request, or empty values (and the zero time) when there is none."""

    requested_by: str = ""
    request_type: str = ""
    requested_at: datetime = ZERO_TIME


class DatapipeStatusView(BaseModel):
    status: str
    updated_at: datetime
    # Go's zero time until the first analysis, as the reference shows it.
    last_complete_analysis_at: datetime
    last_analysis_run_at: datetime

    @classmethod
    def of(cls, row: DatapipeStatus) -> DatapipeStatusView:
        return cls(status=row.status, updated_at=row.updated_at,
                   last_complete_analysis_at=or_zero(row.last_complete_analysis_at),
                   last_analysis_run_at=or_zero(row.last_analysis_run_at))


class ClearDatabaseRequest(BaseModel):
    """The body of `POST /api/v2/clear-database`, with the reference's camelCase names. Strict, as Go's
    decoder is: `"true"` is not a boolean."""

    model_config = ConfigDict(strict=True, populate_by_name=True)

    delete_collected_graph_data: bool = Field(False, alias="deleteCollectedGraphData")
    # Source kind ids; 0 means nodes of no source kind ("sourceless").
    delete_source_kinds: list[int] | None = Field(None, alias="deleteSourceKinds")
    delete_relationships: list[str] | None = Field(None, alias="deleteRelationships")
    delete_file_ingest_history: bool = Field(False, alias="deleteFileIngestHistory")
    delete_data_quality_history: bool = Field(False, alias="deleteDataQualityHistory")
    delete_asset_group_selectors: list[int] | None = Field(None, alias="deleteAssetGroupSelectors")
