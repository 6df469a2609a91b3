"""Compressed sparse rows (an index array `first` where row r's entries sit at `first[r]:first[r + 1]`), read
for many rows at once without a Python loop: the path bound's traversal, the findings' reverse adjacency and
the membership closure all expand a frontier's rows this way."""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray


def row_positions(first: NDArray[np.integer], rows: NDArray[np.integer]) -> NDArray[np.int64]:
    """The positions `first[r]:first[r + 1]` of every row r in `rows`, concatenated in the order of `rows`."""
    lengths = first[rows + 1] - first[rows]
    total = int(lengths.sum())
    if not total:
        return np.empty(0, dtype=np.int64)
    return np.repeat(first[rows] - np.cumsum(lengths) + lengths, lengths) + np.arange(total, dtype=np.int64)
