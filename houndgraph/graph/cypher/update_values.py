"""Values computed by an updating clause, checked and shaped for storage."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from houndgraph.graph.cypher.errors import CypherError
from houndgraph.graph.cypher.temporal.stored import is_tagged, tagged, utc_datetime
from houndgraph.graph.cypher.translate.values import T

NOT_A_PROPERTY = "Property values can only be of primitive types or arrays thereof"


def property_value(value: Any, kind: T) -> Any:
    """A value as stored in `properties`; None means the property is removed (Cypher's SET x = null)."""
    if value is None:
        return None
    if kind is T.DATETIME and isinstance(value, datetime):
        return tagged(utc_datetime(value))
    if kind not in (T.JSON, T.BOOL):
        raise CypherError(f"{NOT_A_PROPERTY}: a {kind.value} cannot be stored")
    # A temporal value is a tagged object (temporal/stored.py), stored as it is; any other map is refused.
    if isinstance(value, dict) and not is_tagged(value):
        raise CypherError(f"{NOT_A_PROPERTY}: a map cannot be stored")
    if isinstance(value, list) and any(isinstance(item, list) or (isinstance(item, dict) and not is_tagged(item))
                                       or item is None for item in value):
        raise CypherError(f"{NOT_A_PROPERTY}: a list may hold only numbers, strings, booleans or temporal values")
    return value


def properties_map(value: Any, kind: T) -> dict[str, Any]:
    """An evaluated property map of a created node or relationship; null entries are left out."""
    if value is None:
        return {}
    if kind is not T.JSON or not isinstance(value, dict):
        raise CypherError("properties of a created node or relationship must be a map")
    stored = {key: property_value(item, T.JSON) for key, item in value.items()}
    return {key: item for key, item in stored.items() if item is not None}
