"""Loading the arrows.app harness pictures of ../shared/data/harnesses as analysis tests.

Conversion (data/README.md): a node's caption is its name, `properties.kind` its kind; other property
keys are lower-cased and their string values converted ("true"/"false" to booleans, integers to
numbers, "null" dropped). A relationship is an input edge of kind `type`, except the expected derived
edges: those marked `asserted: "true"` and, in the older pictures that mark nothing, those of the
kinds the harness is about (the caller names them).

The older pictures need a few mechanical repairs, each applied only where the picture is ambiguous:
* no `kind` properties: the kind is read from the caption ("Group1" is a Group, "DC" a Computer,
  "Authenticated Users" a Group, "AppAdminRole" an AZRole, ...), see `_KIND_BY_CAPTION`;
* typos and old names: relationship `PublisedTo` / `HostCAService` / an empty type between a domain
  or OU and what it holds (Contains); property `RequireManagerApproval`, `SchannelSchannel...`, `blocksInheritence`;
* the reference now requires an Enterprise CA to be hosted by an enabled Computer before any ESC or
  GoldenCert edge; pictures drawn before that rule get an enabled hosting Computer named
  "<CA> host" for each CA without one, and their CA-hosting Computers get `enabled: true`;
* a `name` property is dropped (the caption is the name); "Authenticated Users" gets an object id
  ending `-S-1-5-11` (that suffix is how analysis knows it);
  Domains are collected (`collected: true`); Azure roles named AppAdminRole / CloudAppAdminRole get the
  role template ids of Application Administrator / Cloud Application Administrator.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from houndgraph.graph.kinds import ADEdge, ADNode, AZNode
from tests.analysis.graphs import Graph
from tests.conftest import DATA

HARNESSES = DATA / "harnesses"
APPLICATION_ADMINISTRATOR = "9B895D92-2CD3-44C7-9D02-A6AC2D5EA5C3"
CLOUD_APPLICATION_ADMINISTRATOR = "158C047A-C907-4556-B7EF-446551A6B5F7"

# Longest prefixes first: "Domain Users" before "Domain", "EnterpriseCA" before "Enterprise...".
_KIND_BY_CAPTION: list[tuple[str, str]] = sorted([
    ("Authenticated Users", ADNode.Group), ("Domain Users", ADNode.Group), ("Domain", ADNode.Domain),
    ("EnterpriseCA", ADNode.EnterpriseCA), ("RootCA", ADNode.RootCA), ("NTAuthStore", ADNode.NTAuthStore),
    ("CertTemplate", ADNode.CertTemplate), ("Group", ADNode.Group), ("User", ADNode.User),
    ("Computer", ADNode.Computer), ("DC", ADNode.Computer), ("GPO", ADNode.GPO), ("OU", ADNode.OU),
    ("AZTenant", AZNode.Tenant), ("AZApp", AZNode.App), ("AZServicePrincipal", AZNode.ServicePrincipal),
    ("AZUser", AZNode.User), ("AppAdminRole", AZNode.Role), ("CloudAppAdminRole", AZNode.Role),
], key=lambda item: -len(item[0]))
_EDGE_TYPOS = {"PublisedTo": ADEdge.PublishedTo, "HostCAService": ADEdge.HostsCAService, "": ADEdge.Contains}
_PROPERTY_NAMES = {
    "requiremanagerapproval": "requiresmanagerapproval",
    "schannelschannelauthenticationenabled": "schannelauthenticationenabled",
    "blocksinheritence": "blocksinheritance",
}
_ROLE_TEMPLATES = {"AppAdminRole": APPLICATION_ADMINISTRATOR, "CloudAppAdminRole": CLOUD_APPLICATION_ADMINISTRATOR}


@dataclass
class Harness:
    name: str
    kinds: dict[str, str] = field(default_factory=dict)  # caption -> kind
    expected: set[tuple[str, str, str]] = field(default_factory=set)  # (start, kind, end)

    def expected_of(self, kind: str) -> set[tuple[str, str]]:
        return {(start, end) for start, edge_kind, end in self.expected if edge_kind == kind}


def convert(value: Any) -> Any:
    if not isinstance(value, str):
        return value
    lowered = value.strip().lower()
    if lowered in ("true", "false"):
        return lowered == "true"
    if lowered == "null":
        return None
    try:
        return int(value)
    except ValueError:
        return value


def _caption_kind(caption: str) -> str:
    for prefix, kind in _KIND_BY_CAPTION:
        if caption.startswith(prefix):
            return kind
    raise ValueError(f"cannot tell the kind of harness node {caption!r}")


def load(graph: Graph, file_name: str, derived_kinds: set[str]) -> Harness:
    picture = json.loads((HARNESSES / file_name).read_text())
    harness = Harness(file_name)
    captions: dict[str, str] = {}
    connected = {r["fromId"] for r in picture["relationships"]} | {r["toId"] for r in picture["relationships"]}
    for node in picture["nodes"]:
        caption = node["caption"].strip()
        if not caption and node["id"] not in connected:
            continue  # a stray empty shape in the picture
        captions[node["id"]] = caption
        raw = node.get("properties", {})
        kind = raw.get("kind") or _caption_kind(caption)
        harness.kinds[caption] = kind
    hosted: set[str] = set()
    edges: list[tuple[str, str, str, dict[str, Any]]] = []
    for relationship in picture["relationships"]:
        start, end = captions[relationship["fromId"]], captions[relationship["toId"]]
        properties = {key.lower(): convert(value) for key, value in relationship.get("properties", {}).items()}
        kind = _EDGE_TYPOS.get(relationship["type"], relationship["type"])
        if properties.pop("asserted", False) is True or kind in derived_kinds:
            harness.expected.add((start, kind, end))
            continue
        if kind == ADEdge.HostsCAService:
            hosted.add(start)
        edges.append((start, kind, end, properties))
    for node in picture["nodes"]:
        if node["id"] not in captions:
            continue
        caption = captions[node["id"]]
        kind = harness.kinds[caption]
        properties = {}
        for key, value in node.get("properties", {}).items():
            key = _PROPERTY_NAMES.get(key.lower(), key.lower())
            if key in ("kind", "var name", "name") or convert(value) is None:
                continue
            properties[key] = convert(value)
        objectid = properties.pop("objectid", None) or caption.upper().replace(" ", "_")
        if caption == "Authenticated Users":
            objectid = "HARNESS-S-1-5-11"
        if kind == ADNode.Domain:
            properties.setdefault("collected", True)
        if caption in hosted:
            properties.setdefault("enabled", True)
        if caption in _ROLE_TEMPLATES:
            properties["roletemplateid"] = _ROLE_TEMPLATES[caption]
        graph.node(caption, kind, objectid=objectid, **properties)
    hosted_cas = {end for start, kind, end, _ in edges if kind == ADEdge.HostsCAService}
    for caption, kind in harness.kinds.items():
        if kind == ADNode.EnterpriseCA and caption not in hosted_cas:
            host = f"{caption} host"
            graph.node(host, ADNode.Computer, enabled=True)
            edges.append((host, ADEdge.HostsCAService, caption, {}))
    for start, kind, end, properties in edges:
        graph.edge(start, kind, end, **properties)
    graph.load()
    return harness
