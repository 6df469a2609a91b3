"""The `houndgraph` command, grouped by noun: serve, user, ingest, db."""
