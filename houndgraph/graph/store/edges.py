"""Edge writes: new edges straight into the table, the others through the staged upsert.

The staged upsert (COPY into a temporary table, then one `INSERT ... ON CONFLICT` sorted by
key) is the fastest way the store benchmark found, and the one way edges are upserted by (start, kind,
end): ingest, the analysis rules that add single edges and Cypher's CREATE all go through it.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

import numpy as np
import numpy.typing as npt
import orjson
import psycopg

from houndgraph.graph.connection import GraphConnection
from houndgraph.graph.kind_catalogue import KindCatalogue
from houndgraph.graph.store import sql
from houndgraph.graph.store.encoding import copy_json
from houndgraph.graph.store.merge import PreparedBatch
from houndgraph.graph.store.nodes import WrittenNodes

# (start_id, end_id, kind_id, properties as JSON text): a row of the staging table.
StagedEdge = tuple[int, int, int, str]
# Kind ids are smallints: (node id, kind id) packed into one integer as node id * _KIND_SPAN + kind id.
_KIND_SPAN = 1 << 16
# Edges per piece of an edge COPY (about 300 KB of text with the usual properties).
COPY_PIECE_ROWS = 4096


def copy_text(rows: Iterable[StagedEdge]) -> bytes:
    """Rows in COPY's text format, built in one piece: a write per row cost a third of the Python time of
    writing an edge. Ids hold no backslash, so the whole text is escaped as its JSON is (`copy_json`)."""
    return copy_json("".join([f"{start}\t{end}\t{kind}\t{props}\n" for start, end, kind, props in rows])).encode()


def write_edges(
    conn: psycopg.Connection, catalogue: KindCatalogue, prepared: PreparedBatch, nodes: WrittenNodes, *,
    inbound_index: bool = True,
) -> int:
    """Write the batch's edges, every end already a node; returns how many. Column-wise: one node id look-up
    per distinct object id, then numpy over the batch (`EdgeRows`). Without the inbound edge index (a bulk job
    builds it after its files) the pairs of end and kind cannot be probed (each probe would scan the table): the
    edges the pairs of start and kind leave in doubt are looked up by their keys instead."""
    rows = prepared.edge_rows
    count = len(rows)
    node_ids, created = nodes.ids, nodes.created
    ids = np.fromiter(map(node_ids.__getitem__, rows.objectids), dtype=np.int64, count=len(rows.objectids))
    kind_ids = np.array(catalogue.ids(rows.kinds), dtype=np.int64)
    start, kind, end = ids[rows.ends[:, 0]], kind_ids[rows.ends[:, 1]], ids[rows.ends[:, 2]]
    # An edge touching a node this batch created cannot exist yet (batch duplicates are merged): it is
    # copied straight into the table, skipping the staging table and the conflict check.
    is_new = np.isin(ids, np.fromiter(created, dtype=np.int64, count=len(created)))
    fresh = is_new[rows.ends[:, 0]] | is_new[rows.ends[:, 2]]
    if not fresh.all():
        # Nor can an edge into a node no stored edge of its kind enters, or out of one none of its kind
        # leaves: so the edges of objects an earlier file only named (children an OU lists, members of a
        # group, placeholders) are copied as well. COPY inserts rows in bulk; the upsert inserts them one at
        # a time, at about twice the cost.
        probes = ((sql.ENTERED, end), (sql.LEFT, start)) if inbound_index else ((sql.LEFT, start),)
        for query, side in probes:
            others = ~fresh
            found = _stored_pairs(conn, query, side[others], kind[others])
            if found is not None:
                fresh[others] = ~found
            if fresh.all():
                break
        if not inbound_index and not fresh.all():
            doubtful = np.flatnonzero(~fresh)
            fresh[doubtful] = ~_stored_edges(conn, start[doubtful], kind[doubtful], end[doubtful])
    # Each distinct properties text once, as COPY text.
    texts = [f"\t{copy_json(text)}\n".encode() for text in rows.texts]
    if fresh.any():
        # Sorted by key, so the table and its indexes are written in order.
        chosen = np.flatnonzero(fresh)
        chosen = chosen[np.lexsort((kind[chosen], end[chosen], start[chosen]))]
        with conn.cursor().copy(sql.COPY_NEW_EDGES) as copy:
            for piece in copy_pieces(start[chosen], end[chosen], kind[chosen], texts, rows.text_at[chosen]):
                copy.write(piece)
    if not fresh.all():
        # Sorted by key as well: the upsert probes the stored edge of each staged row in the staging table's order.
        chosen = np.flatnonzero(~fresh)
        chosen = chosen[np.lexsort((end[chosen], kind[chosen], start[chosen]))]
        _upsert_staged(conn, copy_pieces(start[chosen], end[chosen], kind[chosen], texts, rows.text_at[chosen]))
    return count


def copy_pieces(start: npt.NDArray[np.int64], end: npt.NDArray[np.int64], kind: npt.NDArray[np.int64],
                texts: list[bytes], text_at: npt.NDArray[np.int32], rows_per_piece: int | None = None
                ) -> Iterator[bytes]:
    """Edges in COPY's text format, as `copy_text` writes them, from columns, in pieces of `rows_per_piece` rows
    (`COPY_PIECE_ROWS` by default): the ids of each row as fixed-width decimal digits (COPY reads leading zeros as
    any integer input does), made by numpy once for all, then each row's digits and its properties
    (`texts[text_at[row]]`: a tab, the JSON escaped for COPY, a newline) joined per piece with no Python code per
    row. Written to a COPY piece by piece, the backend parses and inserts the rows of one piece while the next is
    joined, rather than waiting for the whole batch's text."""
    rows_per_piece = rows_per_piece or COPY_PIECE_ROWS
    count = len(start)
    if not count:
        return
    tab = np.full((count, 1), ord("\t"), dtype=np.uint8)
    digits = np.concatenate((_decimal(start), tab, _decimal(end), tab, _decimal(kind)), axis=1)
    pieces: list[bytes] = [b""] * (2 * count)
    pieces[0::2] = digits.view(f"S{digits.shape[1]}").reshape(-1).tolist()
    pieces[1::2] = map(texts.__getitem__, text_at.tolist())
    for at in range(0, 2 * count, 2 * rows_per_piece):
        yield b"".join(pieces[at:at + 2 * rows_per_piece])


