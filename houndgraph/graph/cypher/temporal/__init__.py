"""Cypher's six temporal types with Neo4j's semantics (java.time's): construction, ISO 8601 text, accessors,
comparison, arithmetic, truncation and the distance between two instants.

Why in Python: the translator evaluates a temporal expression whose inputs are all known when the query is
translated (literals, and variables a WITH bound to such values) and binds the answer as a parameter. That is
the whole of what queries write in practice (`date('2024-01-01')`, `duration({days: 90})`), and it keeps
nanoseconds, named time zones and week dates exact where PostgreSQL's types have microseconds and no week
arithmetic. A temporal value leaves the translator as its ISO 8601 text: the form in which Neo4j's HTTP API
and BloodHound return it, so it is stored in properties and answered unchanged.
"""
