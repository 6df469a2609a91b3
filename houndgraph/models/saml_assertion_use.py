from __future__ import annotations

from datetime import datetime

from sqlalchemy import DateTime, Text
from sqlalchemy.orm import Mapped, mapped_column

from houndgraph.models.base import Base


class SAMLAssertionUse(Base):
    """A SAML assertion that signed someone in, kept until it expires: the same assertion posted again (a replay
    of a captured SAMLResponse) finds its id here and is refused, whichever process receives it."""

    __tablename__ = "saml_assertion_uses"

    assertion_id: Mapped[str] = mapped_column(Text, primary_key=True)
    expires_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), nullable=False, index=True)
