"""The numbers privilege zones are made of (reference/behaviour.md §3), shared by analysis and the API."""

from __future__ import annotations

from dataclasses import dataclass
from enum import IntEnum

TAG_KIND_PREFIX = "Tag_"
TIER_ZERO_NAME = "Tier Zero"
OWNED_NAME = "Owned"
# Who the analysis writes as when it certifies automatically, and who made the default rows.
ANALYSIS_ACTOR = "BloodHound"
SYSTEM_ACTOR = "SYSTEM"


class TagType(IntEnum):
    """Zones are tiers ordered by position (a node belongs to one); labels and owned are flat."""

    ZONE = 1
    LABEL = 2
    OWNED = 3
    # Accounts kept out of the predefined attack-path queries (BloodHound 9.x); selected members only.
    DECOY = 4


class SeedType(IntEnum):
    OBJECT_ID = 1
    CYPHER = 2


class NodeSource(IntEnum):
    """Why a selector selected a node: it is a seed, or a child or a parent of one."""

    SEED = 1
    CHILD = 2
    PARENT = 3


class Certification(IntEnum):
    """Certification states as the newest reference UI client numbers them."""

    PENDING = 0
    REVOKED = 1
    MANUAL = 2
    AUTO = 3


class CertifyAction(IntEnum):
    REVOKE = 1
    CERTIFY = 2


class AutoCertify(IntEnum):
    OFF = 0
    ALL_MEMBERS = 1
    SEEDS_ONLY = 2


class Expansion(IntEnum):
    """How far seeds reach: zones take children then parents, labels children, owned nothing."""

    NONE = 0
    ALL = 1
    CHILDREN = 2
    PARENTS = 3


EXPANSION_OF_TYPE = {TagType.ZONE: Expansion.ALL, TagType.LABEL: Expansion.CHILDREN, TagType.OWNED: Expansion.NONE,
                     TagType.DECOY: Expansion.NONE}


def tag_kind(name: str) -> str:
    """The graph kind a tag's members carry: `Tag_` + its name with spaces as underscores."""
    return TAG_KIND_PREFIX + name.replace(" ", "_")


@dataclass(frozen=True, slots=True)
class Seed:
    type: SeedType
    value: str
