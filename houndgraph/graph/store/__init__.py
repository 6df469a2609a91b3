"""The graph store: bulk writes of reader batches into the node and edge tables.

    store = GraphStore(conn)                      # the caller owns the transaction
    stats = store.write_all(read_file(document, batch_size=20_000), seen_at=now, on_batch=progress)
    conn.commit()

What a write does, in this order for each batch:

- Deletions (the SharpHound `deleted` type): the nodes go, with every edge touching them.
- Node records, upserted by object id (upper-cased). Properties merge as `stored || new`: a key the
  record carries wins, keys it lacks are kept, an explicit null clears a value. One exception:
  `collected: true` is never taken back by a later `collected: false`, so a stub (an id and
  `collected: false`, as collectors write for objects they only saw referenced) cannot mark a
  collected object uncollected. Kinds are added to the stored ones, which stay first (the first
  non-base kind is the display kind). Records for one object within a batch are merged first.
- Edge ends: an object no node exists for becomes a placeholder (its object id and lastseen) with the
  end's kind plus the platform's base kind (`Base` for AD kinds and for ends without a kind, `AZBase`
  for Azure kinds, nothing for OpenGraph kinds); an existing node gains the end's kind if it lacks it,
  its properties untouched. OpenGraph ends with `match_by: name` resolve to the one node with that
  name (and kind, if given); an edge whose name matches no node or several is skipped and counted
  (`WriteStats.unresolved` / `ambiguous`), never guessed.
- Edges, upserted by (start, kind, end), properties merged as for nodes; repeats within a batch are
  merged first. An edge from an object to itself is kept if the data says so.

Every node record and edge written gets `lastseen` = `seen_at` as an RFC 3339 UTC string (nodes only
named by an edge keep theirs). Writing the same batches again yields the same graph; only lastseen
moves. Rows that would not change are not rewritten.

A batch reaches the writer prepared (`merge.PreparedBatch`, the store's own format) in one of two ways: from
records (`merge.prepare_batch`, which `write` and `write_all` call), or from a `records.Cut`, a batch by column
(`columns.prepare_cut`, which the datapipe's reading process calls); `GraphStore.write_prepared` writes either.

Writers take a transaction-scoped advisory lock (`sql.WRITE_LOCK_ID`), so concurrent ingests
serialise instead of deadlocking; see `GraphStore`.
"""

from houndgraph.graph.store.encoding import rfc3339
from houndgraph.graph.store.stats import WriteStats
from houndgraph.graph.store.writer import GraphStore

__all__ = ["GraphStore", "WriteStats", "rfc3339"]
