"""Cypher's six temporal types with Neo4j's semantics (java.time's): construction, ISO 8601 text, accessors,
comparison, arithmetic, truncation and the distance between two instants.

Why in Python: the translator evaluates a temporal expression whose inputs are all known when the query is
translated (literals, and variables a WITH bound to such values) and binds the answer as a parameter. That is
the whole of what queries write in practice (`date('2024-01-01')`, `duration({days: 90})`), and it keeps
nanoseconds, named time zones and week dates exact where PostgreSQL's types have microseconds and no week
arithmetic. A temporal value leaves the translator as a tagged object (stored.py) that carries its fields,
its components and its ISO 8601 text; stored.sql computes on such objects inside the statement (a stored
duration added to a stored date, a component of a stored datetime), and answers show the ISO 8601 text, as
Neo4j's HTTP API writes it.
"""
