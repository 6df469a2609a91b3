"""How the reference writes its nullable values on the wire.

Its `null.String`, `null.Int32`, `null.Time`, ... and gofrs' `uuid.NullUUID` marshal as the plain value or
`null`, so those fields are plain optional fields here (`str | None`, ...); the upstream spec's wrapper
schemas (`{string, valid}`) describe the Go structs, not the JSON. The one exception is `deleted_at`: the
reference's `model.Basic` holds a bare `database/sql.NullTime`, which has no JSON marshaller of its own and
is written as the struct, `{"Time": "0001-01-01T00:00:00Z", "Valid": false}`.
"""

from __future__ import annotations

from datetime import UTC, datetime

from pydantic import BaseModel, ConfigDict

ZERO_TIME = datetime(1, 1, 1, tzinfo=UTC)


class SqlNullTime(BaseModel):
    """`sql.NullTime` as Go's encoding/json writes it: exported field names, an absent time as the zero time.
    Frozen, so hashable: pydantic then shares a field's default instead of deep-copying it for every model
    that holds one (a listing of saved queries built one copy per row)."""

    model_config = ConfigDict(frozen=True)
    Time: datetime = ZERO_TIME
    Valid: bool = False

    @classmethod
    def of(cls, value: datetime | None) -> SqlNullTime:
        return cls(Time=value or ZERO_TIME, Valid=value is not None)


def or_zero(value: datetime | None) -> datetime:
    """A Go `time.Time` field (never null): an absent time is written as the zero time."""
    return value or ZERO_TIME
