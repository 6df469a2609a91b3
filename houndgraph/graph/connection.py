"""The connection type every async graph function takes: the request's psycopg connection.

Requests get it from `houndgraph.db.graph_connection(session)`; it runs in the request's transaction,
under its statement timeout. The datapipe and the CLI write with a plain synchronous connection.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, TypeAlias

import numpy as np
import psycopg

GraphConnection: TypeAlias = psycopg.AsyncConnection[Any]

# `work_mem` raised to %(work_mem)s for the rest of the transaction when below it (never lowered): a row holding the
# setting before when it was raised, none when not.
RAISE_WORK_MEM = ("SELECT current_setting('work_mem'), set_config('work_mem', %(work_mem)s, true) "
                  "WHERE pg_size_bytes(current_setting('work_mem')) < pg_size_bytes(%(work_mem)s)")


def int_array(values: Iterable[int]) -> str:
    """Integers as PostgreSQL's array text (`{1, 2, 3}`), a parameter to cast with `::bigint[]` or `::smallint[]`:
    psycopg would send a list element by element. Written by the list's own repr, twice as fast as joining each
    number's text (a level of 16,000 node ids asked about: 0.8 ms), unless an element's repr is not its text (a
    numpy number writes `np.int64(5)`)."""
    items = values.tolist() if isinstance(values, np.ndarray) else list(values)
    text = repr(items)
    if "(" in text or "'" in text:
        text = "[" + ",".join(map(str, items)) + "]"
    return "{" + text[1:-1] + "}"


def int_arrays(values: Iterable[Iterable[int]]) -> str:
    """Integer lists of any lengths as the array text of a `text[]` whose elements are `int_array` texts (each cast to
    `bigint[]` where it is read): PostgreSQL has no array of arrays of different lengths."""
    return "{" + ",".join(f'"{int_array(items)}"' for items in values) + "}"
