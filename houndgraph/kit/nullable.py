"""How the reference writes its nullable values on the wire.

Its `null.String`, `null.Int32`, `null.Time`, ... and gofrs' `uuid.NullUUID` marshal as the plain value or
`null`, so those fields are plain optional fields in the older domains (`str | None`, ...); the upstream spec's
wrapper schemas (`{string, valid}`) describe the Go structs, not the JSON. `deleted_at` is the exception:
the reference's `model.Basic` holds a bare `database/sql.NullTime`, written as the struct,
`{"Time": "0001-01-01T00:00:00Z", "Valid": false}` (`SqlNullTime`).

The wrapper models below (`NullString`, `NullTime`, ...) are what the privilege-zone, findings and
collection-client schemas still send, as the upstream spec draws them; they are to follow the plain form
once checked against the reference's code for those models. An absent time is Go's zero time, so strict
clients that expect a date-time string still parse it."""

from __future__ import annotations

import builtins
import uuid as uuidlib
from datetime import UTC, datetime

from pydantic import BaseModel

ZERO_TIME = datetime(1, 1, 1, tzinfo=UTC)


class SqlNullTime(BaseModel):
    """`sql.NullTime` as Go's encoding/json writes it: exported field names, an absent time as the zero time."""

    Time: datetime = ZERO_TIME
    Valid: bool = False

    @classmethod
    def of(cls, value: datetime | None) -> SqlNullTime:
        return cls(Time=value or ZERO_TIME, Valid=value is not None)


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
