"""What an entity's related-object lists may be sorted by, and the SQL each column reads (list entries are
nodes, `n`)."""

from __future__ import annotations

from houndgraph.kit.query import Column, list_columns

ENTRIES = list_columns({
    "name": Column("n.properties->>'name'"),
    "objectid": Column("n.properties->>'objectid'"),
})
