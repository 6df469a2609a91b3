from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from houndgraph.models import CustomNodeKind


class Icon(BaseModel):
    model_config = ConfigDict(extra="ignore")

    type: str = ""
    name: str = ""
    color: str = ""


class KindConfig(BaseModel):
    model_config = ConfigDict(extra="ignore")

    icon: Icon = Icon()


class CustomNodeKindView(BaseModel):
    """As the reference writes it: the kind's name in camel case."""

    model_config = ConfigDict(populate_by_name=True)

    id: int
    kind_name: str = Field(serialization_alias="kindName")
    config: KindConfig

    @classmethod
    def of(cls, row: CustomNodeKind) -> CustomNodeKindView:
        return cls(id=row.id, kind_name=row.kind_name, config=KindConfig.model_validate(row.config))


class CreateCustomNodes(BaseModel):
    model_config = ConfigDict(extra="ignore")

    custom_types: dict[str, KindConfig] = {}


class UpdateCustomNode(BaseModel):
    model_config = ConfigDict(extra="ignore")

    config: KindConfig = KindConfig()
