"""Members gain their tag's graph kind and lose it when no longer selected.

Tier Zero and Owned also keep the legacy `system_tags` words (`admin_tier_0`, `owned`) that older
queries and clients read, as the reference does for Tier Zero.
"""

from __future__ import annotations

from collections.abc import Iterable

import psycopg

from houndgraph.analysis.zones.model import OWNED_NAME, TIER_ZERO_NAME, tag_kind

SYSTEM_TAGS = {tag_kind(TIER_ZERO_NAME): "admin_tier_0", tag_kind(OWNED_NAME): "owned"}


# Members are joined as a set (a hash join), never tested with `id = ANY(array)` row by row: a zone
# may hold most of the graph.
NOT_MEMBER = "NOT EXISTS (SELECT 1 FROM unnest(%(members)s::bigint[]) AS m(id) WHERE m.id = n.id)"
MEMBER = "n.id IN (SELECT unnest(%(members)s::bigint[]))"


def apply(conn: psycopg.Connection, kind: str, kind_id: int, members: set[int], *,
          words_as_tagged: bool = False) -> int:
    """Tag exactly `members` with the kind; returns how many nodes gained or lost it (or its system tag).

    `words_as_tagged`: the nodes holding the kind's system tag are known to be those carrying the kind now, so
    the ones losing it are found by the kind's index instead of a pass over every node's properties (0.4 s of
    database CPU at 300k objects, for each of Tier Zero and Owned, in every run)."""
    ids = sorted(members)
    word = SYSTEM_TAGS.get(kind)
    changed = 0 if word is None else _system_tag(conn, word, ids, kind_id if words_as_tagged else None)
    changed += conn.execute(
        "UPDATE node n SET kind_ids = array_remove(n.kind_ids, %(tag)s) "
        f"WHERE n.kind_ids @> ARRAY[%(tag)s]::smallint[] AND {NOT_MEMBER}",
        {"tag": kind_id, "members": ids}).rowcount
    changed += conn.execute(
        f"UPDATE node n SET kind_ids = n.kind_ids || %(tag)s WHERE {MEMBER} "
        "AND NOT n.kind_ids @> ARRAY[%(tag)s]::smallint[]",
        {"tag": kind_id, "members": ids}).rowcount
    return changed


def _system_tag(conn: psycopg.Connection, word: str, members: list[int], holders_kind: int | None) -> int:
    """Give `word` to exactly `members`; `holders_kind`: a kind every node holding the word carries."""
    has_word = "%(word)s = ANY(string_to_array(coalesce(n.properties->>'system_tags', ''), ' '))"
    held = "n.properties ? 'system_tags'" if holders_kind is None else "n.kind_ids @> ARRAY[%(kind)s]::smallint[]"
    changed = conn.execute(
        "UPDATE node n SET properties = n.properties || jsonb_build_object('system_tags', array_to_string("
        "array_remove(string_to_array(n.properties->>'system_tags', ' '), %(word)s), ' ')) "
        f"WHERE {held} AND {has_word} AND {NOT_MEMBER}",
        {"word": word, "members": members, "kind": holders_kind}).rowcount
    return changed + conn.execute(
        "UPDATE node n SET properties = n.properties || jsonb_build_object('system_tags', "
        "trim(coalesce(n.properties->>'system_tags', '') || ' ' || %(word)s)) "
        f"WHERE {MEMBER} AND NOT {has_word}", {"word": word, "members": members}).rowcount


def clear_other_tags(conn: psycopg.Connection, stale: Iterable[int]) -> int:
    """Kinds of tags that no longer exist (deleted or renamed) leave every node; returns how many nodes."""
    return sum(conn.execute("UPDATE node SET kind_ids = array_remove(kind_ids, %(tag)s) "
                            "WHERE kind_ids @> ARRAY[%(tag)s]::smallint[]", {"tag": kind_id}).rowcount
               for kind_id in sorted(stale))
