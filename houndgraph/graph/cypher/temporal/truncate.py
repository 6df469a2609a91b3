"""`date.truncate(unit, value, map)` and its kin: a value cut down to a unit, then the map's fields set."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import date, timedelta

from houndgraph.graph.cypher.temporal.construct import HAS_DATE, HAS_TIME, from_map
from houndgraph.graph.cypher.temporal.values import (
    NANOS,
    Date,
    DateTime,
    LocalDateTime,
    LocalTime,
    Temporal,
    TemporalError,
    Time,
    offset_text,
)

DATE_UNITS = ("millennium", "century", "decade", "year", "weekyear", "quarter", "month", "week", "day")
TIME_UNITS = {"hour": 3600 * NANOS, "minute": 60 * NANOS, "second": NANOS, "millisecond": 1_000_000,
              "microsecond": 1000}


def truncate(kind: str, unit: str, value: object, fields: object) -> Temporal | None:
    if value is None:
        return None
    if not isinstance(value, Date | LocalTime | Time | LocalDateTime | DateTime):
        raise TemporalError(f"{kind}.truncate() takes a temporal value")
    unit = unit.lower()
    if unit not in DATE_UNITS and unit not in TIME_UNITS:
        raise TemporalError(f"Unit not supported: {unit}")
    if kind not in HAS_TIME and unit in TIME_UNITS:
        raise TemporalError(f"Cannot truncate a date to {unit}")
    overrides = {str(key).lower(): item for key, item in (fields or {}).items()} if isinstance(fields, Mapping) \
        else {}
    built: dict[str, object] = {}
    if kind in HAS_DATE:
        day = getattr(value, "day", None)
        if not isinstance(day, date):
            raise TemporalError(f"Cannot truncate a time to a {kind}")
        built.update(_date_fields(_truncated_day(day, unit), unit, overrides))
    if kind in HAS_TIME:
        nanos = getattr(value, "nanos", 0) if unit in TIME_UNITS else 0
        step = TIME_UNITS.get(unit)
        if step is not None:
            nanos -= nanos % step
        built.update(_time_fields(nanos, unit))
    if kind in ("time", "datetime") and "timezone" not in overrides:
        if isinstance(value, DateTime) and value.zone:
            built["timezone"] = value.zone
        elif isinstance(value, Time | DateTime):
            built["timezone"] = offset_text(value.offset)
    built.update(overrides)
    return from_map(kind, built)


def _truncated_day(day: date, unit: str) -> date:
    if unit == "millennium":
        return date(max(1, day.year // 1000 * 1000), 1, 1)
    if unit == "century":
        return date(max(1, day.year // 100 * 100), 1, 1)
    if unit == "decade":
        return date(max(1, day.year // 10 * 10), 1, 1)
    if unit == "year":
        return date(day.year, 1, 1)
    if unit == "weekyear":
        return date.fromisocalendar(day.isocalendar()[0], 1, 1)
    if unit == "quarter":
        return date(day.year, (day.month - 1) // 3 * 3 + 1, 1)
    if unit == "month":
        return date(day.year, day.month, 1)
    if unit == "week":
        return day - timedelta(days=day.weekday())
    return day


def _date_fields(day: date, unit: str, overrides: Mapping[str, object]) -> dict[str, object]:
    if "dayofweek" in overrides or "week" in overrides:
        iso_year, week, weekday = day.isocalendar()
        return {"year": iso_year, "week": week, "dayofweek": weekday}
    return {"year": day.year, "month": day.month, "day": day.day}


def _time_fields(nanos: int, unit: str) -> dict[str, object]:
    hour, rest = divmod(nanos, 3600 * NANOS)
    minute, rest = divmod(rest, 60 * NANOS)
    second, fraction = divmod(rest, NANOS)
    fields: dict[str, object] = {"hour": hour, "minute": minute, "second": second}
    if unit == "millisecond":
        fields["millisecond"] = fraction // 1_000_000
    elif unit == "microsecond":
        fields["microsecond"] = fraction // 1000
    return fields
