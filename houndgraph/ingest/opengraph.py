"""Generic OpenGraph documents: `{"graph": {"nodes": [...], "edges": [...]}, "metadata": {...}}`.

Validation follows the reference's JSON schemas (node, edge, metadata) plus its two extra rules: no
objects in a property bag, and arrays of one primitive type only. Messages name the element by its
index (`nodes[3] ...`) the way the reference reports them.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from houndgraph.graph.records import EdgeEnd, EdgeRecord, MatchBy, NodeRecord

MAX_NODE_KINDS = 3
# The length of `source_kinds.name` (models/source_kind.py), where a file's source kind is registered.
MAX_SOURCE_KIND_LENGTH = 255
PRIMARY_KIND_PROPERTY = "primarykind"
_OBJECT_IN_BAG = (
    "Invalid property '{}': objects are not allowed in the property bag. "
    "Use only strings, numbers, booleans, nulls, or arrays of these types."
)
_OBJECT_IN_ARRAY = (
    "Invalid property '{}': array contains an object. "
    "Arrays must contain only primitive values (string, number, boolean, or null)."
)


def node_errors(node: Any, index: int) -> list[str]:
    name = f"nodes[{index}]"
    if not isinstance(node, dict):
        return [f"{name} schema validation failed with 1 error(s): [the node must be an object]"]
    causes: list[str] = []
    if "id" not in node:
        causes.append("missing property 'id'")
    elif not isinstance(node["id"], str) or not node["id"]:
        causes.append("'id' must be a non-empty string")
    kinds = node.get("kinds")
    if "kinds" not in node:
        causes.append("missing property 'kinds'")
    elif not isinstance(kinds, list) or not all(isinstance(kind, str) and kind for kind in kinds):
        causes.append("'kinds' must be an array of non-empty strings")
    elif not 1 <= len(kinds) <= MAX_NODE_KINDS:
        causes.append(f"'kinds' must have between 1 and {MAX_NODE_KINDS} items, not {len(kinds)}")
    return _report(name, causes, node.get("properties"))


def edge_errors(edge: Any, index: int) -> list[str]:
    name = f"edges[{index}]"
    if not isinstance(edge, dict):
        return [f"{name} schema validation failed with 1 error(s): [the edge must be an object]"]
    causes: list[str] = []
    for end in ("start", "end"):
        causes.extend(_end_errors(edge, end))
    if "kind" not in edge:
        causes.append("missing property 'kind'")
    elif not isinstance(edge["kind"], str) or not edge["kind"]:
        causes.append("'kind' must be a non-empty string")
    return _report(name, causes, edge.get("properties"))


def metadata_errors(metadata: Any) -> list[str]:
    if not isinstance(metadata, dict):
        return ["metadata tag is invalid: metadata must be an object"]
    errors = [
        f"metadata tag is invalid: additional property {key!r} is not allowed"
        for key in metadata
        if key != "source_kind"
    ]
    source_kind = metadata.get("source_kind")
    if source_kind is not None and not isinstance(source_kind, str):
        errors.append("metadata tag is invalid: source_kind must be a string or null")
    return errors


def _end_errors(edge: dict[str, Any], end: str) -> list[str]:
    if end not in edge:
        return [f"missing property '{end}'"]
    reference = edge[end]
    if not isinstance(reference, dict):
        return [f"'{end}' must be an object with a value"]
    causes = []
    if "value" not in reference:
        causes.append(f"missing property '{end}.value'")
    elif not isinstance(reference["value"], str) or not reference["value"]:
        causes.append(f"'{end}.value' must be a non-empty string")
    if reference.get("match_by", MatchBy.ID) not in (MatchBy.ID, MatchBy.NAME):
        causes.append(f"'{end}.match_by' must be one of 'id', 'name'")
    if "kind" in reference and not isinstance(reference["kind"], str):
        causes.append(f"'{end}.kind' must be a string")
    return causes


def _report(name: str, causes: list[str], properties: Any) -> list[str]:
    mixed: list[str] = []
    if properties is not None and not isinstance(properties, dict):
        causes.append("'properties' must be an object or null")
    elif properties:
        for key, value in properties.items():
            if isinstance(value, dict):
                causes.append(_OBJECT_IN_BAG.format(key))
            elif isinstance(value, list):
                if any(isinstance(item, dict | list) for item in value):
                    causes.append(_OBJECT_IN_ARRAY.format(key))
                elif len({_primitive_type(item) for item in value if item is not None}) > 1:
                    mixed.append(f'{name} schema validation error. properties["{key}"] contains a mixed-type array')
    errors = [f"{name} schema validation failed with {len(causes)} error(s): [{', '.join(causes)}]"] if causes else []
    return errors + mixed


def _primitive_type(value: Any) -> str:
    # JSON has one number type: 1 and 1.5 may share an array, true and 1 may not.
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int | float | Decimal):
        return "number"
    return type(value).__name__


def convert_node(node: dict[str, Any], source_kind: str | None) -> NodeRecord | str:
    """A node record, or the reason the node is skipped."""
    objectid = node["id"].upper()
    properties = _clean(node.get("properties"))
    stated = properties.get("objectid")
    if isinstance(stated, str) and stated.upper() != objectid:
        return f"node {node['id']!r} skipped: its objectid property {stated!r} differs from its id"
    kinds = list(node["kinds"])
    properties[PRIMARY_KIND_PROPERTY] = kinds[0]
    if source_kind and source_kind not in kinds:
        kinds.append(source_kind)
    return NodeRecord(objectid=objectid, kinds=tuple(kinds), properties=properties)


def convert_edge(edge: dict[str, Any]) -> EdgeRecord:
    return EdgeRecord(
        start=_end(edge["start"]),
        end=_end(edge["end"]),
        kind=edge["kind"],
        properties=_clean(edge.get("properties")),
    )


def _end(reference: dict[str, Any]) -> EdgeEnd:
    return EdgeEnd(
        value=reference["value"].upper(),
        kind=reference.get("kind") or None,
        match_by=MatchBy(reference.get("match_by", MatchBy.ID)),
    )


def _clean(properties: dict[str, Any] | None) -> dict[str, Any]:
    # A null value carries nothing in a flat property bag; leaving it out keeps stored values intact.
    return {key: value for key, value in (properties or {}).items() if value is not None}
