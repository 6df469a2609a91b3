"""SharpHound object types other than computers: one converter per `meta.type`.

Each converter takes one record (keys lower-cased) and emits the object's node and every
relationship the collector reported on it, as the reference's ingest (packages/go/ein) does.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from houndgraph.graph.kinds import ADEdge, ADNode
from houndgraph.ingest.ad_common import (
    IS_ACL,
    NOT_ACL,
    as_list,
    as_str,
    base_properties,
    emit_aces,
    emit_children,
    emit_container,
    emit_outgoing,
    lower_keys,
    node_kinds,
    typed,
)
from houndgraph.ingest.emitter import Emitter

Converter = Callable[[Emitter, dict[str, Any]], object]
# Extra work for one object type, given the emitted node's id and property bag.
Extra = Callable[[Emitter, dict[str, Any], str, dict[str, Any]], None]

IS_PRIMARY_GROUP = "isprimarygroup"
UNCONSTRAINED_DELEGATION = "unconstraineddelegation"
DOMAIN_SID = "domainsid"
# Shared by every primary-group edge, as `NOT_ACL` is (an emitted edge's properties are never changed).
_PRIMARY_GROUP: dict[str, Any] = {IS_ACL: False, IS_PRIMARY_GROUP: True}
_MEMBER: dict[str, Any] = {IS_ACL: False, IS_PRIMARY_GROUP: False}
_EDGE_KINDS = frozenset(kind.value for kind in ADEdge)
_SAME_FOREST_TRUST_TYPES = frozenset({"ParentChild", "TreeRoot", "CrossLink"})
_INBOUND = frozenset({"Inbound", "Bidirectional"})
_OUTBOUND = frozenset({"Outbound", "Bidirectional"})
# Domain policy values some collectors write as strings; the reference converts them or drops them.
_DOMAIN_INT_PROPERTIES = (
    "machineaccountquota",
    "minpwdlength",
    "pwdproperties",
    "pwdhistorylength",
    "lockoutthreshold",
)
_DOMAIN_BOOL_PROPERTIES = ("expirepasswordsonsmartcardonlyaccounts",)
_GPO_STATUS = {
    "0": "Enabled",
    "1": "User Configuration Disabled",
    "2": "Computer Configuration Disabled",
    "3": "Disabled",
}


def object_id(out: Emitter, record: dict[str, Any], what: str) -> str | None:
    objectid = as_str(record.get("objectidentifier")).upper()
    if not objectid:
        out.warnings.add(f"a {what} record has no ObjectIdentifier: record skipped")
        return None
    return objectid


def _simple(kind: str, what: str, *, children: bool = False, extra: Extra | None = None) -> Converter:
    """Objects that carry properties, ACEs and containment, plus what `extra` adds for the type."""

    def convert(out: Emitter, record: dict[str, Any]) -> None:
        objectid = object_id(out, record, what)
        if objectid is None:
            return
        properties = base_properties(record)
        if extra is not None:
            extra(out, record, objectid, properties)
        out.node(objectid, node_kinds(kind), properties)
        emit_aces(out, record.get("aces"), objectid, kind, properties)
        emit_container(out, record, objectid, kind)
        if children:
            emit_children(out, record, objectid, kind)

    return convert


def _gpo_status(out: Emitter, record: dict[str, Any], objectid: str, properties: dict[str, Any]) -> None:
    if "gpostatus" in properties:
        raw = str(properties["gpostatus"]).strip()
        properties["gpostatusraw"] = raw
        properties["gpostatus"] = _GPO_STATUS.get(raw, "GPO Status does not exist")


def _root_ca_for(out: Emitter, record: dict[str, Any], objectid: str, properties: dict[str, Any]) -> None:
    domain = as_str(record.get("domainsid"))
    out.edge(objectid, ADNode.RootCA, domain, ADNode.Domain, ADEdge.RootCAFor, NOT_ACL)


def _ntauth_store_for(out: Emitter, record: dict[str, Any], objectid: str, properties: dict[str, Any]) -> None:
    domain = as_str(record.get("domainsid"))
    out.edge(objectid, ADNode.NTAuthStore, domain, ADNode.Domain, ADEdge.NTAuthStoreFor, NOT_ACL)


def _oid_group_link(out: Emitter, record: dict[str, Any], objectid: str, properties: dict[str, Any]) -> None:
    group, group_kind = typed(record.get("grouplink"))
    if group:
        out.edge(objectid, ADNode.IssuancePolicy, group, group_kind, ADEdge.OIDGroupLink, NOT_ACL)
        properties["grouplinkid"] = group


def _site_gp_links(out: Emitter, record: dict[str, Any], objectid: str, properties: dict[str, Any]) -> None:
    emit_gp_links(out, record, objectid, ADNode.Site)


def _server_is(out: Emitter, record: dict[str, Any], objectid: str, properties: dict[str, Any]) -> None:
    # SharpHoundCommon's SiteServer output type spells the field "SeverIs"; both spellings are read.
    computer, computer_kind = typed(record.get("serveris") or record.get("severis"))
    if computer:
        out.edge(objectid, ADNode.SiteServer, computer, computer_kind, ADEdge.ServerIs, NOT_ACL)


convert_container = _simple(ADNode.Container, "container", children=True)
convert_aiaca = _simple(ADNode.AIACA, "AIACA")
convert_certtemplate = _simple(ADNode.CertTemplate, "certificate template")
convert_gpo = _simple(ADNode.GPO, "GPO", extra=_gpo_status)
convert_rootca = _simple(ADNode.RootCA, "root CA", extra=_root_ca_for)
convert_ntauthstore = _simple(ADNode.NTAuthStore, "NTAuth store", extra=_ntauth_store_for)
convert_issuance_policy = _simple(ADNode.IssuancePolicy, "issuance policy", extra=_oid_group_link)
# Sites: a site carries its GPO links; its servers and subnets name it as their container.
convert_site = _simple(ADNode.Site, "site", extra=_site_gp_links)
convert_site_server = _simple(ADNode.SiteServer, "site server", extra=_server_is)
convert_site_subnet = _simple(ADNode.SiteSubnet, "site subnet")


def emit_primary_group(out: Emitter, record: dict[str, Any], objectid: str, kind: str) -> None:
    # The directory leaves primary-group members out of the group's Members list.
    group = as_str(record.get("primarygroupsid"))
    out.edge(objectid, kind, group, ADNode.Group, ADEdge.MemberOf, _PRIMARY_GROUP)


def emit_coerce_to_tgt(
    out: Emitter, record: dict[str, Any], properties: dict[str, Any], objectid: str, kind: str
) -> None:
    """Unconstrained delegation lets the account coerce a DC into handing over its TGT."""
    unconstrained = properties.get(UNCONSTRAINED_DELEGATION, record.get(UNCONSTRAINED_DELEGATION)) is True
    domain = properties.get(DOMAIN_SID) or record.get(DOMAIN_SID)
    if unconstrained and isinstance(domain, str) and domain:
        out.edge(objectid, kind, domain, ADNode.Domain, ADEdge.CoerceToTGT, NOT_ACL)


def convert_user(out: Emitter, record: dict[str, Any]) -> None:
    objectid = object_id(out, record, "user")
    if objectid is None:
        return
    kind = ADNode.User
    properties = base_properties(record)
    out.node(objectid, node_kinds(kind), properties)
    emit_aces(out, record.get("aces"), objectid, kind, properties)
    emit_container(out, record, objectid, kind)
    for raw in as_list(record.get("spntargets")):
        target = lower_keys(raw)
        service = as_str(target.get("service"))
        if service not in _EDGE_KINDS:
            out.warnings.add(f"SPN target service {service!r} is not a known edge kind: skipped")
            continue
        props = {IS_ACL: True, "port": target.get("port")}
        out.edge(objectid, kind, as_str(target.get("computersid")), ADNode.Computer, ADEdge(service), props)
    emit_primary_group(out, record, objectid, kind)
    emit_outgoing(out, record.get("allowedtodelegate"), objectid, kind, ADEdge.AllowedToDelegate)
    emit_outgoing(out, record.get("hassidhistory"), objectid, kind, ADEdge.HasSIDHistory)
    emit_coerce_to_tgt(out, record, properties, objectid, kind)


def convert_group(out: Emitter, record: dict[str, Any]) -> None:
    objectid = object_id(out, record, "group")
    if objectid is None:
        return
    kind = ADNode.Group
    properties = base_properties(record)
    out.node(objectid, node_kinds(kind), properties)
    emit_container(out, record, objectid, kind)
    emit_aces(out, record.get("aces"), objectid, kind, properties)
    for member in as_list(record.get("members")):
        member_id, member_kind = typed(member)
        if member_id.upper().startswith("DN="):
            # Members the collector could not resolve to a SID are named by distinguished name, which
            # edge ends cannot match (they match by object id or name).
            out.warnings.add(f"group {objectid}: member {member_id!r} is a distinguished name, not an id: skipped")
            continue
        out.edge(member_id, member_kind, objectid, kind, ADEdge.MemberOf, _MEMBER)
    emit_outgoing(out, record.get("hassidhistory"), objectid, kind, ADEdge.HasSIDHistory)


def convert_domain(out: Emitter, record: dict[str, Any]) -> None:
    objectid = object_id(out, record, "domain")
    if objectid is None:
        return
    kind = ADNode.Domain
    properties = base_properties(record)
    _fix_domain_properties(properties)
    out.node(objectid, node_kinds(kind), properties)
    emit_aces(out, record.get("aces"), objectid, kind, properties)
    emit_children(out, record, objectid, kind)
    emit_gp_links(out, record, objectid, kind)
    for trust in as_list(record.get("trusts")):
        _emit_trust(out, lower_keys(trust), objectid)
    emit_gpo_changes(out, record)


def convert_ou(out: Emitter, record: dict[str, Any]) -> None:
    objectid = object_id(out, record, "OU")
    if objectid is None:
        return
    kind = ADNode.OU
    properties = base_properties(record)
    out.node(objectid, node_kinds(kind), properties)
    emit_aces(out, record.get("aces"), objectid, kind, properties)
    emit_container(out, record, objectid, kind)
    emit_gp_links(out, record, objectid, kind)
    emit_children(out, record, objectid, kind)
    emit_gpo_changes(out, record)


def emit_gp_links(out: Emitter, record: dict[str, Any], objectid: str, kind: str) -> None:
    for raw in as_list(record.get("links")):
        link = lower_keys(raw)
        gpo = as_str(link.get("guid"))
        enforced = link.get("isenforced") is True
        out.edge(gpo, ADNode.GPO, objectid, kind, ADEdge.GPLink, {IS_ACL: False, "enforced": enforced})


# RID of the local group each GPO-changes list fills on the affected computers.
_GPO_LOCAL_GROUPS = (("localadmins", "544"), ("backupoperators", "551"), ("remotedesktopusers", "555"),
                     ("dcomusers", "562"), ("psremoteusers", "580"))  # fmt: skip


def emit_gpo_changes(out: Emitter, record: dict[str, Any]) -> None:
    """Local group memberships that a GPO linked here pushes to the computers it applies to."""
    changes = lower_keys(record.get("gpochanges"))
    computers = [typed(computer)[0] for computer in as_list(changes.get("affectedcomputers"))]
    for field, rid in _GPO_LOCAL_GROUPS:
        members = [typed(member) for member in as_list(changes.get(field))]
        if not members:
            continue
        for computer in filter(None, computers):
            group = f"{computer}-{rid}"
            out.node(group, node_kinds(ADNode.LocalGroup), {})
            out.edge(group, ADNode.LocalGroup, computer, ADNode.Computer, ADEdge.LocalToComputer, NOT_ACL)
            for member_id, member_kind in members:
                out.edge(member_id, member_kind, group, ADNode.LocalGroup, ADEdge.MemberOfLocalGroup, NOT_ACL)


def _emit_trust(out: Emitter, trust: dict[str, Any], domain: str) -> None:
    target = as_str(trust.get("targetdomainsid")).upper()
    if not target:
        out.warnings.add(f"domain {domain}: a trust has no TargetDomainSid: skipped")
        return
    out.node(target, node_kinds(ADNode.Domain), {"name": trust.get("targetdomainname"), DOMAIN_SID: target})
    trust_type = as_str(trust.get("trusttype"))
    edge_kind = ADEdge.SameForestTrust if trust_type in _SAME_FOREST_TRUST_TYPES else ADEdge.CrossForestTrust
    attributes = _trust_attributes(trust.get("trustattributes"))
    direction = as_str(trust.get("trustdirection"))
    transitive = trust.get("istransitive") is True
    if direction in _INBOUND:
        # An inbound trust means the other domain trusts this one: the edge runs from it to us.
        props: dict[str, Any] = {IS_ACL: False, "trusttype": trust_type, "transitive": transitive,
                                 "trustattributesinbound": attributes}  # fmt: skip
        if attributes is not None:
            props["tgtdelegation"] = trust.get("tgtdelegationenabled") is True
        out.edge(target, ADNode.Domain, domain, ADNode.Domain, edge_kind, props)
        if edge_kind == ADEdge.CrossForestTrust and trust.get("tgtdelegationenabled") is True:
            props = {IS_ACL: False, "trusttype": trust_type}
            out.edge(target, ADNode.Domain, domain, ADNode.Domain, ADEdge.AbuseTGTDelegation, props)
    if direction in _OUTBOUND:
        sid_filtering = trust.get("sidfilteringenabled") is True
        props = {IS_ACL: False, "spoofsidhistoryblocked": sid_filtering, "trusttype": trust_type,
                 "transitive": transitive, "trustattributesoutbound": attributes}  # fmt: skip
        out.edge(domain, ADNode.Domain, target, ADNode.Domain, edge_kind, props)
        if edge_kind == ADEdge.CrossForestTrust and not sid_filtering:
            props = {IS_ACL: False, "trusttype": trust_type}
            out.edge(target, ADNode.Domain, domain, ADNode.Domain, ADEdge.SpoofSIDHistory, props)


def _trust_attributes(value: Any) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float) and math.isfinite(value):
        return int(value)
    if isinstance(value, str):
        try:
            return int(value)
        except ValueError:
            return None
    return None


def _fix_domain_properties(properties: dict[str, Any]) -> None:
    for key in _DOMAIN_INT_PROPERTIES:
        if key in properties:
            converted = _trust_attributes(properties[key])
            if converted is None:
                del properties[key]
            else:
                properties[key] = converted
    for key in _DOMAIN_BOOL_PROPERTIES:
        value = properties.get(key)
        if isinstance(value, str) and value.lower() in ("true", "false", "1", "0"):
            properties[key] = value.lower() in ("true", "1")
        elif key in properties and not isinstance(value, bool):
            del properties[key]


def convert_session(out: Emitter, record: dict[str, Any]) -> None:
    computer = as_str(record.get("computersid"))
    user = as_str(record.get("usersid"))
    if not computer or not user:
        out.warnings.add("a session row lacks ComputerSID or UserSID: skipped")
        return
    props = {IS_ACL: False, "logontype": record.get("logontype")}
    out.edge(computer, ADNode.Computer, user, ADNode.User, ADEdge.HasSession, props)
