"""The graph library: schema access, kinds, bulk writes, Cypher and path search. No FastAPI, no domains."""
