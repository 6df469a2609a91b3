"""Temporal values as the statements carry and the store keeps them: a tagged jsonb object.

Properties are jsonb, which has no temporal type; kept as ISO 8601 text, a stored duration read back is a
string (`n.d + n.d` concatenates, `n.d.days` is null). So a temporal value travels through the translated
statement, and is stored, as an object no property map can be mistaken for (maps cannot be stored):

    {"~": order key, "~t": type name, "~v": fields, "~iso": ISO 8601 text, "~c": {component: value}}

- `~` sorts first among the keys (jsonb compares objects key by key, shortest key first), so ORDER BY and
  min/max order values of one type by their order key;
- `~v` holds what the SQL of `stored.sql` computes from: days since the epoch and nanoseconds of the day,
  the offset in seconds and the zone name; a duration's months, days, seconds and nanoseconds;
- `~c` holds every accessor (`n.d.days`, `n.t.epochSeconds`) under its lower-case name.

The wire never sees the object: answers and entity views show the ISO text (`iso_text`), as Neo4j's HTTP API
does. `stored.sql` builds the same objects inside PostgreSQL, for the values a statement computes.
"""

from __future__ import annotations

from datetime import UTC, date, datetime
from typing import Any

from houndgraph.graph.cypher.temporal.values import (
    EPOCH_ORDINAL,
    NANOS,
    TYPE_NAMES,
    Date,
    DateTime,
    Duration,
    LocalDateTime,
    LocalTime,
    Temporal,
    Time,
    component,
    iso,
)

TAG = "~t"
ISO = "~iso"
DATE_KEYS = ("year", "quarter", "month", "week", "weekyear", "day", "ordinalday", "weekday", "dayofweek",
             "dayofquarter")
TIME_KEYS = ("hour", "minute", "second", "millisecond", "microsecond", "nanosecond")
ZONE_KEYS = ("offset", "offsetminutes", "offsetseconds", "timezone")
INSTANT_KEYS = ("epochseconds", "epochmillis")
DURATION_KEYS = ("years", "quarters", "months", "weeks", "days", "hours", "minutes", "seconds", "milliseconds",
                 "microseconds", "nanoseconds", "quartersofyear", "monthsofquarter", "monthsofyear", "daysofweek",
                 "minutesofhour", "secondsofminute", "millisecondsofsecond", "microsecondsofsecond",
                 "nanosecondsofsecond")
KEYS: dict[type, tuple[str, ...]] = {
    Date: DATE_KEYS, LocalTime: TIME_KEYS, Time: TIME_KEYS + ZONE_KEYS, LocalDateTime: DATE_KEYS + TIME_KEYS,
    DateTime: DATE_KEYS + TIME_KEYS + ZONE_KEYS + INSTANT_KEYS, Duration: DURATION_KEYS,
}


def tagged(value: Temporal) -> dict[str, Any]:
    """The stored form of `value` (the same object stored.sql's hg_temporal / hg_duration build)."""
    return {"~": order_key(value), TAG: TYPE_NAMES[type(value)], "~v": fields(value), ISO: iso(value),
            "~c": {key: component(value, key) for key in KEYS[type(value)]}}


def order_key(value: Temporal) -> list[int]:
    if isinstance(value, Date):
        return [_epoch_day(value.day)]
    if isinstance(value, LocalTime):
        return [value.nanos]
    if isinstance(value, Time):
        return [value.nanos - value.offset * NANOS, value.offset]
    if isinstance(value, LocalDateTime):
        return [_epoch_day(value.day), value.nanos]
    if isinstance(value, DateTime):
        return [value.epoch_nanos]
    return [value.months, value.days, value.total_nanos]


def fields(value: Temporal) -> list[Any]:
    if isinstance(value, Duration):
        return [value.months, value.days, value.seconds, value.nanos]
    day = _epoch_day(value.day) if isinstance(value, Date | LocalDateTime | DateTime) else None
    nanos = value.nanos if not isinstance(value, Date) else None
    offset = value.offset if isinstance(value, Time | DateTime) else None
    zone = value.zone if isinstance(value, DateTime) else None
    return [day, nanos, offset, zone]


def _epoch_day(day: date) -> int:
    return day.toordinal() - EPOCH_ORDINAL


def is_tagged(value: object) -> bool:
    return isinstance(value, dict) and TAG in value


def iso_text(value: Any) -> Any:
    """`value` with each temporal object replaced by its ISO 8601 text (lists and maps looked through)."""
    if isinstance(value, dict):
        if TAG in value:
            return value.get(ISO)
        return {key: iso_text(item) for key, item in value.items()}
    if isinstance(value, list):
        return [iso_text(item) for item in value]
    return value


def iso_properties(properties: dict[str, Any]) -> dict[str, Any]:
    """A node's or edge's properties as the wire shows them; the same dict when none is temporal (the usual case:
    only Cypher writes temporal values, and most properties are strings and numbers)."""
    for item in properties.values():
        if type(item) is dict or (type(item) is list and item and type(item[0]) is dict):
            return {key: iso_text(item) for key, item in properties.items()}
    return properties


def utc_datetime(moment: datetime) -> DateTime:
    """A timestamptz read from PostgreSQL as Neo4j's DateTime at UTC (printed with `Z`)."""
    moment = moment.astimezone(UTC)
    nanos = ((moment.hour * 60 + moment.minute) * 60 + moment.second) * NANOS + moment.microsecond * 1000
    return DateTime(moment.date(), nanos, 0, None)

