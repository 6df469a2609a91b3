from __future__ import annotations

from sqlalchemy import ForeignKey, Integer, Text
from sqlalchemy.orm import Mapped, mapped_column

from houndgraph.models.base import Base, Timestamps


class OIDCProvider(Timestamps, Base):
    """An OpenID Connect provider's settings: who issues the ID tokens, and our client id there."""

    __tablename__ = "oidc_providers"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    sso_provider_id: Mapped[int] = mapped_column(ForeignKey("sso_providers.id", ondelete="CASCADE"), nullable=False,
                                                 unique=True)
    client_id: Mapped[str] = mapped_column(Text, nullable=False)
    issuer: Mapped[str] = mapped_column(Text, nullable=False)
