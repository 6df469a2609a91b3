"""The history of privilege zones: who changed which tag, selector or certification, and when."""

from __future__ import annotations

from sqlalchemy.ext.asyncio import AsyncSession

from houndgraph.asset_group_tag import repository as repo
from houndgraph.auth.context import AuthContext
from houndgraph.models import AssetGroupHistory
from houndgraph.models.base import utcnow

# The reference's action names.
CREATE_TAG, UPDATE_TAG, DELETE_TAG = "CreateTag", "UpdateTag", "DeleteTag"
CREATE_SELECTOR, UPDATE_SELECTOR, DELETE_SELECTOR = "CreateSelector", "UpdateSelector", "DeleteSelector"
CERTIFY_MANUAL, CERTIFY_REVOKED = "CertifyNodeManual", "CertifyNodeRevoked"


async def record(session: AsyncSession, auth: AuthContext, action: str, tag_id: int, target: str, *,
                 environment_id: str = "", note: str = "") -> None:
    emails = await repo.user_emails(session, [str(auth.user_id)])
    session.add(AssetGroupHistory(actor=str(auth.user_id), email=emails.get(str(auth.user_id)), action=action,
                                  target=target, asset_group_tag_id=tag_id, environment_id=environment_id,
                                  note=note, created_at=utcnow()))
    await session.flush()
