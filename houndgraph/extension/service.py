"""Uploading, listing and deleting OpenGraph schema extensions, and the edge kinds they make path finding follow.

Everything here answers 404 while the flag `opengraph_extension_management` is off, as the reference's routes do.
An upload replaces the extension of the same name whole: kinds it no longer declares are dropped, kinds it still
declares keep their ids. A display node kind also sets how the UI draws nodes of that kind (the custom node kinds
of `/api/v2/custom-nodes`); deleting the extension keeps that setting, as the reference does."""

from __future__ import annotations

import io
import json
import zipfile
from collections.abc import Callable, Mapping, Sequence
from typing import Any, TypeVar

import psycopg
from pydantic import ValidationError
from sqlalchemy import ColumnElement, and_, or_
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession

from houndgraph.auth.context import AuthContext
from houndgraph.custom_node import service as custom_node_service
from houndgraph.db import request_start
from houndgraph.errors import ID_MALFORMED, BadRequest, Forbidden, NotFound, UnsupportedMediaType
from houndgraph.extension import repository
from houndgraph.extension.repository import EdgeKindRow
from houndgraph.extension.schemas import ExtensionPayload
from houndgraph.extension.validation import SchemaInvalid, check, info_sections
from houndgraph.feature_flag import service as feature_flag_service
from houndgraph.feature_flag.flag_keys import FeatureFlagKey
from houndgraph.kit.filters import ID_PREDICATES, STRING_PREDICATES, FilterColumn, Predicate, as_bool, parse_filters
from houndgraph.models import (
    SchemaEnvironment,
    SchemaExtension,
    SchemaNodeKind,
    SchemaRelationshipFinding,
    SchemaRelationshipKind,
)

NOT_ADMIN_TO_WRITE = "user does not have sufficient permissions to create or update an extension"
NOT_ADMIN_TO_DELETE = "user does not have sufficient permissions to delete an extension"
UNDECODABLE = "unable to decode graph extension payload"
BUILTIN_REPLACED = "graph schema upsert error: cannot modify a built-in graph extension"
BUILTIN_DELETED = "built-in extensions cannot be deleted"
CONCURRENT_UPLOAD = "another upload declared the same extension, namespace or kinds at the same time"
JSON_TYPE = "application/json"
ZIP_TYPES = ("application/zip", "application/x-zip-compressed", "application/zip-compressed")
# The parts of an extension bundle (a zip); only the schema is read, as in the reference.
SCHEMA_FILE, ZONE_RULES_FILE, SAVED_QUERIES_FILE = "schema.json", "pz_rules.json", "saved_queries.json"
# A part of a bundle is read whole: no bigger than a JSON body may be (a small archive may unpack to gigabytes).
MAX_PART_BYTES = 10 * 1024 * 1024
EDGE_KIND_FILTERS = {
    "is_traversable": FilterColumn(ID_PREDICATES, as_bool),
    "schema_names": FilterColumn(STRING_PREDICATES),
}
Row = TypeVar("Row", SchemaNodeKind, SchemaRelationshipKind, SchemaEnvironment, SchemaRelationshipFinding)


async def _require_enabled(session: AsyncSession) -> None:
    if not await feature_flag_service.is_enabled(session, FeatureFlagKey.OPENGRAPH_EXTENSION_MANAGEMENT):
        raise NotFound()


# --- reading an upload ----------------------------------------------------------------------------

def _media_type(content_type: str | None) -> str:
    return (content_type or "").split(";", 1)[0].strip().lower()


def _decoded(raw: bytes) -> ExtensionPayload:
    try:
        text = raw.decode("utf-8-sig")
        if not text.strip():
            raise BadRequest(f"{UNDECODABLE}: EOF")
        return ExtensionPayload.model_validate_json(text)
    except UnicodeDecodeError:
        raise BadRequest("failed to normalize json payload: the body is not UTF-8") from None
    except ValidationError as error:
        problem = error.errors()[0]
        where = ".".join(str(part) for part in problem.get("loc", ())) or "payload"
        raise BadRequest(f"{UNDECODABLE}: {where}: {problem.get('msg', 'invalid')}") from None


