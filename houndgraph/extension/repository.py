"""SQL of schema extensions and the kinds they declare."""

from __future__ import annotations

from collections.abc import Sequence

import psycopg
from sqlalchemy import ColumnElement, delete, func, or_, select, text
from sqlalchemy.dialects.postgresql import insert
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.orm import Session

from houndgraph.models import (
    SchemaEnvironment,
    SchemaExtension,
    SchemaNodeKind,
    SchemaRelationshipFinding,
    SchemaRelationshipKind,
)

# Any number: held while a process writes the built-in extensions, so that processes starting together take turns.
BUILTIN_WRITE_LOCK = 0x68675F6578  # "hg_ex"
EdgeKindRow = tuple[SchemaRelationshipKind, str, bool]  # the kind, its extension's name, whether it is built in


# --- the built-in extensions, written at start (synchronous) -----------------------------------

def lock_builtin_writes(session: Session) -> None:
    session.execute(text("SELECT pg_advisory_xact_lock(:id)"), {"id": BUILTIN_WRITE_LOCK})


def upsert_builtin_extension(session: Session, name: str, display_name: str, version: str) -> int:
    values = insert(SchemaExtension).values(name=name, display_name=display_name, version=version,
                                            namespace=name, is_builtin=True)
    statement = values.on_conflict_do_update(
        index_elements=[SchemaExtension.name],
        set_={"display_name": display_name, "version": version, "namespace": name, "is_builtin": True,
              "updated_at": func.now()},
    ).returning(SchemaExtension.id)
    return int(session.execute(statement).scalar_one())


def replace_builtin_kinds(session: Session, extension_id: int, node_kinds: Sequence[str],
                          edge_kinds: Sequence[tuple[str, bool]]) -> None:
    """The extension's kinds become exactly these; a row already as listed is left alone."""
    session.execute(delete(SchemaNodeKind).where(SchemaNodeKind.extension_id == extension_id,
                                                 SchemaNodeKind.name.not_in(node_kinds)))
    session.execute(delete(SchemaRelationshipKind).where(
        SchemaRelationshipKind.extension_id == extension_id,
        SchemaRelationshipKind.name.not_in([name for name, _ in edge_kinds])))
    if node_kinds:
        nodes = insert(SchemaNodeKind).values([{"extension_id": extension_id, "name": name, "display_name": name}
                                               for name in node_kinds])
        session.execute(nodes.on_conflict_do_update(
            index_elements=[SchemaNodeKind.name], set_={"extension_id": extension_id},
            where=SchemaNodeKind.extension_id != extension_id))
    if edge_kinds:
        edges = insert(SchemaRelationshipKind).values([
            {"extension_id": extension_id, "name": name, "is_traversable": traversable}
            for name, traversable in edge_kinds])
        session.execute(edges.on_conflict_do_update(
            index_elements=[SchemaRelationshipKind.name],
            set_={"extension_id": extension_id, "is_traversable": edges.excluded.is_traversable,
                  "updated_at": func.now()},
            where=or_(SchemaRelationshipKind.extension_id != extension_id,
                      SchemaRelationshipKind.is_traversable != edges.excluded.is_traversable)))


# --- extensions ---------------------------------------------------------------------------------

async def list_extensions(session: AsyncSession) -> list[SchemaExtension]:
    return list(await session.scalars(select(SchemaExtension).order_by(SchemaExtension.display_name,
                                                                       SchemaExtension.id)))


async def get(session: AsyncSession, extension_id: int) -> SchemaExtension | None:
    return await session.get(SchemaExtension, extension_id)


async def by_name(session: AsyncSession, name: str) -> SchemaExtension | None:
    return await session.scalar(select(SchemaExtension).where(SchemaExtension.name == name))


async def namespace_taken(session: AsyncSession, namespace: str, other_than: int | None) -> bool:
    condition = SchemaExtension.namespace == namespace
    if other_than is not None:
        condition = condition & (SchemaExtension.id != other_than)
    return await session.scalar(select(func.count()).where(condition)) != 0


async def add(session: AsyncSession, extension: SchemaExtension) -> None:
    session.add(extension)
    await session.flush()


async def remove(session: AsyncSession, extension: SchemaExtension) -> None:
    await session.delete(extension)
    await session.flush()


