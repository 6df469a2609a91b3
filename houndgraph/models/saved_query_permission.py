from __future__ import annotations

import uuid

from sqlalchemy import BigInteger, Boolean, CheckConstraint, ForeignKey, Index, UniqueConstraint, text
from sqlalchemy.orm import Mapped, mapped_column

from houndgraph.models.base import Base, Timestamps


class SavedQueryPermission(Timestamps, Base):
    """Who else may read a saved query: one row per user it is shared with, or one `public` row."""

    __tablename__ = "saved_queries_permissions"
    __table_args__ = (
        UniqueConstraint("query_id", "shared_to_user_id"),
        # A row is either a share to one user or the public flag, never both.
        CheckConstraint("public = (shared_to_user_id IS NULL)", name="share_or_public"),
        # NULLs are distinct in the unique constraint above: this keeps one public row per query.
        Index("uq_saved_queries_permissions_public", "query_id", unique=True, postgresql_where=text("public")),
    )

    id: Mapped[int] = mapped_column(BigInteger, primary_key=True)
    query_id: Mapped[int] = mapped_column(
        ForeignKey("saved_queries.id", ondelete="CASCADE"), nullable=False, index=True
    )
    shared_to_user_id: Mapped[uuid.UUID | None] = mapped_column(
        ForeignKey("users.id", ondelete="CASCADE"), index=True
    )
    public: Mapped[bool] = mapped_column(Boolean, nullable=False, default=False)
