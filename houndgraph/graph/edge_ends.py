"""Every edge's two ends read whole, as one byte string of big-endian integers per column: one row, where a row per
edge (even a binary COPY) costs a client round of work per edge. Four bytes an id while every node id fits in them,
else eight. The path budget's bound (`graph.cypher.path_bound`) and the findings' reach read the edges this way;
each runs `LARGEST_NODE_ID`, then `statement(narrow)` on its own (sync or async) connection, with `binary=True`,
and decodes the row (`columns`, `decoded`) once the cursor is closed."""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import DTypeLike, NDArray

LARGEST_NODE_ID = "SELECT coalesce(max(id), 0) FROM node"


def fits_narrow(largest: Any) -> bool:
    """Whether ids up to `largest` (the row of `LARGEST_NODE_ID`'s value) travel as four bytes."""
    return largest is not None and int(largest) < 2**31


def statement(narrow: bool, where: str = "") -> str:
    """The read of the edges' (starts, ends) columns, restricted by `where` (SQL on the edge table, or nothing)."""
    send, cast = ("int4send", "::int4") if narrow else ("int8send", "")
    return (f"SELECT coalesce(string_agg({send}(start_id{cast}), ''::bytea), ''::bytea), "
            f"coalesce(string_agg({send}(end_id{cast}), ''::bytea), ''::bytea) FROM edge{where}")


def columns(row: tuple[Any, ...] | None) -> list[bytes]:
    """The statement's one row as the list `decoded` takes (and empties)."""
    return list(row or (b"", b""))


def decoded(texts: list[bytes], narrow: bool, dtype: DTypeLike) -> list[NDArray[Any]]:
    """The statement's columns (`columns`) as arrays of `dtype`. `texts` is emptied as it goes, so each column's text
    is let go as soon as it is an array when the caller holds no other reference to it (nor the cursor's result: read
    the row, close the cursor, then decode). At a million objects, ten million edges, holding both texts beside both
    arrays was the findings' largest memory."""
    wire = ">i4" if narrow else ">i8"
    arrays = []
    while texts:
        arrays.append(np.frombuffer(texts.pop(0), dtype=wire).astype(dtype))
    return arrays
