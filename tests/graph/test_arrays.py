"""`graph.arrays`: numbering ids, by table where they are dense and by sorting where they are not."""

from __future__ import annotations

import numpy as np
import pytest

from houndgraph.graph.arrays import numbered


@pytest.mark.parametrize("seed", range(40))
def test_numbered_gives_the_sorted_distinct_values_and_each_columns_positions_among_them(seed: int) -> None:
    rng = np.random.default_rng(seed)
    # Dense ids (numbered by a table), sparse ones (by sorting), negative ones and empty columns.
    top = [50, 10**12, 3][seed % 3]
    low = -5 if seed % 5 == 0 else 0
    columns = [rng.integers(low, top, size=int(rng.integers(0, 200)), dtype=np.int64) for _ in range(1 + seed % 3)]
    ids, numbers = numbered(*columns)
    expected = np.unique(np.concatenate(columns)) if columns else np.zeros(0, np.int64)
    assert ids.dtype == np.int64 and ids.tolist() == expected.tolist()
    assert len(numbers) == len(columns)
    for column, positions in zip(columns, numbers, strict=True):
        assert positions.dtype == np.int32
        assert ids[positions].tolist() == column.tolist()


def test_numbered_on_either_side_of_the_table_and_with_nothing() -> None:
    # The largest value at the count minus one is numbered by table, at the count by sorting: both alike.
    dense, sparse = np.array([3, 1, 3, 0], dtype=np.int64), np.array([4, 1, 4, 0], dtype=np.int64)
    for column in (dense, sparse):
        ids, (positions,) = numbered(column)
        assert ids[positions].tolist() == column.tolist()
    assert numbered()[0].tolist() == []