def _decimal(values: npt.NDArray[np.int64]) -> npt.NDArray[np.uint8]:
    """Each of the non-negative `values` as decimal digits, all as wide as the largest (zeros in front)."""
    if int(values.min()) < 0:
        raise ValueError("ids are never negative")
    width = len(str(int(values.max())))
    powers = 10 ** np.arange(width - 1, -1, -1, dtype=np.int64)
    return (values[:, None] // powers % 10 + ord("0")).astype(np.uint8)


# Edges whose pairs are probed first when they have more than twice as many distinct pairs (`_stored_pairs`), and
# the share of them found stored that makes probing the others not worth it: an edge upserted rather than copied
# costs about one probe more.
_PROBE_SAMPLE = 256
_STORED_ENOUGH = 0.9


def _stored_pairs(conn: psycopg.Connection, query: str, node_ids: npt.NDArray[np.int64],
                  kind_ids: npt.NDArray[np.int64]) -> npt.NDArray[np.bool_] | None:
    """Of each (node id, kind id), whether it is one of the stored pairs `query` returns (one probe per
    distinct pair); None when a sample says that nearly every one is stored.

    A probe pays only for the edges it finds cannot exist (copied rather than upserted); when nearly every pair
    is stored, as for the children an OU or a domain restates, it costs about as much as the upsert's own check
    and spares it nothing. So the pairs of many edges are probed in two steps: those of an even sample of the
    edges first (a pair counts as often as edges have it), and the others only if enough of the sample is
    missing."""
    keys = node_ids * _KIND_SPAN + kind_ids
    distinct, inverse = np.unique(keys, return_inverse=True)
    inverse = inverse.reshape(-1)
    is_stored: npt.NDArray[np.bool_] = np.zeros(len(distinct), dtype=bool)
    probed: npt.NDArray[np.bool_] = np.zeros(len(distinct), dtype=bool)
    if len(distinct) > 2 * _PROBE_SAMPLE:
        sample = inverse[np.linspace(0, len(keys) - 1, _PROBE_SAMPLE).astype(np.int64)]
        probed[sample] = True
        is_stored[probed] = _probe(conn, query, distinct[probed])
        if is_stored[sample].mean() >= _STORED_ENOUGH:
            return None
    is_stored[~probed] = _probe(conn, query, distinct[~probed])
    chosen: npt.NDArray[np.bool_] = is_stored[inverse]
    return chosen



def _probe(conn: psycopg.Connection, query: str, keys: npt.NDArray[np.int64]) -> npt.NDArray[np.bool_]:
    """For each of the sorted, distinct packed (node id, kind id) `keys`, whether `query` finds it stored."""
    pairs = np.stack((keys // _KIND_SPAN, keys % _KIND_SPAN), axis=1)
    found = conn.execute(query, {"pairs": orjson.dumps(pairs, option=orjson.OPT_SERIALIZE_NUMPY).decode()}).fetchall()
    stored = np.array(found, dtype=np.int64).reshape(-1, 2)
    # Both sorted: each key is stored if the stored keys hold it where it would go.
    stored_keys = np.sort(stored[:, 0] * _KIND_SPAN + stored[:, 1])
    if not len(stored_keys):
        return np.zeros(len(keys), dtype=bool)
    at = np.minimum(np.searchsorted(stored_keys, keys), len(stored_keys) - 1)
    is_stored: npt.NDArray[np.bool_] = stored_keys[at] == keys
    return is_stored


def _stored_edges(conn: psycopg.Connection, start: npt.NDArray[np.int64], kind: npt.NDArray[np.int64],
                  end: npt.NDArray[np.int64]) -> npt.NDArray[np.bool_]:
    """Whether each (start, kind, end) edge is stored: one probe of the unique edge index per edge, which costs less
    than the upsert it spares an edge that is not (its staging, its own probe and the conflict check)."""
    edges = orjson.dumps(np.stack((start, kind, end), axis=1), option=orjson.OPT_SERIALIZE_NUMPY).decode()
    found = conn.execute(sql.STORED_EDGES, {"edges": edges}).fetchall()
    is_stored: npt.NDArray[np.bool_] = np.zeros(len(start), dtype=bool)
    is_stored[np.array(found, dtype=np.int64).reshape(-1) - 1] = True
    return is_stored


def upsert_edges(conn: psycopg.Connection, edges: Iterable[StagedEdge]) -> None:
    """Creates each (start, kind, end) edge, or merges its properties into the stored one (`stored ||
    new`). The keys must be distinct: one statement cannot update a row twice."""
    _upsert_staged(conn, (copy_text(edges),))


def _upsert_staged(conn: psycopg.Connection, pieces: Iterable[bytes]) -> None:
    """`upsert_edges` of edges in COPY's text format, sent piece by piece."""
    conn.execute(sql.PREPARE_STAGED_EDGES)
    with conn.cursor().copy(sql.COPY_EDGES) as copy:
        for piece in pieces:
            copy.write(piece)
    conn.execute(sql.UPSERT_EDGES)


async def upsert_edges_returning_ids(conn: GraphConnection, edges: Iterable[StagedEdge]
                                     ) -> dict[tuple[int, int, int], int]:
    """`upsert_edges` on the request's connection; returns the edge id of each (start, kind, end)."""
    await conn.execute(sql.PREPARE_STAGED_EDGES)
    async with conn.cursor().copy(sql.COPY_EDGES) as copy:
        await copy.write(copy_text(edges))
    await conn.execute(sql.UPSERT_EDGES)
    cursor = await conn.execute(sql.STAGED_EDGE_IDS)
    return {(start, kind_id, end): edge_id for start, kind_id, end, edge_id in await cursor.fetchall()}