def _schema_from_bundle(raw: bytes) -> ExtensionPayload:
    """The schema of an extension bundle; its other parts are checked to be JSON but not used yet (the reference
    does not use them either)."""
    try:
        archive = zipfile.ZipFile(io.BytesIO(raw))
    except zipfile.BadZipFile as error:
        raise BadRequest(f"unable to open zip archive: {error}") from None
    schema: ExtensionPayload | None = None
    problems = []
    seen: set[str] = set()
    with archive:
        for entry in archive.infolist():
            if entry.is_dir():
                continue
            if entry.filename not in (SCHEMA_FILE, ZONE_RULES_FILE, SAVED_QUERIES_FILE):
                problems.append(f"unexpected file {entry.filename.rsplit('/', 1)[-1]!r} in zip archive")
                continue
            if entry.filename in seen:
                problems.append(f"duplicate component {entry.filename!r} in zip archive")
                continue
            seen.add(entry.filename)
            if entry.file_size > MAX_PART_BYTES:
                raise BadRequest(f"{entry.filename} in zip archive is larger than {MAX_PART_BYTES} bytes")
            with archive.open(entry) as part:
                content = part.read(MAX_PART_BYTES + 1)
            if len(content) > MAX_PART_BYTES:
                raise BadRequest(f"{entry.filename} in zip archive is larger than {MAX_PART_BYTES} bytes")
            if entry.filename == SCHEMA_FILE:
                schema = _decoded(content)
            else:
                try:
                    json.loads(content.decode("utf-8-sig"))
                except (UnicodeDecodeError, json.JSONDecodeError) as error:
                    problems.append(f"unable to decode {entry.filename}: {error}")
    if problems:
        raise BadRequest("\n".join(problems))
    if schema is None:
        raise BadRequest(f"required component {SCHEMA_FILE!r} not found in extension bundle")
    if schema.relationship_findings and ZONE_RULES_FILE not in seen:
        raise BadRequest(f"extension declares relationship findings and requires a {ZONE_RULES_FILE!r} component")
    return schema


def read_upload(content_type: str | None, raw: bytes) -> ExtensionPayload:
    media_type = _media_type(content_type)
    if media_type == JSON_TYPE:
        return _decoded(raw)
    if media_type in ZIP_TYPES:
        return _schema_from_bundle(raw)
    sent = f"[{content_type}]" if content_type else "[]"
    raise UnsupportedMediaType(f"invalid content-type: {sent}; Content type must be application/json")


# --- writing an upload ----------------------------------------------------------------------------

async def upload(session: AsyncSession, auth: AuthContext, content_type: str | None, raw: bytes) -> bool:
    """Create or replace the extension the upload describes; True when it replaced one of the same name."""
    try:
        return await _upload(session, auth, content_type, raw)
    except IntegrityError:
        # Another upload committed the same name, namespace or kind between the checks and the writes.
        raise SchemaInvalid(CONCURRENT_UPLOAD) from None


async def _upload(session: AsyncSession, auth: AuthContext, content_type: str | None, raw: bytes) -> bool:
    await _require_enabled(session)
    if not auth.is_administrator:
        raise Forbidden(NOT_ADMIN_TO_WRITE)
    schema = read_upload(content_type, raw)
    node_infos = {node.name: info_sections(f"node kind {node.name}", node.info) for node in schema.node_kinds}
    edge_infos = {edge.name: info_sections(f"relationship kind {edge.name}", edge.info)
                  for edge in schema.relationship_kinds}
    check(schema)
    header = schema.header
    extension = await repository.by_name(session, header.name)
    if extension is not None and extension.is_builtin:
        raise BadRequest(BUILTIN_REPLACED)
    await _check_against_other_extensions(session, schema, extension.id if extension else None)
    existed = extension is not None
    if extension is None:
        extension = SchemaExtension(name=header.name, display_name="", version="", namespace="")
    extension.display_name = header.display_name or header.name
    extension.version, extension.namespace = header.version, header.namespace
    if existed:
        await repository.save(session)
    else:
        await repository.add(session, extension)

    nodes = await _reconcile(session, await repository.node_kinds_of(session, extension.id),
                             {node.name: node for node in schema.node_kinds}, lambda row: row.name,
                             lambda name: SchemaNodeKind(extension_id=extension.id, name=name),
                             lambda row, node: _set_node(row, node, node_infos[node.name]))
    await _reconcile(session, await repository.edge_kinds_of(session, extension.id),
                     {edge.name: edge for edge in schema.relationship_kinds}, lambda row: row.name,
                     lambda name: SchemaRelationshipKind(extension_id=extension.id, name=name),
                     lambda row, edge: _set_edge(row, edge, edge_infos[edge.name]))
    await _reconcile(session, await repository.environments_of(session, extension.id),
                     {env.environment_kind: env for env in schema.environments}, lambda row: row.environment_kind,
                     lambda kind: SchemaEnvironment(extension_id=extension.id, environment_kind=kind),
                     _set_environment)
    await _reconcile(session, await repository.findings_of(session, extension.id),
                     {finding.name: finding for finding in schema.relationship_findings}, lambda row: row.name,
                     lambda name: SchemaRelationshipFinding(extension_id=extension.id, name=name), _set_finding)
    for row in nodes:
        if row.is_display_kind:
            await custom_node_service.draw_schema_kind(session, row.name, row.icon, row.icon_color, row.id)
    return existed


