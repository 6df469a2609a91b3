"""SharpHound enterprise CAs: published templates, the hosting computer, and the CA's own registry.

When SharpHound read the CA's security descriptor from its registry (`CASecurity`), that descriptor
decides who may enroll and manage the CA, not the directory object's ACL: Enroll / ManageCA /
ManageCertificates ACEs of the directory object are then dropped (except the hosting computer's).
The reference parses the directory ACL a second time unfiltered, which undoes its own filter; we keep
the filter, which is what its code sets out to do.
"""

from __future__ import annotations

from typing import Any

from houndgraph.graph.kinds import ADEdge, ADNode
from houndgraph.ingest.ad_common import (
    NOT_ACL,
    as_list,
    as_str,
    base_properties,
    emit_aces,
    emit_container,
    lower_keys,
    node_kinds,
    principal_kind,
    typed,
)
from houndgraph.ingest.ad_objects import object_id
from houndgraph.ingest.emitter import Emitter

ACCESS_ALLOWED_CALLBACK = "AccessAllowedCallback"
_REGISTRY_CONTROLLED_RIGHTS = frozenset({ADEdge.Enroll, ADEdge.ManageCA, ADEdge.ManageCertificates})


def convert_enterprise_ca(out: Emitter, record: dict[str, Any]) -> None:
    objectid = object_id(out, record, "enterprise CA")
    if objectid is None:
        return
    kind = ADNode.EnterpriseCA
    properties = base_properties(record)
    _enrollment_endpoint_properties(record, properties)
    registry = lower_keys(record.get("caregistrydata"))
    _registry_properties(registry, properties)
    out.node(objectid, node_kinds(kind), properties)
    emit_container(out, record, objectid, kind)

    templates: list[str] = []
    for template in as_list(record.get("enabledcerttemplates")):
        template_id, _ = typed(template)
        if template_id:
            templates.append(template_id)
            out.edge(template_id, ADNode.CertTemplate, objectid, kind, ADEdge.PublishedTo, NOT_ACL)
    host = as_str(record.get("hostingcomputer"))
    out.edge(host, ADNode.Computer, objectid, kind, ADEdge.HostsCAService, NOT_ACL)
    _emit_enrollment_agents(out, lower_keys(registry.get("enrollmentagentrestrictions")), templates)
    emit_aces(out, _effective_aces(record, registry, host), objectid, kind, properties)


def _effective_aces(record: dict[str, Any], registry: dict[str, Any], host: str) -> list[Any]:
    aces = as_list(record.get("aces"))
    security = lower_keys(registry.get("casecurity"))
    if security.get("collected") is not True:
        return aces
    from_registry = [
        ace
        for ace in as_list(security.get("data"))
        if principal_kind(lower_keys(ace).get("principaltype")) != ADNode.LocalGroup
        and as_str(lower_keys(ace).get("rightname")) != ADEdge.Owns  # the directory ACL names the owner
    ]
    from_directory = [
        ace
        for ace in aces
        if as_str(lower_keys(ace).get("principalsid")).upper() == host.upper()
        or as_str(lower_keys(ace).get("rightname")) not in _REGISTRY_CONTROLLED_RIGHTS
    ]
    return from_registry + from_directory


def _emit_enrollment_agents(out: Emitter, restrictions: dict[str, Any], templates: list[str]) -> None:
    if restrictions.get("collected") is not True:
        return
    for raw in as_list(restrictions.get("restrictions")):
        restriction = lower_keys(raw)
        if restriction.get("accesstype") != ACCESS_ALLOWED_CALLBACK:
            continue
        agent, agent_kind = typed(restriction.get("agent"))
        targets = templates if restriction.get("alltemplates") is True else [typed(restriction.get("template"))[0]]
        for template in targets:
            out.edge(agent, agent_kind, template, ADNode.CertTemplate, ADEdge.DelegatedEnrollmentAgent, NOT_ACL)


def _registry_properties(registry: dict[str, Any], properties: dict[str, Any]) -> None:
    restrictions = lower_keys(registry.get("enrollmentagentrestrictions"))
    if restrictions.get("collected") is True:
        properties["hasenrollmentagentrestrictions"] = bool(as_list(restrictions.get("restrictions")))
    for field, prop in (("isuserspecifiessanenabled", "isuserspecifiessanenabled"),
                        ("roleseparationenabled", "roleseparationenabled")):  # fmt: skip
        value = lower_keys(registry.get(field))
        if value.get("collected") is True:
            properties[prop] = value.get("value")


def _enrollment_endpoint_properties(record: dict[str, Any], properties: dict[str, Any]) -> None:
    """Web enrollment endpoints an NTLM relay can target (HTTP, or HTTPS without EPA)."""
    http: list[str] = []
    https: list[str] = []
    collected = False
    for raw in as_list(record.get("httpenrollmentendpoints")):
        endpoint = lower_keys(raw)
        if endpoint.get("collected") is not True:
            continue
        collected = True
        result = lower_keys(endpoint.get("result"))
        url = as_str(result.get("url"))
        if result.get("adcswebenrollmenthttp") is True:
            http.append(url)
        if result.get("adcswebenrollmenthttps") is True and result.get("adcswebenrollmentepa") is not True:
            https.append(url)
    if http:
        properties["httpenrollmentendpoints"] = http
    if https:
        properties["httpsenrollmentendpoints"] = https
    if http or https:
        properties["hasvulnerableendpoint"] = True
    elif collected:
        properties["hasvulnerableendpoint"] = False
