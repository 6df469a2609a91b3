"""What the entity panels and their related lists answer.

The service builds these answers as plain dicts (a panel's properties are whatever was collected); the
models here declare them for the OpenAPI document, one panel model per AD entity so that its count keys
are listed. Optional keys are left out of an answer rather than sent as null (a count that timed out,
`kinds` and the counts when `counts=false`), so their schemas do not admit null.
"""

from __future__ import annotations

from typing import Any, TypeAlias

from pydantic import BaseModel, ConfigDict, Field, create_model
from pydantic.json_schema import SkipJsonSchema

from houndgraph.entity.ad_panels import Entity
from houndgraph.kit.envelopes import DataEnvelope, PageEnvelope
from houndgraph.kit.graph_shapes import BloodHoundGraph

PROPS_DESCRIPTION = "The node's properties (with `isTierZero` when `counts=false` and the node is Tier Zero)."
COUNT_DESCRIPTION = "How many related entities the list of the same name holds (left out when it timed out)."


# A key that is left out when it has no value (never sent as null).
OmittedCount: TypeAlias = int | SkipJsonSchema[None]
OmittedKinds: TypeAlias = list[str] | SkipJsonSchema[None]


def _python_name(key: str) -> str:
    return "count_" + "".join(c if c.isalnum() else "_" for c in key)


def entity_info_answer(entity: Entity) -> type[BaseModel]:
    """`{data: {props, kinds, <count>...}}` for one AD entity; `{data: {props}}` when counts are not asked for."""
    counts: dict[str, Any] = {
        _python_name(count.key): (OmittedCount, Field(None, alias=count.key, description=COUNT_DESCRIPTION))
        for count in entity.counts
    }
    name = "".join(part.capitalize() for part in entity.slug.split("-")) + "EntityInfo"
    info = create_model(
        name, __config__=ConfigDict(populate_by_name=True),
        props=(dict[str, Any], Field(description=PROPS_DESCRIPTION)),
        kinds=(OmittedKinds, Field(None, description="Left out when `counts=false`.")),
        **counts,
    )
    return create_model(f"{name}Answer", data=(info, ...))


class RelatedEntity(BaseModel):
    """Upstream `paged-node-list-entry`: `label` is the entity's display kind."""

    objectID: str  # noqa: N815 - the wire name
    name: str
    label: str
    kinds: list[str]


# `type=list` (the default) pages the related entities; `type=graph` writes the legacy graph map, without
# the `data` wrapper, as the reference does.
RelatedEntitiesAnswer = PageEnvelope[list[RelatedEntity]] | BloodHoundGraph


class MetaEntity(BaseModel):
    props: dict[str, Any]


class DomainCollected(BaseModel):
    collected: bool


class AzureNode(BaseModel):
    """The reference's `azure.Node`."""

    kind: str
    kinds: list[str]
    isTierZero: bool  # noqa: N815 - the wire name
    isOwnedObject: bool  # noqa: N815 - the wire name
    props: dict[str, Any]


class AzureDescendents(BaseModel):
    descendent_counts: dict[str, int]


class AzureEntityInfo(AzureNode):
    """An Azure panel: the node, then its counts, each a number or (key vault `Readers`) an object of them."""

    model_config = ConfigDict(extra="allow")
    __pydantic_extra__: dict[str, int | dict[str, int]] = Field(init=False)  # type: ignore[assignment]
    descendents: AzureDescendents | SkipJsonSchema[None] = None


# A panel in `{data}`; a related list (`related_entity_type=`) as a page or, `type=graph`, the legacy map.
AzureEntityAnswer = DataEnvelope[AzureEntityInfo] | PageEnvelope[list[AzureNode]] | BloodHoundGraph
MetaEntityAnswer = DataEnvelope[MetaEntity]
DomainCollectedAnswer = DataEnvelope[DomainCollected]
BloodHoundGraphAnswer = DataEnvelope[BloodHoundGraph]

# The graph-id look-ups (`GET /api/v2/nodes/{node_id}`, `GET /api/v2/relationships/{relationship_id}`). A kind's
# id is its id in the graph's kind table: this service has no OpenGraph schema tables, whose ids the reference gives.


class NodeKindView(BaseModel):
    node_kind_id: int | None
    name: str


class GraphNodeView(BaseModel):
    node_id: int
    kinds: list[NodeKindView]
    properties: dict[str, Any]


class RelationshipKindView(BaseModel):
    relationship_kind_id: int
    name: str


class GraphRelationshipView(BaseModel):
    relationship_id: int
    source_node_id: int
    target_node_id: int
    kind: RelationshipKindView
    properties: dict[str, Any]
