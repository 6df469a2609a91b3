from __future__ import annotations

import uuid
from datetime import datetime

from sqlalchemy import DateTime, ForeignKey, Integer, String
from sqlalchemy.orm import Mapped, mapped_column

from houndgraph.models.base import Base, Timestamps
from houndgraph.models.collection import CollectionScope


class ClientEvent(CollectionScope, Timestamps, Base):
    """A schedule: an RFC 5545 recurrence rule whose occurrences the scheduler turns into jobs."""

    __tablename__ = "client_events"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    client_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("clients.id", ondelete="CASCADE"), nullable=False,
                                                 index=True)
    rrule: Mapped[str] = mapped_column(String, nullable=False)
    # Null once the rule has no occurrence left.
    next_scheduled_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), index=True)
    deleted_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
