from __future__ import annotations

from sqlalchemy import ForeignKey, Integer, LargeBinary, SmallInteger, String
from sqlalchemy.dialects.postgresql import ARRAY
from sqlalchemy.orm import Mapped, mapped_column

from houndgraph.models.base import Base, Timestamps

# Where the service-provider URLs of a provider live: version 1 is the legacy
# `/api/v1/login/saml/<name>` layout, version 2 `/api/v2/sso/<slug>` (every new provider).
ROOT_URI_VERSION_LEGACY = 1
ROOT_URI_VERSION_CURRENT = 2


class SAMLProvider(Timestamps, Base):
    """The SAML side of an SSO provider: what its identity provider's metadata said."""

    __tablename__ = "saml_providers"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    sso_provider_id: Mapped[int] = mapped_column(
        ForeignKey("sso_providers.id", ondelete="CASCADE"), nullable=False, unique=True
    )
    name: Mapped[str] = mapped_column(String, nullable=False, unique=True)
    display_name: Mapped[str] = mapped_column(String, nullable=False)
    issuer_uri: Mapped[str] = mapped_column(String, nullable=False)
    single_sign_on_uri: Mapped[str] = mapped_column(String, nullable=False)
    # Kept as uploaded: the login flow needs the IdP's certificates from it.
    metadata_xml: Mapped[bytes] = mapped_column(LargeBinary, nullable=False)
    root_uri_version: Mapped[int] = mapped_column(SmallInteger, nullable=False, default=ROOT_URI_VERSION_CURRENT)
    principal_attribute_mappings: Mapped[list[str] | None] = mapped_column(ARRAY(String))
