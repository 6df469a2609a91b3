"""Selector seeds to graph nodes: an object id names one node, a Cypher seed the nodes its query returns.

Cypher seeds go through the project's own Cypher engine (parse, validate, translate) with the stricter
complexity bound the reference uses for selectors, and run read-only on the caller's connection.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Mapping

import psycopg

from houndgraph.analysis.zones.model import Seed, SeedType
from houndgraph.graph.cypher import ast as a
from houndgraph.graph.cypher.errors import CypherError, QueryTooComplex
from houndgraph.graph.cypher.parser import parse
from houndgraph.graph.cypher.statement import compile_query, graph_ids
from houndgraph.graph.cypher.translate import shortest
from houndgraph.graph.cypher.validate import fitness, validate

log = logging.getLogger(__name__)

# A selector's query runs at every analysis: the reference refuses a fitness at or below -3 for selectors
# (explore queries may go down to -7).
SELECTOR_COMPLEXITY_BOUND = -3


def check_cypher_seed(text: str) -> a.Query:
    """The parsed seed query; raises CypherError when a selector may not use it."""
    query = parse(text)
    validate(query, allow_mutations=False, complexity_limit=False)
    if fitness(query) <= SELECTOR_COMPLEXITY_BOUND:
        raise QueryTooComplex()
    return query


def resolve(conn: psycopg.Connection, seeds: Iterable[Seed], kinds: Mapping[str, int]) -> set[int]:
    """The graph ids the seeds name. Unknown object ids are ignored, and so is a Cypher seed that fails
    (logged): one broken selector must not stop the analysis of every other one."""
    seeds = list(seeds)
    found: set[int] = set()
    object_ids = sorted({seed.value.strip().upper() for seed in seeds if seed.type == SeedType.OBJECT_ID})
    if object_ids:
        rows = conn.execute("SELECT id FROM node WHERE properties->>'objectid' = ANY(%s)", (object_ids,))
        found.update(row[0] for row in rows)
    for seed in seeds:
        if seed.type == SeedType.CYPHER:
            found |= _cypher_nodes(conn, seed.value, kinds)
    return found


def _cypher_nodes(conn: psycopg.Connection, text: str, kinds: Mapping[str, int]) -> set[int]:
    try:
        query = check_cypher_seed(text)
        if shortest.requests(query, kinds):
            log.warning("selector seed skipped: shortest path patterns are not run in selectors: %r", text)
            return set()
        statement = compile_query(query, kinds)
    except CypherError as error:
        log.warning("selector seed skipped: %s: %r", error.message, text)
        return set()
    try:
        with conn.transaction():  # a savepoint: a failing seed leaves the analysis transaction usable
            rows = conn.execute(statement.sql, statement.params).fetchall()
    except psycopg.errors.DataError as error:
        log.warning("selector seed failed: %s: %r", error, text)
        return set()
    nodes, _ = graph_ids(rows, [kind for _, kind in statement.columns])
    return nodes
