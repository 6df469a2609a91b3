"""The collection flags and scope that events and the jobs made from them share."""

from __future__ import annotations

from typing import Any

from sqlalchemy import Boolean
from sqlalchemy.dialects.postgresql import JSONB
from sqlalchemy.orm import Mapped, mapped_column

COLLECTION_FLAGS = ("session_collection", "local_group_collection", "ad_structure_collection",
                    "cert_services_collection", "ca_registry_collection", "dc_registry_collection")
# Every boolean of a scope: the collection flags and the all-trusted-domains scope.
SCOPE_FLAGS = (*COLLECTION_FLAGS, "all_trusted_domains")


class CollectionScope:
    session_collection: Mapped[bool] = mapped_column(Boolean, nullable=False, default=False)
    local_group_collection: Mapped[bool] = mapped_column(Boolean, nullable=False, default=False)
    ad_structure_collection: Mapped[bool] = mapped_column(Boolean, nullable=False, default=False)
    cert_services_collection: Mapped[bool] = mapped_column(Boolean, nullable=False, default=False)
    ca_registry_collection: Mapped[bool] = mapped_column(Boolean, nullable=False, default=False)
    dc_registry_collection: Mapped[bool] = mapped_column(Boolean, nullable=False, default=False)
    all_trusted_domains: Mapped[bool] = mapped_column(Boolean, nullable=False, default=False)
    # Object ids of domains; distinguished names (`OU=...`) or object ids of OUs.
    ous: Mapped[list[Any]] = mapped_column(JSONB, nullable=False, default=list)
    domains: Mapped[list[Any]] = mapped_column(JSONB, nullable=False, default=list)
