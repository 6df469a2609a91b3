"""The list and page parameters of collection jobs, declared once for the routes of jobs and of clients."""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends

from houndgraph.client_job.listing import CLIENT_JOBS, JOBS
from houndgraph.client_job.schemas import DEFAULT_LIMIT
from houndgraph.kit.pagination import Page
from houndgraph.kit.params import list_query, page_query
from houndgraph.kit.query import ListQuery

JobQuery = Annotated[ListQuery, Depends(list_query(JOBS))]
ClientJobQuery = Annotated[ListQuery, Depends(list_query(CLIENT_JOBS))]
JobPage = Annotated[Page, Depends(page_query(DEFAULT_LIMIT))]
