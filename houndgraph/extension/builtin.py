"""The built-in AD and Azure extensions, as the reference lists them beside uploaded ones: their kinds come from
the package's own kind lists (`houndgraph.graph.kinds`) and are written at every start, so they follow them."""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy.orm import Session

from houndgraph.extension import repository
from houndgraph.graph.kinds import AD_TRAVERSABLE_EDGES, AZ_TRAVERSABLE_EDGES, ADEdge, ADNode, AZEdge, AZNode

BUILTIN_VERSION = "v0.0.1"
# Kinds of the service's own bookkeeping, not of the AD schema.
_INTERNAL_NODE_KINDS = frozenset({ADNode.Meta, ADNode.MetaDetail, ADNode.MetaIncludes})


@dataclass(frozen=True)
class BuiltinExtension:
    name: str
    display_name: str
    node_kinds: tuple[str, ...]
    # Each edge kind, and whether path finding follows it.
    edge_kinds: tuple[tuple[str, bool], ...]


BUILTIN_EXTENSIONS = (
    BuiltinExtension("AD", "Active Directory", tuple(k.value for k in ADNode if k not in _INTERNAL_NODE_KINDS),
                     tuple((k.value, k in AD_TRAVERSABLE_EDGES) for k in ADEdge)),
    BuiltinExtension("AZ", "Azure", tuple(k.value for k in AZNode),
                     tuple((k.value, k in AZ_TRAVERSABLE_EDGES) for k in AZEdge)),
)


def ensure_builtin_extensions(session: Session) -> None:
    """Write the built-in extensions and their kinds as the lists say now; safe when several processes start."""
    repository.lock_builtin_writes(session)
    for extension in BUILTIN_EXTENSIONS:
        extension_id = repository.upsert_builtin_extension(session, extension.name, extension.display_name,
                                                           BUILTIN_VERSION)
        repository.replace_builtin_kinds(session, extension_id, extension.node_kinds, extension.edge_kinds)
