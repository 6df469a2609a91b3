"""What every SharpHound object shares: properties, containment, typed principals and ACEs.

SharpHound's field names are matched case-insensitively (the reference decodes them with Go's
encoding/json, which does the same; v6 files spell the same list `SPNTargets` or `SpnTargets`).
"""

from __future__ import annotations

from typing import Any

from houndgraph.graph.kinds import AD_ACL_EDGES, ADEdge, ADNode
from houndgraph.ingest.emitter import Emitter

# Edge and node property names the readers write (the reference's spelling).
IS_ACL = "isacl"
IS_INHERITED = "isinherited"
INHERITANCE_HASH = "inheritancehash"
INHERITANCE_HASHES = "inheritancehashes"
OWNER_SID = "ownersid"
PRIVILEGES = "privileges"
ANY_ACE_GRANTS_OWNER_RIGHTS = "doesanyacegrantownerrights"
ANY_INHERITED_ACE_GRANTS_OWNER_RIGHTS = "doesanyinheritedacegrantownerrights"
OWNER_RIGHTS_SID_SUFFIX = "S-1-3-4"

# The properties of most edges: one dict shared by all of them. Nothing changes an emitted edge's properties
# (merging duplicates copies them first), and `graph.store.columns` encodes a shared dict once per batch.
NOT_ACL: dict[str, Any] = {IS_ACL: False}

# Exact spellings first (what SharpHound writes), lower-case as the fallback lookup.
_KIND_BY_NAME: dict[str, str] = {kind.value: kind.value for kind in ADNode}
# SharpHound names local principals without the AD prefix the graph kinds carry.
_KIND_BY_NAME.update({"LocalGroup": ADNode.LocalGroup, "LocalUser": ADNode.LocalUser})
_KIND_BY_NAME.update({name.lower(): kind for name, kind in list(_KIND_BY_NAME.items())})
_RIGHT_BY_NAME: dict[str, ADEdge] = {kind.value: kind for kind in AD_ACL_EDGES}
_RIGHT_BY_NAME.update({ADEdge.OwnsRaw.value: ADEdge.OwnsRaw, ADEdge.WriteOwnerRaw.value: ADEdge.WriteOwnerRaw})
_RIGHT_BY_NAME.update({name.lower(): kind for name, kind in list(_RIGHT_BY_NAME.items())})
# ACE field names as SharpHound spells them, and lower-cased for other writers.
_ACE_FIELDS = ("PrincipalSID", "PrincipalType", "RightName", "IsInherited", "InheritanceHash")
_ACE_FIELDS_LOWER = tuple(name.lower() for name in _ACE_FIELDS)
_SID, _TYPE, _RIGHT_NAME, _INHERITED, _HASH = _ACE_FIELDS
_TYPED_ID, _TYPED_KIND = "ObjectIdentifier", "ObjectType"
# The properties of every owner's `OwnsRaw` edge, shared as `NOT_ACL` is.
_OWNER: dict[str, Any] = {IS_ACL: True, IS_INHERITED: False}
_OWNS = frozenset({ADEdge.Owns, ADEdge.OwnsRaw})
_WRITE_OWNER = frozenset({ADEdge.WriteOwner, ADEdge.WriteOwnerRaw})


def lower_keys(value: Any) -> dict[str, Any]:
    """A JSON object with lower-cased keys; anything else (null, a list) becomes an empty object.

    A collector writes the same few key layouts millions of times (every user record has the same keys in the
    same order), so each layout's lower-cased keys are worked out once (`_LOWERED`) and a record's object is
    rebuilt from them in one call; SharpHound writes `Properties` in lower case already, and then a plain copy
    does. A key that lower-cases to one before it keeps the later value, as a key repeated in JSON does."""
    if not isinstance(value, dict):
        return {}
    keys = tuple(value)
    lowered = _LOWERED.get(keys, _UNSEEN)
    if lowered is _UNSEEN:
        lowered = _lowered(keys)
    if lowered is None:
        return dict(value)
    return dict(zip(lowered, value.values(), strict=True))


def lower_keys_in_place(value: Any) -> dict[str, Any]:
    """`lower_keys` for an object the caller owns (a record's part, parsed for this conversion alone): the object
    itself where its keys are their own lower case, as SharpHound writes `Properties`, rather than a copy."""
    if isinstance(value, dict) and _LOWERED.get(tuple(value), _UNSEEN) is None:
        return value
    return lower_keys(value)


# Lower-cased keys by key layout (None: the keys are their own lower case). Bounded: a file with endless
# layouts (hostile, or a collector writing sparse objects) empties it now and then rather than growing it,
# and a layout of more keys than a collector's object has is not kept.
_LOWERED: dict[tuple[str, ...], tuple[str, ...] | None] = {}
_LAYOUTS_KEPT = 4096
_KEYS_KEPT = 256
_UNSEEN: Any = object()


def _lowered(keys: tuple[str, ...]) -> tuple[str, ...] | None:
    lowered = tuple([key.lower() for key in keys])
    result = None if lowered == keys else lowered
    if len(keys) <= _KEYS_KEPT:
        if len(_LOWERED) >= _LAYOUTS_KEPT:
            _LOWERED.clear()
        _LOWERED[keys] = result
    return result


