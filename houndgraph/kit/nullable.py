"""The reference's nullable wrappers: `{string, valid}`, `{time, valid}`, ... An absent time is written as
Go's zero time, as the reference does, so strict clients that expect a date-time string still parse it."""

from __future__ import annotations

import builtins
import uuid as uuidlib
from datetime import UTC, datetime

from pydantic import BaseModel

ZERO_TIME = datetime(1, 1, 1, tzinfo=UTC)


class NullString(BaseModel):
    string: str = ""
    valid: bool = False

    @classmethod
    def of(cls, value: str | None) -> NullString:
        return cls(string=value or "", valid=value is not None)


class NullTime(BaseModel):
    time: datetime = ZERO_TIME
    valid: bool = False

    @classmethod
    def of(cls, value: datetime | None) -> NullTime:
        return cls(time=value or ZERO_TIME, valid=value is not None)


class NullInt32(BaseModel):
    int32: int = 0
    valid: bool = False

    @classmethod
    def of(cls, value: int | None) -> NullInt32:
        return cls(int32=value or 0, valid=value is not None)


class NullInt64(BaseModel):
    int64: int = 0
    valid: bool = False

    @classmethod
    def of(cls, value: int | None) -> NullInt64:
        return cls(int64=value or 0, valid=value is not None)


class NullBool(BaseModel):
    bool: builtins.bool = False
    valid: builtins.bool = False

    @classmethod
    def of(cls, value: builtins.bool | None) -> NullBool:
        return cls(bool=builtins.bool(value), valid=value is not None)


class NullUUID(BaseModel):
    # Absent: the nil UUID, as Go writes the zero value (the spec types `uuid` as a string).
    uuid: uuidlib.UUID = uuidlib.UUID(int=0)
    valid: bool = False

    @classmethod
    def of(cls, value: uuidlib.UUID | None) -> NullUUID:
        return cls(uuid=value or uuidlib.UUID(int=0), valid=value is not None)


def or_zero(value: datetime | None) -> datetime:
    return value or ZERO_TIME
