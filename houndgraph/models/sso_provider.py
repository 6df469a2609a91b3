from __future__ import annotations

from typing import Any

from sqlalchemy import CheckConstraint, Integer, String
from sqlalchemy.dialects.postgresql import JSONB
from sqlalchemy.orm import Mapped, mapped_column, relationship

from houndgraph.models.base import Base, Timestamps
from houndgraph.models.oidc_provider import OIDCProvider
from houndgraph.models.saml_provider import SAMLProvider

SSO_TYPE_SAML = "saml"
SSO_TYPE_OIDC = "oidc"


class SSOProvider(Timestamps, Base):
    """A single sign-on provider as users see it (name, slug of its login URLs); the protocol's own
    settings live in the matching `saml_providers` row."""

    __tablename__ = "sso_providers"
    __table_args__ = (CheckConstraint("type IN ('saml', 'oidc')", name="known_type"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    name: Mapped[str] = mapped_column(String, nullable=False, unique=True)
    slug: Mapped[str] = mapped_column(String, nullable=False, unique=True)
    type: Mapped[str] = mapped_column(String(16), nullable=False)
    # {"auto_provision": {"enabled": bool, "default_role_id": int, "role_provision": bool}}
    config: Mapped[dict[str, Any]] = mapped_column(JSONB, nullable=False, default=dict)
    saml_provider: Mapped[SAMLProvider | None] = relationship(lazy="selectin", uselist=False,
                                                              passive_deletes=True)
    oidc_provider: Mapped[OIDCProvider | None] = relationship(lazy="selectin", uselist=False,
                                                              passive_deletes=True)
