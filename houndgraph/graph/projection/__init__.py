"""The edge table as compressed sparse rows in memory, for path searches that never wait on PostgreSQL.

`csr` holds the arrays (each edge twice: by its start and by its end, as a 32-bit node number and an 8-bit kind
number), `reading` copies them out of PostgreSQL, `store` keeps one copy per host in the data directory (every
worker maps the same files) and tells a request whether the copy is the graph it started on, and `search` runs the
path searches over it.
"""
