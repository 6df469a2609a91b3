"""Saved Cypher queries: keeping them, sharing them with users or everyone, importing and exporting them."""