async def _check_against_other_extensions(session: AsyncSession, schema: ExtensionPayload,
                                          extension_id: int | None) -> None:
    """What another extension already holds: its namespace, a kind, an environment or a finding."""
    if await repository.namespace_taken(session, schema.header.namespace, extension_id):
        _duplicate("duplicate graph schema extension namespace", schema.header.namespace)
    names = [node.name for node in schema.node_kinds] + [edge.name for edge in schema.relationship_kinds]
    nodes, edges = await repository.kinds_declared_elsewhere(session, names, extension_id)
    if nodes:
        _duplicate("duplicate schema node kind name", nodes[0])
    if edges:
        _duplicate("duplicate schema relationship kind name", edges[0])
    if extension_id is None:
        extension_id = -1
    environments = await repository.environment_kinds_elsewhere(
        session, [env.environment_kind for env in schema.environments], extension_id)
    if environments:
        _duplicate("duplicate schema environment", environments[0])
    findings = await repository.finding_names_elsewhere(
        session, [finding.name for finding in schema.relationship_findings], extension_id)
    if findings:
        _duplicate("duplicate schema finding name", findings[0])


def _duplicate(what: str, name: str) -> None:
    raise SchemaInvalid(f"{what}: {name}")


async def _reconcile(session: AsyncSession, existing: Sequence[Row], wanted: Mapping[str, Any],
                     key: Callable[[Row], str], create: Callable[[str], Row],
                     update: Callable[[Row, Any], None]) -> list[Row]:
    """Rows become exactly `wanted`: absent ones deleted, the others updated in place (ids kept) or created."""
    kept = {key(row): row for row in existing if key(row) in wanted}
    await repository.remove_all(session, [row for row in existing if key(row) not in wanted])
    rows = []
    for name, item in wanted.items():
        row = kept.get(name) or create(name)
        update(row, item)
        rows.append(row)
    await repository.add_all(session, [row for name, row in zip(wanted, rows, strict=True) if name not in kept])
    return rows


def _set_node(row: SchemaNodeKind, node: Any, info: list[dict[str, Any]]) -> None:
    row.display_name, row.description, row.is_display_kind = node.display_name, node.description, node.is_display_kind
    row.icon, row.icon_color, row.info = node.icon, node.color, info


def _set_edge(row: SchemaRelationshipKind, edge: Any, info: list[dict[str, Any]]) -> None:
    row.description, row.is_traversable, row.info = edge.description, edge.is_traversable, info


def _set_environment(row: SchemaEnvironment, environment: Any) -> None:
    row.source_kind, row.principal_kinds = environment.source_kind, list(environment.principal_kinds)


def _set_finding(row: SchemaRelationshipFinding, finding: Any) -> None:
    row.display_name, row.relationship_kind = finding.display_name, finding.relationship_kind
    row.environment_kind, row.remediation = finding.environment_kind, finding.remediation.model_dump()


# --- listing and deleting ---------------------------------------------------------------------------

