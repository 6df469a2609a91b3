"""The reference's checks of an uploaded schema, in its order and with its messages: every name but an
environment's source kind starts with the extension's namespace and `_`, no kind is declared twice, environments
and findings name kinds the schema declares."""

from __future__ import annotations

import re
from typing import Any

from houndgraph.custom_node.service import COLOR
from houndgraph.errors import BadRequest
from houndgraph.extension.schemas import ExtensionPayload, KindInfo

VALIDATION_ERROR = "graph schema validation error"
# Namespaces owned by the service itself ("tag" names the privilege zones' kinds), compared without case.
RESERVED_NAMESPACES = ("tag",)
VERSION_PREFIX = "v"
SEMVER = re.compile(r"^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)"
                    r"(?:-((?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*)(?:\.(?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*))*))?"
                    r"(?:\+([0-9a-zA-Z-]+(?:\.[0-9a-zA-Z-]+)*))?$")
INT32 = range(-(2**31), 2**31)
# The reference's kind table holds names of up to 256 characters; longer ones are refused here rather than
# failing in the database's unique indexes.
MAX_NAME_LENGTH = 256


class SchemaInvalid(BadRequest):
    """A schema the reference refuses as a validation error: the message carries its prefix."""

    def __init__(self, reason: str) -> None:
        super().__init__(f"{VALIDATION_ERROR}: {reason}")


def reserved_namespace(name: str) -> str | None:
    for reserved in RESERVED_NAMESPACES:
        if name.lower() == reserved or (name[len(reserved):len(reserved) + 1] == "_"
                                        and name[:len(reserved)].lower() == reserved):
            return reserved
    return None


def _version_problem(version: str) -> str | None:
    if not version.startswith(VERSION_PREFIX):
        return f"version string {version} does not start with the prefix {VERSION_PREFIX}"
    if not SEMVER.match(version[len(VERSION_PREFIX):]):
        return "expected version to be formatted: <major>.<minor>.<patch>[-<prerelease>]"
    return None


def info_sections(owner: str, infos: dict[str, KindInfo]) -> list[dict[str, Any]]:
    """The entity panel's sections of a kind as stored; a position that does not fit 32 bits is refused."""
    sections = []
    for key, info in infos.items():
        if info.position not in INT32:
            raise BadRequest(f"error parsing {owner} info: invalid kind info position: position {info.position} "
                             f"for info key {key!r} is outside the int32 range")
        markdown = info.markdown if info.markdown is not None else {"content": ""}
        sections.append({"key": key, "title": info.title, "position": info.position,
                         "content": {"markdown": markdown}})
    return sections


def _without_namespace(name: str, namespace: str) -> str | None:
    prefix = f"{namespace}_"
    return name[len(prefix):] if name.startswith(prefix) else None


def _require_namespace(name: str, namespace: str, what: str) -> None:
    rest = _without_namespace(name, namespace)
    if rest is None:
        raise SchemaInvalid(f"graph schema {what} {name} is missing extension namespace prefix")
    if not rest.strip():
        raise SchemaInvalid(f"graph schema {what} cannot be empty after the namespace prefix")


def check(schema: ExtensionPayload) -> None:
    """Raise `SchemaInvalid` for the first problem the reference would report."""
    header = schema.header
    namespace = header.namespace
    if not header.name.strip():
        raise SchemaInvalid("graph schema extension name is required")
    if not header.version.strip():
        raise SchemaInvalid("graph schema extension version is required")
    if (problem := _version_problem(header.version)) is not None:
        raise SchemaInvalid(f"graph schema extension version is not valid semver: {problem}")
    if not namespace.strip():
        raise SchemaInvalid("graph schema extension namespace is required")
    if (reserved := reserved_namespace(namespace)) is not None:
        raise SchemaInvalid(f"graph schema extension namespace '{namespace}' uses reserved namespace '{reserved}'")
    if not schema.node_kinds:
        raise SchemaInvalid("graph schema node kinds are required")
    _check_lengths(schema)

    node_kinds: set[str] = set()
    for node in schema.node_kinds:
        _require_namespace(node.name, namespace, "node kind")
        if node.name in node_kinds:
            raise SchemaInvalid(f"duplicate graph kinds: {node.name}")
        if node.color and not COLOR.match(node.color):
            raise SchemaInvalid(f"invalid hex color string {node.color} for node kind {node.name}")
        node_kinds.add(node.name)

    edge_kinds: set[str] = set()
    for edge in schema.relationship_kinds:
        _require_namespace(edge.name, namespace, "edge kind")
        if edge.name in edge_kinds or edge.name in node_kinds:
            raise SchemaInvalid(f"duplicate graph kinds: {edge.name}")
        edge_kinds.add(edge.name)

    environments = _check_environments(schema, namespace, node_kinds, edge_kinds)
    _check_findings(schema, namespace, edge_kinds, environments)


def _check_lengths(schema: ExtensionPayload) -> None:
    names = [schema.header.name, schema.header.namespace, *(node.name for node in schema.node_kinds),
             *(edge.name for edge in schema.relationship_kinds),
             *(env.environment_kind for env in schema.environments), *(env.source_kind for env in schema.environments),
             *(kind for env in schema.environments for kind in env.principal_kinds),
             *(finding.name for finding in schema.relationship_findings)]
    for name in names:
        if len(name) > MAX_NAME_LENGTH:
            raise SchemaInvalid(f"graph schema name {name[:40]}... is longer than {MAX_NAME_LENGTH} characters")


def _check_environments(schema: ExtensionPayload, namespace: str, node_kinds: set[str],
                        edge_kinds: set[str]) -> set[str]:
    environments: set[str] = set()
    for environment in schema.environments:
        kind = environment.environment_kind
        _require_namespace(kind, namespace, "environment kind")
        if kind not in node_kinds:
            raise SchemaInvalid(f"graph schema environment {kind} not declared as a node kind")
        if kind in environments:
            raise SchemaInvalid(f"duplicate graph environments: {kind}")
        source = environment.source_kind
        if not source.strip():
            raise SchemaInvalid("graph schema environment source kind cannot be empty")
        if source in node_kinds:
            raise SchemaInvalid(f"graph schema environment source kind name {source} conflicts with existing node "
                                "kind")
        if source in edge_kinds:
            raise SchemaInvalid(f"graph schema environment source kind name {source} conflicts with existing "
                                "relationship kind")
        for principal in environment.principal_kinds:
            _require_namespace(principal, namespace, "environment principal kind")
            if principal not in node_kinds:
                raise SchemaInvalid(f"graph schema environment principal kind {principal} not declared node kind")
        environments.add(kind)
    return environments


def _check_findings(schema: ExtensionPayload, namespace: str, edge_kinds: set[str], environments: set[str]) -> None:
    findings: set[str] = set()
    for finding in schema.relationship_findings:
        _require_namespace(finding.name, namespace, "relationship finding")
        if finding.name in findings:
            raise SchemaInvalid(f"duplicate graph schema relationship finding: {finding.name}")
        kind = finding.relationship_kind
        if _without_namespace(kind, namespace) is None:
            raise SchemaInvalid(f"graph schema relationship finding relationship kind {kind} is missing extension "
                                "namespace prefix")
        if kind not in edge_kinds:
            raise SchemaInvalid(f"graph schema relationship finding relationship kind {kind} not declared as a "
                                "relationship kind")
        if finding.environment_kind and finding.environment_kind not in environments:
            raise SchemaInvalid(f"graph schema relationship finding environment kind {finding.environment_kind} "
                                "not declared as an environment")
        findings.add(finding.name)
