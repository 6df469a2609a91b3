from __future__ import annotations

import uuid

from sqlalchemy import Integer, LargeBinary, Uuid
from sqlalchemy.orm import Mapped, mapped_column

from houndgraph.models.base import Base


class UploadChunk(Base):
    """A piece of an uploaded file, kept in PostgreSQL until the datapipe has read the file (on any host)."""

    __tablename__ = "upload_chunks"

    upload_id: Mapped[uuid.UUID] = mapped_column(Uuid, primary_key=True)
    seq: Mapped[int] = mapped_column(Integer, primary_key=True)
    data: Mapped[bytes] = mapped_column(LargeBinary, nullable=False)
