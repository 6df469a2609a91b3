"""The schema file an extension is uploaded as, and the answers of the extension routes.

The file is read as the reference's Go decoder reads it: unknown keys are ignored, `null` leaves a field at its
zero value, and a value of the wrong JSON type is refused."""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Any

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field


def _null_as(zero: Callable[[], Any]) -> BeforeValidator:
    return BeforeValidator(lambda value: zero() if value is None else value)


Text = Annotated[str, _null_as(str)]
Flag = Annotated[bool, _null_as(bool)]
Position = Annotated[int, _null_as(int)]
Texts = Annotated[list[str], _null_as(list)]


class Payload(BaseModel):
    model_config = ConfigDict(strict=True, extra="ignore", populate_by_name=True)


class KindInfo(Payload):
    """One section of the entity panel for a kind; `markdown` is kept as sent (`{"content": "..."}`)."""

    title: Text = ""
    position: Position = 0
    markdown: Any = None


Infos = Annotated[dict[str, KindInfo], _null_as(dict)]


class ExtensionHeader(Payload):
    name: Text = ""
    display_name: Text = ""
    version: Text = ""
    namespace: Text = ""


class NodeKindPayload(Payload):
    name: Text = ""
    display_name: Text = ""
    description: Text = ""
    is_display_kind: Flag = False
    icon: Text = ""
    color: Text = ""
    info: Infos = {}


class RelationshipKindPayload(Payload):
    name: Text = ""
    description: Text = ""
    is_traversable: Flag = False
    info: Infos = {}


class EnvironmentPayload(Payload):
    environment_kind: Text = ""
    source_kind: Text = ""
    principal_kinds: Texts = []


class RemediationPayload(Payload):
    short_description: Text = ""
    long_description: Text = ""
    short_remediation: Text = ""
    long_remediation: Text = ""


class RelationshipFindingPayload(Payload):
    name: Text = ""
    display_name: Text = ""
    relationship_kind: Text = ""
    environment_kind: Text = ""
    remediation: Annotated[RemediationPayload, _null_as(RemediationPayload)] = RemediationPayload()


class ExtensionPayload(Payload):
    """The schema file (`schema.json` when sent in a zip bundle)."""

    header: Annotated[ExtensionHeader, _null_as(ExtensionHeader)] = Field(ExtensionHeader(), alias="schema")
    node_kinds: Annotated[list[NodeKindPayload], _null_as(list)] = []
    relationship_kinds: Annotated[list[RelationshipKindPayload], _null_as(list)] = []
    environments: Annotated[list[EnvironmentPayload], _null_as(list)] = []
    relationship_findings: Annotated[list[RelationshipFindingPayload], _null_as(list)] = []


class ExtensionView(BaseModel):
    id: int
    name: str = Field(description="The extension's display name.")
    namespace: str
    version: str
    is_builtin: bool


class ExtensionList(BaseModel):
    extensions: list[ExtensionView]


class EdgeKindView(BaseModel):
    id: int
    name: str
    description: str
    is_traversable: bool
    schema_name: str = Field(description="The name of the extension that declares the kind.")
    is_builtin: bool
