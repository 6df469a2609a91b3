from __future__ import annotations

from fastapi import Response

from houndgraph.auth.dependencies import CurrentAuth
from houndgraph.datapipe import service
from houndgraph.datapipe.schemas import AnalysisRequestView, ClearDatabaseRequest, DatapipeStatusView
from houndgraph.deps import SessionDep
from houndgraph.kit.answers import answers_nothing
from houndgraph.kit.envelopes import DataEnvelope


async def get_datapipe_status(session: SessionDep) -> DataEnvelope[DatapipeStatusView]:
    return DataEnvelope(data=DatapipeStatusView.of(await service.status(session)))


@answers_nothing
async def request_analysis(session: SessionDep) -> Response:
    await service.request_analysis(session)
    return Response(status_code=202)


async def get_analysis_request(session: SessionDep) -> DataEnvelope[AnalysisRequestView]:
    return DataEnvelope(data=await service.analysis_request(session))


@answers_nothing
async def cancel_analysis_request(session: SessionDep) -> Response:
    await service.cancel_analysis(session)
    return Response(status_code=202)


async def clear_database(body: ClearDatabaseRequest, auth: CurrentAuth, session: SessionDep) -> Response:
    await service.clear_database(session, auth, body)
    return Response(status_code=204)