# --- what an extension declares -----------------------------------------------------------------

async def kinds_declared_elsewhere(session: AsyncSession, names: Sequence[str], extension_id: int | None
                                   ) -> tuple[list[str], list[str]]:
    """Which of `names` another extension declares, as a node kind and as an edge kind."""
    other = -1 if extension_id is None else extension_id
    nodes = await session.scalars(select(SchemaNodeKind.name).where(
        SchemaNodeKind.name.in_(names), SchemaNodeKind.extension_id != other).order_by(SchemaNodeKind.name))
    edges = await session.scalars(select(SchemaRelationshipKind.name).where(
        SchemaRelationshipKind.name.in_(names), SchemaRelationshipKind.extension_id != other)
        .order_by(SchemaRelationshipKind.name))
    return list(nodes), list(edges)


async def node_kinds_of(session: AsyncSession, extension_id: int) -> list[SchemaNodeKind]:
    return list(await session.scalars(select(SchemaNodeKind).where(SchemaNodeKind.extension_id == extension_id)))


async def edge_kinds_of(session: AsyncSession, extension_id: int) -> list[SchemaRelationshipKind]:
    return list(await session.scalars(select(SchemaRelationshipKind)
                                      .where(SchemaRelationshipKind.extension_id == extension_id)))


async def environments_of(session: AsyncSession, extension_id: int) -> list[SchemaEnvironment]:
    return list(await session.scalars(select(SchemaEnvironment).where(SchemaEnvironment.extension_id == extension_id)))


async def findings_of(session: AsyncSession, extension_id: int) -> list[SchemaRelationshipFinding]:
    return list(await session.scalars(select(SchemaRelationshipFinding)
                                      .where(SchemaRelationshipFinding.extension_id == extension_id)))


async def environment_kinds_elsewhere(session: AsyncSession, kinds: Sequence[str], extension_id: int) -> list[str]:
    return list(await session.scalars(select(SchemaEnvironment.environment_kind).where(
        SchemaEnvironment.environment_kind.in_(kinds), SchemaEnvironment.extension_id != extension_id)))


async def finding_names_elsewhere(session: AsyncSession, names: Sequence[str], extension_id: int) -> list[str]:
    return list(await session.scalars(select(SchemaRelationshipFinding.name).where(
        SchemaRelationshipFinding.name.in_(names), SchemaRelationshipFinding.extension_id != extension_id)))


async def add_all(session: AsyncSession, rows: Sequence[object]) -> None:
    session.add_all(rows)
    await session.flush()


async def remove_all(session: AsyncSession, rows: Sequence[object]) -> None:
    for row in rows:
        await session.delete(row)
    await session.flush()


async def save(session: AsyncSession) -> None:
    await session.flush()


# --- edge kinds, for listing and for path finding ---------------------------------------------

async def edge_kinds(session: AsyncSession, condition: ColumnElement[bool] | None) -> list[EdgeKindRow]:
    statement = (select(SchemaRelationshipKind, SchemaExtension.name, SchemaExtension.is_builtin)
                 .join(SchemaExtension, SchemaExtension.id == SchemaRelationshipKind.extension_id)
                 .order_by(SchemaRelationshipKind.id))
    if condition is not None:
        statement = statement.where(condition)
    return [(row[0], row[1], row[2]) for row in (await session.execute(statement)).all()]


async def uploaded_edge_kind_names(session: AsyncSession, only_traversable: bool) -> set[str]:
    """The edge kinds uploaded extensions declare (the built-in ones are the package's own lists)."""
    statement = (select(SchemaRelationshipKind.name)
                 .join(SchemaExtension, SchemaExtension.id == SchemaRelationshipKind.extension_id)
                 .where(SchemaExtension.is_builtin.is_(False)))
    if only_traversable:
        statement = statement.where(SchemaRelationshipKind.is_traversable.is_(True))
    return set(await session.scalars(statement))


def uploaded_traversable_edge_kinds_on(conn: psycopg.Connection) -> list[str]:
    rows = conn.execute("SELECT k.name FROM schema_relationship_kinds k JOIN schema_extensions x "
                        "ON x.id = k.extension_id WHERE k.is_traversable AND NOT x.is_builtin ORDER BY k.name")
    return [str(row[0]) for row in rows]
