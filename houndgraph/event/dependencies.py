"""What the routes of events, clients and jobs take from the query string to show of a schedule's targets: one
declaration, used by each domain that shows them."""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends

from houndgraph.event.schemas import HYDRATE_DOMAINS, HYDRATE_OUS
from houndgraph.event.service import Hydration
from houndgraph.kit.params import flag_query


def hydration(hydrate_domains: Annotated[bool, Depends(flag_query(HYDRATE_DOMAINS, True))],
              hydrate_ous: Annotated[bool, Depends(flag_query(HYDRATE_OUS, True))]) -> Hydration:
    return Hydration(domains=hydrate_domains, ous=hydrate_ous)


HydrationDep = Annotated[Hydration, Depends(hydration)]
