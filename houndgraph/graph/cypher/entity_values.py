"""Nodes, relationships and paths inside lists and maps, as the statements carry them: tagged jsonb objects.

`[n, r, 1]` and `{key: n}` are jsonb values, in which an entity is an object no map written in a query can be
(helpers.sql, hg_node_value): `{"~n": id}`, `{"~r": id}`, `{"~p": [n0, e0, n1, ...]}`. This module reads them back
out of a statement's rows: the ids to load for the answer, and the entities an updating clause acts on."""

from __future__ import annotations

from typing import Any

NODE_TAG, RELATIONSHIP_TAG, PATH_TAG = "~n", "~r", "~p"


def tagged(value: Any) -> tuple[list[int], list[int]] | None:
    """The node and edge ids of one tagged entity (a path's members in order), or None for any other value."""
    if not isinstance(value, dict) or len(value) != 1:
        return None
    if isinstance(node := value.get(NODE_TAG), int):
        return [node], []
    if isinstance(edge := value.get(RELATIONSHIP_TAG), int):
        return [], [edge]
    if isinstance(path := value.get(PATH_TAG), list):
        return [int(v) for v in path[0::2]], [int(v) for v in path[1::2]]
    return None


def collect_tagged(value: Any, nodes: set[int], edges: set[int]) -> None:
    """Add the ids of every tagged entity `value` holds, at any depth."""
    if isinstance(value, dict):
        if (found := tagged(value)) is not None:
            nodes.update(found[0])
            edges.update(found[1])
            return
        for item in value.values():
            collect_tagged(item, nodes, edges)
    elif isinstance(value, list):
        for item in value:
            collect_tagged(item, nodes, edges)
