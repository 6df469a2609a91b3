"""The property names the store itself reads or writes (everything else passes through untouched)."""

from __future__ import annotations

from enum import StrEnum


class StoreProperty(StrEnum):
    OBJECT_ID = "objectid"
    LAST_SEEN = "lastseen"
    COLLECTED = "collected"
    NAME = "name"
