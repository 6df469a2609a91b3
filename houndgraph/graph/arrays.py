"""Compressed sparse rows (an index array `first` where row r's entries sit at `first[r]:first[r + 1]`), read
for many rows at once without a Python loop: the path bound's traversal, the findings' reverse adjacency and
the membership closure all expand a frontier's rows this way."""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray


def row_positions(first: NDArray[np.integer], rows: NDArray[np.integer]) -> NDArray[np.int64]:
    """The positions `first[r]:first[r + 1]` of every row r in `rows`, concatenated in the order of `rows`. `first`
    may be unsigned (the path copy's offsets): its values are taken as int64 before they are subtracted."""
    starts = first[rows].astype(np.int64, copy=False)
    lengths = first[rows + 1].astype(np.int64, copy=False) - starts
    total = int(lengths.sum())
    if not total:
        return np.empty(0, dtype=np.int64)
    return np.repeat(starts - np.cumsum(lengths) + lengths, lengths) + np.arange(total, dtype=np.int64)


def distinct(values: NDArray[np.int64]) -> NDArray[np.int64]:
    """The distinct values, sorted: `np.unique` without its hash-based path, which numpy 2 takes for a plain
    call and which is some 30 to 100 times slower than a sort on millions of int64s (5.7 s for 3M node ids on the
    build VM, numpy 2.4)."""
    ordered = np.sort(values)
    if not len(ordered):
        return ordered
    keep = np.empty(len(ordered), dtype=np.bool_)
    keep[0] = True
    np.not_equal(ordered[1:], ordered[:-1], out=keep[1:])
    return ordered[keep]


def numbered(*columns: NDArray[np.signedinteger[Any]]) -> tuple[NDArray[np.int64], list[NDArray[np.int32]]]:
    """The distinct values of all `columns` (int64 or int32), sorted (`ids`, int64), and each column as positions in
    `ids` (int32: fewer than 2**31 distinct values). Where the values are non-negative and the largest is below
    their count (node ids of edge ends: a table's identity, dense), they are numbered through a table of one entry
    per value up to the largest, two passes over the columns; otherwise by sorting and binary search, which took 1.8
    of the 3.4 s that building the findings' reach of ten million edges took."""
    total = sum(len(column) for column in columns)
    filled = [column for column in columns if len(column)]
    if filled and min(int(column.min()) for column in filled) >= 0:
        top = max(int(column.max()) for column in filled)
        if top < total:
            present = np.zeros(top + 1, dtype=np.bool_)
            for column in filled:
                present[column] = True
            ids = np.flatnonzero(present)
            table = np.zeros(top + 1, dtype=np.int32)
            table[ids] = np.arange(len(ids), dtype=np.int32)
            return ids.astype(np.int64), [table[column] for column in columns]
    ids = (distinct(np.concatenate([distinct(column.astype(np.int64, copy=False)) for column in columns]))
           if columns else np.zeros(0, dtype=np.int64))
    return ids, [np.searchsorted(ids, column).astype(np.int32) for column in columns]


def in_sorted(values: NDArray[np.int64], ordered: NDArray[np.int64]) -> NDArray[np.bool_]:
    """`np.isin(values, ordered)` for a sorted `ordered`, by binary search (numpy's own `isin` hashes too)."""
    if not len(ordered):
        return np.zeros(len(values), dtype=bool)
    at = np.minimum(np.searchsorted(ordered, values), len(ordered) - 1)
    found: NDArray[np.bool_] = ordered[at] == values
    return found