def as_list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def as_str(value: Any) -> str:
    return value if isinstance(value, str) else ""


def principal_kind(object_type: Any) -> str:
    """The graph kind for a SharpHound ObjectType; an unknown type (e.g. `Configuration`) is just Base."""
    if not isinstance(object_type, str):
        return ADNode.Base
    return _KIND_BY_NAME.get(object_type) or _KIND_BY_NAME.get(object_type.lower(), ADNode.Base)


def _right(name: str) -> ADEdge | None:
    return _RIGHT_BY_NAME.get(name) or _RIGHT_BY_NAME.get(name.lower())


def node_kinds(kind: str) -> tuple[str, ...]:
    return (kind, ADNode.Base)


def base_properties(record: dict[str, Any]) -> dict[str, Any]:
    """The node's property bag: SharpHound's `Properties` (emit_aces adds the owner's SID to it)."""
    properties = lower_keys_in_place(record.get("properties"))
    hashes = record.get(INHERITANCE_HASHES)
    if isinstance(hashes, list) and hashes:
        properties[INHERITANCE_HASHES] = hashes
    return properties


def typed(value: Any) -> tuple[str, str]:
    """(object id, kind) of a SharpHound TypedPrincipal `{ObjectIdentifier, ObjectType}`."""
    if isinstance(value, dict) and len(value) == 2 and _TYPED_ID in value and _TYPED_KIND in value:
        # SharpHound's own spelling, and nothing else: no other spelling of the same fields can compete.
        return as_str(value[_TYPED_ID]), principal_kind(value[_TYPED_KIND])
    principal = lower_keys(value)
    return as_str(principal.get("objectidentifier")), principal_kind(principal.get("objecttype"))


def emit_container(out: Emitter, record: dict[str, Any], objectid: str, kind: str) -> None:
    """`ContainedBy` is the parent container or OU: parent -Contains-> object."""
    parent, parent_kind = typed(record.get("containedby"))
    out.edge(parent, parent_kind, objectid, kind, ADEdge.Contains, NOT_ACL)


def emit_children(out: Emitter, record: dict[str, Any], objectid: str, kind: str) -> None:
    for child in as_list(record.get("childobjects")):
        child_id, child_kind = typed(child)
        out.edge(objectid, kind, child_id, child_kind, ADEdge.Contains, NOT_ACL)


def emit_outgoing(out: Emitter, targets: Any, objectid: str, kind: str, edge_kind: str) -> None:
    """object -edge_kind-> each principal of a TypedPrincipal list."""
    for target in as_list(targets):
        target_id, target_kind = typed(target)
        out.edge(objectid, kind, target_id, target_kind, edge_kind, NOT_ACL)


def emit_incoming(out: Emitter, sources: Any, objectid: str, kind: str, edge_kind: str) -> None:
    """each principal of a TypedPrincipal list -edge_kind-> object."""
    for source in as_list(sources):
        source_id, source_kind = typed(source)
        out.edge(source_id, source_kind, objectid, kind, edge_kind, NOT_ACL)


def emit_aces(out: Emitter, aces: Any, objectid: str, kind: str, properties: dict[str, Any]) -> None:
    """ACEs on an object become edges from the principal to the object.

    Owner rights need care (this mirrors the reference's ingest half of the Owns/WriteOwner analysis):
    the owner arrives as `OwnsRaw` and WriteOwner grants as `WriteOwnerRaw` for analysis to resolve,
    unless ACEs granted to OWNER RIGHTS (S-1-3-4) limit what an owner can do; then the limited kinds
    `OwnsLimitedRights` / `WriteOwnerLimitedRights` carry the abusable rights as `privileges`.

    A domain's objects carry the same few ACEs over and over (Domain Admins' GenericAll on every object):
    what an ACE says apart from its object is read once per batch (`AcePlan`), and the edges of one ACE share
    its property dict (nobody changes an emitted edge's properties; merging copies them first).
    """
    owner: tuple[str, str] | None = None
    write_owners: list[AcePlan] = []
    owner_rights: list[str] = []
    inherited_owner_rights: list[str] = []
    target = objectid.upper()
    last = out.end(objectid, kind)
    plans = out.ace_plans
    edges = out.edges
    for raw in as_list(aces):
        if not isinstance(raw, dict):
            continue
        if _RIGHT_NAME in raw:  # SharpHound's spelling: the fields that decide the plan, exactly
            try:
                key: Any = (raw.get(_SID), raw.get(_TYPE), raw[_RIGHT_NAME], raw.get(_INHERITED) is True,
                            raw.get(_HASH))  # fmt: skip
                plan = plans.get(key)
            except TypeError:  # an unhashable value (a list where a string belongs): planned alone
                key, plan = None, None
            if plan is None:
                plan = _plan_ace(out, raw)
                if key is not None:
                    plans[key] = plan
        else:
            plan = _plan_ace(out, raw)
        if plan.plain:  # most ACEs: an edge from the principal, unless the principal is the object itself
            if plan.start_id != target:
                edges.append((plan.start, last, plan.right, plan.acl))  # type: ignore[arg-type]
            continue
        right = plan.right
        if right is None:
            out.warnings.add(f"ACE right {plan.right_name!r} is not a known edge kind: ACE skipped")
            continue
        if plan.owns and OWNER_SID not in properties:
            properties[OWNER_SID] = plan.principal
        if plan.start is None or plan.start_id == target:
            continue
        if plan.owns:
            owner = (plan.principal, plan.kind)
        elif plan.write_owner:
            write_owners.append(plan)
        elif plan.owner_rights:
            owner_rights.append(right)
            if plan.inherited:
                inherited_owner_rights.append(right)
        else:
            edges.append((plan.start, last, right, plan.acl))
    _emit_owner_edges(out, objectid, kind, properties, owner, write_owners, owner_rights, inherited_owner_rights)


