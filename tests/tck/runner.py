"""Runs one TCK scenario over `POST /api/v2/graphs/cypher` (mutations enabled) and says why it fails.

What the answer shows is what is compared. The reference's answer is a graph: `literals` hold, row by row, every
value that is not one node, relationship or path, lists and maps of them included, each entity in them written as
a record (graph_query/literals.py; values.py reads it back as the node, relationship or path it is): those rows
are compared exactly, in order where the scenario asks. The nodes, relationships and paths returned as such come as
one set each (so those columns are compared as the sets of nodes and relationships they hold). A read with no rows
answers 404, as the reference does: an empty result."""

from __future__ import annotations

import json
import re
from collections import Counter
from dataclasses import dataclass
from typing import Any

import httpx
import psycopg

from houndgraph.db import Database
from houndgraph.graph.cypher.errors import PARAMETERS_NOT_SUPPORTED, PROCEDURES_NOT_SUPPORTED, TOO_COMPLEX
from tests.tck import values
from tests.tck.scenarios import SIDE_EFFECTS, Scenario

URL = "/api/v2/graphs/cypher"
# Both tables in one round trip, as JSON text (decoded here, so the properties are read exactly as the text of
# each row's jsonb, as before).
_SNAPSHOT = """
SELECT (SELECT coalesce(json_agg(json_build_array(id, kind_ids, properties::text)), '[]')::text FROM node),
       (SELECT coalesce(json_agg(json_build_array(id, properties::text)), '[]')::text FROM edge)"""
_VARIABLE = re.compile(r"[A-Za-z_]\w*")
REFUSED_AS_THE_REFERENCE_DOES = {
    PARAMETERS_NOT_SUPPORTED: "user parameters: refused, as the reference refuses them",
    PROCEDURES_NOT_SUPPORTED: "procedure calls: refused, as the reference refuses them",
}


@dataclass
class Answer:
    status: int
    body: dict[str, Any]

    @property
    def message(self) -> str:
        errors = self.body.get("errors") or [{}]
        return str(errors[0].get("message", ""))


class Runner:
    def __init__(self, http: httpx.Client, database: Database) -> None:
        self.http = http
        self.conn = psycopg.connect(database.conninfo, autocommit=True)

    def close(self) -> None:
        self.conn.close()

    def reset(self) -> None:
        """Empty the graph under the write lock every writer of the service takes, in one round trip: the
        statements of one simple query run as one transaction, which holds the lock to its end."""
        from houndgraph.graph.store.sql import WRITE_LOCK_ID

        self.conn.execute(f"SELECT pg_advisory_xact_lock({int(WRITE_LOCK_ID)}); DELETE FROM edge; DELETE FROM node")

    def post(self, query: str) -> Answer:
        response = self.http.post(URL, json={"query": query, "include_properties": True})
        try:
            body = response.json()
        except ValueError:
            body = {}
        return Answer(response.status_code, body if isinstance(body, dict) else {})

    def snapshot(self) -> tuple[set[Any], ...]:
        """The TCK's four observable metrics: nodes, relationships, the labels in use, property triples."""
        row = self.conn.execute(_SNAPSHOT).fetchone()
        assert row is not None
        nodes, edges = json.loads(row[0]), json.loads(row[1])
        properties: set[Any] = set()
        for tag, rows in (("n", [(i, p) for i, _, p in nodes]), ("r", edges)):
            for entity_id, text in rows:
                properties.update((tag, entity_id, key, repr(value)) for key, value in json.loads(text).items())
        return ({i for i, _, _ in nodes}, {i for i, _ in edges}, {k for _, kinds, _ in nodes for k in kinds},
                properties)

    def failure(self, scenario: Scenario) -> str | None:
        """None when the scenario passes, else a one-line reason."""
        self.reset()
        for query in scenario.setup:
            answer = self.post(query)
            if answer.status != 200:
                return f"setup query answers {answer.status}: {answer.message[:100]}"
        if scenario.first is not None and (reason := self.checked(scenario.first)) is not None:
            return f"before the control query: {reason}"
        return self.checked(scenario)

    def checked(self, scenario: Scenario) -> str | None:
        """None when the scenario's query answers as it must on the graph as it is, else a one-line reason."""
        watched = scenario.side_effects is not None or scenario.error is not None
        before = self.snapshot() if watched else ()
        answer = self.post(scenario.query)
        if answer.status >= 500:
            return f"answers {answer.status}: {answer.message[:100]}"
        if scenario.error is not None:
            if answer.status in (200, 404):
                return f"accepted; a {scenario.error[0]} ({scenario.error[2]}) must be raised"
            return _side_effects({}, before, self.snapshot())
        if answer.status not in (200, 404):
            if answer.message in REFUSED_AS_THE_REFERENCE_DOES:
                return REFUSED_AS_THE_REFERENCE_DOES[answer.message]
            if answer.message == TOO_COMPLEX:
                return "refused as too complex"
            return f"refused ({answer.status}): {answer.message[:100]}"
        reason = _rows(scenario, answer)
        if reason is None and scenario.side_effects is not None:
            reason = _side_effects(scenario.side_effects, before, self.snapshot())
        return reason


