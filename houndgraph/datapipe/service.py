"""Datapipe requests from the API: its status, analysis requests, clear-database requests.

The work itself happens in the loop (`loop.Datapipe`); these only record what was asked, in the
request's transaction."""

from __future__ import annotations

from sqlalchemy.ext.asyncio import AsyncSession

from houndgraph.auth.context import AuthContext
from houndgraph.datapipe import request_repository
from houndgraph.datapipe.schemas import AnalysisRequestView, ClearDatabaseRequest
from houndgraph.errors import BadRequest, Conflict, InternalError, NotFound
from houndgraph.feature_flag import service as feature_flag_service
from houndgraph.feature_flag.flag_keys import FeatureFlagKey
from houndgraph.graph.kinds import ADEdge, AZEdge
from houndgraph.models import DatapipeStatus, PurgeRequest
from houndgraph.models.base import utcnow

NOTHING_TO_DELETE = "please select something to delete"
GRAPH_AND_SOURCES = "request may only specify either deleteCollectedGraphData or deleteSourceKinds, not both"
GRAPH_DELETION_DISABLED = "deleting graph data is currently disabled"
DELETION_PENDING = "analysis request of type deletion is pending and cannot be cancelled"
SOURCELESS = 0
_KNOWN_EDGE_KINDS = frozenset({*(kind.value for kind in ADEdge), *(kind.value for kind in AZEdge)})


async def status(session: AsyncSession) -> DatapipeStatus:
    row = await request_repository.status(session)
    if row is None:  # seeded by migration 0001; missing means the database was tampered with
        raise InternalError()
    return row


async def request_analysis(session: AsyncSession) -> None:
    """Idempotent: at most one request is pending; the loop runs it at its next tick."""
    await request_repository.request_analysis(session)


async def analysis_request(session: AsyncSession) -> AnalysisRequestView:
    """What the datapipe will do next: a queued deletion goes first, then a requested analysis."""
    purge = await request_repository.oldest_purge_request(session)
    if purge is not None:
        return AnalysisRequestView(requested_by=str(purge.requested_by or ""), request_type="deletion",
                                   requested_at=purge.requested_at)
    row = await status(session)
    if row.analysis_requested:
        return AnalysisRequestView(requested_by="", request_type="analysis", requested_at=row.updated_at)
    return AnalysisRequestView()


async def cancel_analysis(session: AsyncSession) -> None:
    """The reference's rules: nothing pending is a 404, a pending deletion cannot be cancelled (409)."""
    if await request_repository.oldest_purge_request(session) is not None:
        raise Conflict(DELETION_PENDING)
    if not await request_repository.cancel_analysis_request(session):
        raise NotFound()


async def clear_database(session: AsyncSession, auth: AuthContext, body: ClearDatabaseRequest) -> None:
    source_kinds = body.delete_source_kinds or []
    relationships = body.delete_relationships or []
    selectors = body.delete_asset_group_selectors or []
    if not (body.delete_collected_graph_data or source_kinds or relationships or body.delete_file_ingest_history
            or body.delete_data_quality_history or selectors):
        raise BadRequest(NOTHING_TO_DELETE)
    if body.delete_collected_graph_data and source_kinds:
        raise BadRequest(GRAPH_AND_SOURCES)
    if (body.delete_collected_graph_data or source_kinds) and not await feature_flag_service.is_enabled(
            session, FeatureFlagKey.CLEAR_GRAPH_DATA):
        raise BadRequest(GRAPH_DELETION_DISABLED)
    await request_repository.add_purge_request(session, PurgeRequest(
        requested_by=auth.user_id, requested_at=utcnow(),
        delete_all_graph=body.delete_collected_graph_data,
        delete_sourceless_graph=SOURCELESS in source_kinds,
        delete_source_kinds=await _source_kind_names(session, source_kinds),
        delete_relationships=await _checked_relationships(session, relationships),
        delete_file_ingest_history=body.delete_file_ingest_history,
        delete_data_quality_history=body.delete_data_quality_history,
        delete_asset_group_selectors=sorted(set(selectors)),
    ))


async def _source_kind_names(session: AsyncSession, ids: list[int]) -> list[str]:
    wanted = sorted({i for i in ids if i != SOURCELESS})
    names = await request_repository.source_kind_names(session, wanted)
    for source_kind_id in wanted:
        if source_kind_id not in names:
            raise BadRequest(f"failure building delete request: requested source kind id {source_kind_id} not found")
    return sorted(names.values())


async def _checked_relationships(session: AsyncSession, kinds: list[str]) -> list[str]:
    wanted = sorted(set(kinds))
    unknown = set(wanted) - _KNOWN_EDGE_KINDS
    if unknown:
        unknown -= await request_repository.known_kind_names(session, sorted(unknown))
    if unknown:
        raise BadRequest(f"failure building delete request: unknown relationship kind {sorted(unknown)[0]!r}")
    return wanted
