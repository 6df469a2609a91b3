"""The connection type every async graph function takes: the request's psycopg connection.

Requests get it from `houndgraph.db.graph_connection(session)`; it runs in the request's transaction,
under its statement timeout. The datapipe and the CLI write with a plain synchronous connection.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, TypeAlias

import psycopg

GraphConnection: TypeAlias = psycopg.AsyncConnection[Any]


def int_array(values: Iterable[int]) -> str:
    """Integers as PostgreSQL's array text (`{1,2,3}`), a parameter to cast with `::bigint[]` or `::smallint[]`:
    psycopg would send a list element by element."""
    return "{" + ",".join(map(str, values)) + "}"


def int_arrays(values: Iterable[Iterable[int]]) -> str:
    """Integer lists of any lengths as the array text of a `text[]` whose elements are `int_array` texts (each cast to
    `bigint[]` where it is read): PostgreSQL has no array of arrays of different lengths."""
    return "{" + ",".join(f'"{int_array(items)}"' for items in values) + "}"