async def list_extensions(session: AsyncSession) -> list[SchemaExtension]:
    await _require_enabled(session)
    return await repository.list_extensions(session)


def _extension_id(raw: str) -> int:
    if not raw.strip().lstrip("+-").isdigit():
        raise BadRequest(ID_MALFORMED)
    value = int(raw)
    if not -(2**31) <= value < 2**31:  # the reference reads it as a 32-bit integer
        raise BadRequest(ID_MALFORMED)
    return value


async def delete(session: AsyncSession, auth: AuthContext, raw_id: str) -> None:
    await _require_enabled(session)
    if not auth.is_administrator:
        raise Forbidden(NOT_ADMIN_TO_DELETE)
    extension = await repository.get(session, _extension_id(raw_id))
    if extension is None:
        raise NotFound(f"no extension found matching extension id: {raw_id}")
    if extension.is_builtin:
        raise BadRequest(BUILTIN_DELETED)
    await repository.remove(session, extension)


# --- edge kinds -------------------------------------------------------------------------------------

def _edge_kind_condition(params: list[tuple[str, str]]) -> ColumnElement[bool] | None:
    """Filters of the same column are joined by OR for `schema_names` (any of these extensions), AND otherwise."""
    traversable: list[ColumnElement[bool]] = []
    schemas: list[ColumnElement[bool]] = []
    for item in parse_filters(params, EDGE_KIND_FILTERS):
        if item.column == "is_traversable":
            column = SchemaRelationshipKind.is_traversable
            traversable.append(column == item.value if item.predicate == Predicate.EQ else column != item.value)
            continue
        name = SchemaExtension.name
        if item.predicate == Predicate.EQ:
            schemas.append(name == item.value)
        elif item.predicate == Predicate.NEQ:
            schemas.append(name != item.value)
        else:
            pattern = "%" + str(item.value).replace("\\", "\\\\").replace("%", r"\%").replace("_", r"\_") + "%"
            schemas.append(name.ilike(pattern, escape="\\"))
    clauses = [*traversable, *([or_(*schemas)] if schemas else [])]
    return and_(*clauses) if clauses else None


async def list_edge_kinds(session: AsyncSession, params: list[tuple[str, str]]) -> list[EdgeKindRow]:
    await _require_enabled(session)
    return await repository.edge_kinds(session, _edge_kind_condition(params))


def traversable_edge_kinds_on(conn: psycopg.Connection) -> tuple[str, ...]:
    """For the datapipe's analysis, on its psycopg connection: the traversable edge kinds uploaded extensions
    declare, sorted; none while extension management is off."""
    if not feature_flag_service.enabled_on(conn, FeatureFlagKey.OPENGRAPH_EXTENSION_MANAGEMENT):
        return ()
    return tuple(repository.uploaded_traversable_edge_kinds_on(conn))


# What `uploaded_edge_kinds` answered (by `only_traversable`), with the cache generation it was read at: the flag's
# toggle and an extension's upload or deletion move the generation (auth/cache_generation.sql), so the shortest-path
# route, which asks at every request, reads them again only after a change.
# Kept by database too (the id in the edges' version: `db.RequestStart`): a process of the tests serves several.
_kept_edge_kinds: dict[tuple[str, bool], tuple[int, frozenset[str]]] = {}


async def uploaded_edge_kinds(session: AsyncSession, only_traversable: bool) -> frozenset[str]:
    """The edge kinds uploaded extensions make path finding follow (only the traversable ones when asked);
    none while extension management is off."""
    start = request_start(session)
    key = (start.edge_version.partition(".")[0] if start else "", only_traversable)
    generation = start.generation if start else None
    kept = _kept_edge_kinds.get(key)
    if generation is not None and kept is not None and kept[0] == generation:
        return kept[1]
    found: frozenset[str] = frozenset()
    if await feature_flag_service.is_enabled(session, FeatureFlagKey.OPENGRAPH_EXTENSION_MANAGEMENT):
        found = frozenset(await repository.uploaded_edge_kind_names(session, only_traversable))
    # A request that began before the newest generation seen keeps nothing: what it read may be older.
    if generation is not None and (kept is None or generation > kept[0]):
        _kept_edge_kinds[key] = (generation, found)
    return found
