"""Whether this process can serve: the database answers, and its datapipe thread runs (one process at a
time holds the datapipe lock; the thread of every other stands ready to take over)."""

from __future__ import annotations

import asyncio
import logging

from sqlalchemy import select
from sqlalchemy.exc import SQLAlchemyError

from houndgraph.db import Database
from houndgraph.deadline import RequestDeadline
from houndgraph.models import DatapipeStatus

log = logging.getLogger(__name__)
# A load balancer's probe should hear back quickly even when the database hangs.
PROBE_SECONDS = 5


async def datapipe_state(database: Database) -> str | None:
    """The datapipe's status row, or None when the database does not answer within PROBE_SECONDS."""
    deadline = RequestDeadline(PROBE_SECONDS)
    try:
        async with asyncio.timeout(PROBE_SECONDS), database.session(deadline) as session:
            return await session.scalar(select(DatapipeStatus.status).where(DatapipeStatus.id == 1)) or "idle"
    except (SQLAlchemyError, OSError, TimeoutError) as error:
        log.warning("health probe: the database did not answer (%s)", type(error).__name__)
        return None
    finally:
        deadline.close()