def _side_effects(expected: dict[str, int], before: tuple[set[Any], ...], after: tuple[set[Any], ...]) -> str | None:
    found: dict[str, int] = {}
    for name, old, new in zip(("nodes", "relationships", "labels", "properties"), before, after, strict=True):
        found[f"+{name}"] = len(new - old)
        found[f"-{name}"] = len(old - new)
    wrong = [f"{name} {found[name]} (not {expected.get(name, 0)})" for name in SIDE_EFFECTS
             if found[name] != expected.get(name, 0)]
    return f"side effects: {', '.join(wrong)}" if wrong else None


def _rows(scenario: Scenario, answer: Answer) -> str | None:
    assert scenario.rows is not None
    expected = [[values.parse(cell) for cell in row] for row in scenario.rows]
    if scenario.unordered_lists:
        expected = [[values.unordered(v) for v in row] for row in expected]
    if answer.status == 404:
        return None if not expected or _null_entities_only(scenario, expected) else f"no rows; {len(expected)} expected"
    data = answer.body.get("data") or {}
    literals: list[dict[str, Any]] = data.get("literals") or []
    keys: list[str] = []
    for literal in literals:
        if literal["key"] in keys:
            break
        keys.append(literal["key"])
    unknown = [key for key in keys if key not in scenario.columns]
    if unknown:
        return f"columns {unknown} are not {scenario.columns}"
    scalar_columns = [i for i, name in enumerate(scenario.columns) if name in keys]
    entity_columns = [i for i, name in enumerate(scenario.columns) if name not in keys]
    for i in entity_columns:
        if any(row[i] is not None and not values.has_entity(row[i]) for row in expected):
            return f"column {scenario.columns[i]} answered as nodes or relationships, not values"
    if keys:
        if len(literals) % len(keys) or any(literals[i]["key"] != keys[i % len(keys)] for i in range(len(literals))):
            return "literals do not form rows"
        got = [[values.scalar(literals[r + c].get("value")) for c in range(len(keys))]
               for r in range(0, len(literals), len(keys))]
        if scenario.unordered_lists:
            got = [[values.unordered(v) for v in row] for row in got]
        want = [[row[i] for i in sorted(scalar_columns, key=lambda i: keys.index(scenario.columns[i]))]
                for row in expected]
        if scenario.ordered and got != want:
            return f"rows {_show(got)} not {_show(want)} in order"
        if Counter(map(values.canonical, got)) != Counter(map(values.canonical, want)):
            return f"rows {_show(got)} not {_show(want)}"
    elif not expected and (data.get("nodes") or data.get("edges")):
        return "rows answered; none expected"
    return _entities(data, [row[i] for row in expected for i in entity_columns])


def _null_entities_only(scenario: Scenario, expected: list[list[Any]]) -> bool:
    """Whether every expected cell is null in a column named as a variable (`OPTIONAL MATCH (n) RETURN n`): a
    null node, relationship or path adds nothing to the graph, so such rows answer an empty graph, which the
    reference answers as 404 (as it answers no rows). A null scalar would still be a literal of a 200."""
    return all(_VARIABLE.fullmatch(name) for name in scenario.columns) and all(
        cell is None for row in expected for cell in row)


def _entities(data: dict[str, Any], cells: list[Any]) -> str | None:
    want: tuple[set[Any], set[Any]] = (set(), set())
    for cell in cells:
        values.entities(cell, want)
    nodes = data.get("nodes") or {}
    edges = data.get("edges") or []
    got_nodes = {values.node(n["kinds"], n.get("properties") or {}) for n in nodes.values()}
    got_edges = {values.relationship(e["kind"], e.get("properties") or {}) for e in edges}
    endpoints = {values.node(nodes[e[end]]["kinds"], nodes[e[end]].get("properties") or {})
                 for e in edges for end in ("source", "target") if e[end] in nodes}
    if got_edges != want[1]:
        return f"relationships {_show(got_edges)} not {_show(want[1])}"
    if not want[0] <= got_nodes or not got_nodes <= want[0] | endpoints:
        return f"nodes {_show(got_nodes)} not {_show(want[0])}"
    return None


def _show(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."
