from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Response

from houndgraph.auth.dependencies import CurrentAuth
from houndgraph.deps import SessionDep
from houndgraph.kit.answers import answers_nothing
from houndgraph.kit.envelopes import DataEnvelope
from houndgraph.kit.ids import parse_uuid
from houndgraph.kit.params import list_query
from houndgraph.kit.query import ListQuery
from houndgraph.token import service as token_service
from houndgraph.token.listing import TOKENS
from houndgraph.token.schemas import (
    NewTokenView,
    TokenCreate,
    TokenList,
    TokenView,
)

TokenQuery = Annotated[ListQuery, Depends(list_query(TOKENS))]


async def create_token(body: TokenCreate, auth: CurrentAuth, session: SessionDep) -> DataEnvelope[NewTokenView]:
    token = await token_service.create(session, auth, body.token_name, body.user_id)
    return DataEnvelope(data=NewTokenView.of(token))


async def list_tokens(auth: CurrentAuth, query: TokenQuery, session: SessionDep) -> DataEnvelope[TokenList]:
    tokens = await token_service.list_tokens(session, auth, query.filters, query.sort)
    return DataEnvelope(data=TokenList(tokens=[TokenView.of(token) for token in tokens]))


@answers_nothing
async def delete_token(token_id: str, auth: CurrentAuth, session: SessionDep) -> Response:
    await token_service.delete(session, auth, parse_uuid(token_id))
    # The reference answers 200 with no body (upstream spec: `no-content`).
    return Response(status_code=200, media_type="text/plain")
