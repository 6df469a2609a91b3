"""`graph.connection.int_array`: integers as PostgreSQL's array text, whatever holds them, read back the same."""

from __future__ import annotations

import random
from typing import Any

import numpy as np
import psycopg

from houndgraph.graph.connection import int_array, int_arrays


def test_integers_read_back_as_they_were_sent(raw_conn: psycopg.Connection) -> None:
    rng = random.Random(3)
    for _ in range(50):
        numbers = [rng.randint(-(2**63), 2**63 - 1) for _ in range(rng.randint(0, 40))]
        small = [n % 2**31 for n in numbers]  # what an int32 array holds
        sent: Any
        expected: list[int]
        sent, expected = rng.choice([(numbers, numbers), (tuple(numbers), numbers), (iter(numbers), numbers),
                                     (np.array(numbers, dtype=np.int64), numbers),
                                     ([np.int64(n) for n in numbers], numbers),
                                     ([np.int32(n) for n in small], small)])
        (found,) = raw_conn.execute("SELECT %s::bigint[]", (int_array(sent),)).fetchone()  # type: ignore[misc]
        assert found == expected
    lists = [[1, 2], [], [-3]]
    (found,) = raw_conn.execute(  # type: ignore[misc]
        "SELECT array_agg(cardinality(item::bigint[])) FROM unnest(%s::text[]) AS item", (int_arrays(lists),)
    ).fetchone()
    assert found == [2, 0, 1]
