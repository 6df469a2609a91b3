from __future__ import annotations

from sqlalchemy import BigInteger, Boolean, ForeignKey, Integer, String
from sqlalchemy.orm import Mapped, mapped_column

from houndgraph.models.base import Base, Timestamps

# The object kinds counted per domain, as `<name>_count` columns (reference/behaviour.md §4).
COUNTED = ("user", "group", "computer", "gpo", "ou", "container", "aiaca", "rootca", "enterpriseca",
           "ntauthstore", "certtemplate", "deleted")


class DomainCollectionResult(Timestamps, Base):
    """What a collection job brought in for one domain, recorded once its files are ingested."""

    __tablename__ = "domain_collection_results"

    id: Mapped[int] = mapped_column(BigInteger, primary_key=True)
    job_id: Mapped[int] = mapped_column(ForeignKey("client_jobs.id", ondelete="CASCADE"), nullable=False,
                                        index=True)
    domain_name: Mapped[str] = mapped_column(String, nullable=False)
    success: Mapped[bool] = mapped_column(Boolean, nullable=False)
    message: Mapped[str] = mapped_column(String, nullable=False, default="")
    user_count: Mapped[int] = mapped_column(Integer, nullable=False, default=0)
    group_count: Mapped[int] = mapped_column(Integer, nullable=False, default=0)
    computer_count: Mapped[int] = mapped_column(Integer, nullable=False, default=0)
    gpo_count: Mapped[int] = mapped_column(Integer, nullable=False, default=0)
    ou_count: Mapped[int] = mapped_column(Integer, nullable=False, default=0)
    container_count: Mapped[int] = mapped_column(Integer, nullable=False, default=0)
    aiaca_count: Mapped[int] = mapped_column(Integer, nullable=False, default=0)
    rootca_count: Mapped[int] = mapped_column(Integer, nullable=False, default=0)
    enterpriseca_count: Mapped[int] = mapped_column(Integer, nullable=False, default=0)
    ntauthstore_count: Mapped[int] = mapped_column(Integer, nullable=False, default=0)
    certtemplate_count: Mapped[int] = mapped_column(Integer, nullable=False, default=0)
    deleted_count: Mapped[int] = mapped_column(Integer, nullable=False, default=0)