class AcePlan:
    """What one ACE says apart from the object it is on: its right, principal (with the batch's edge end the
    principal makes, and its object id upper-cased), whether it is inherited and its inheritance hash, and the
    ACL edge's properties."""

    __slots__ = ("right", "right_name", "principal", "kind", "start", "start_id", "inherited", "hash", "owns",
                 "write_owner", "owner_rights", "acl", "plain")

    def __init__(self, right: ADEdge | None, right_name: str, principal: str, kind: str, start: int | None,
                 inherited: bool, inheritance_hash: str) -> None:
        self.right = right
        self.right_name = right_name
        self.principal = principal
        self.kind = kind
        # A position in the emitter's table of ends; None for an ACE without a principal: no edge.
        self.start = start
        self.start_id = principal.upper()
        self.inherited = inherited
        self.hash = inheritance_hash
        self.owns = right in _OWNS
        self.write_owner = right in _WRITE_OWNER
        self.owner_rights = principal.endswith(OWNER_RIGHTS_SID_SUFFIX)
        self.acl = {IS_ACL: True, IS_INHERITED: inherited, INHERITANCE_HASH: inheritance_hash}
        # An ACE that is only an edge: a known right, with a principal, neither owner nor owner rights.
        self.plain = (right is not None and start is not None and not self.owns and not self.write_owner
                      and not self.owner_rights)  # fmt: skip


def _plan_ace(out: Emitter, raw: dict[str, Any]) -> AcePlan:
    sid_key, type_key, right_key, inherited_key, hash_key = (
        _ACE_FIELDS
        if _ACE_FIELDS[2] in raw
        else _ACE_FIELDS_LOWER
        if _ACE_FIELDS_LOWER[2] in raw
        else _lower_fields(raw)
    )
    principal = as_str(raw.get(sid_key))
    right_name = as_str(raw.get(right_key))
    principal_type = principal_kind(raw.get(type_key))
    start = out.end(principal, principal_type) if principal else None
    return AcePlan(_right(right_name), right_name, principal, principal_type, start, raw.get(inherited_key) is True,
                   as_str(raw.get(hash_key)))


def _lower_fields(raw: dict[str, Any]) -> tuple[str, ...]:
    """The ACE's own spelling of each field, for writers that use neither SharpHound's nor lower case."""
    spelled = {key.lower(): key for key in raw}
    return tuple(spelled.get(name, name) for name in _ACE_FIELDS_LOWER)


def _emit_owner_edges(
    out: Emitter,
    objectid: str,
    kind: str,
    properties: dict[str, Any],
    owner: tuple[str, str] | None,
    write_owners: list[AcePlan],
    owner_rights: list[str],
    inherited_owner_rights: list[str],
) -> None:
    def write_owner_edges(edge_kind: str, privileges: list[str] | None = None) -> None:
        for grant in write_owners:
            acl = grant.acl
            if privileges is not None:
                acl = {**acl, PRIVILEGES: privileges}
            out.edge(grant.principal, grant.kind, objectid, kind, edge_kind, acl)

    any_grant = properties.get(ANY_ACE_GRANTS_OWNER_RIGHTS) is True
    any_inherited_grant = properties.get(ANY_INHERITED_ACE_GRANTS_OWNER_RIGHTS) is True
    if owner_rights:
        if owner is not None:
            acl = {IS_ACL: True, IS_INHERITED: False, PRIVILEGES: owner_rights}
            out.edge(owner[0], owner[1], objectid, kind, ADEdge.OwnsLimitedRights, acl)
        if inherited_owner_rights:
            write_owner_edges(ADEdge.WriteOwnerLimitedRights, inherited_owner_rights)
        elif not any_inherited_grant:
            # Non-inherited OWNER RIGHTS grants vanish when the owner changes: WriteOwner may be abusable.
            write_owner_edges(ADEdge.WriteOwnerRaw)
        return
    if any_grant:
        # Inherited, non-abusable OWNER RIGHTS grants survive an owner change: neither edge is abusable.
        if not any_inherited_grant:
            write_owner_edges(ADEdge.WriteOwnerRaw)
        return
    if owner is not None:
        out.edge(owner[0], owner[1], objectid, kind, ADEdge.OwnsRaw, _OWNER)
    write_owner_edges(ADEdge.WriteOwnerRaw)
