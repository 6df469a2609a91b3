from __future__ import annotations

from houndgraph.deps import SessionDep
from houndgraph.feature_flag import service
from houndgraph.feature_flag.schemas import DogTags, FeatureFlagToggled, FeatureFlagView
from houndgraph.kit.envelopes import DataEnvelope
from houndgraph.kit.ids import parse_int_id


async def list_flags(session: SessionDep) -> DataEnvelope[list[FeatureFlagView]]:
    return DataEnvelope(data=[FeatureFlagView.of(flag) for flag in await service.list_flags(session)])


async def toggle_flag(feature_id: str, session: SessionDep) -> DataEnvelope[FeatureFlagToggled]:
    enabled = await service.toggle(session, parse_int_id(feature_id, bits=32, digits_only=True))
    return DataEnvelope(data=FeatureFlagToggled(enabled=enabled))


async def get_dog_tags() -> DataEnvelope[DogTags]:
    return DataEnvelope(data=DogTags.model_validate({}))
