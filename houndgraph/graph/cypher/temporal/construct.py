"""Building temporal values as Neo4j's `date()`, `localtime()`, `time()`, `localdatetime()` and `datetime()` do:
from a map of components (selecting parts of other temporal values), from ISO 8601 text, or from another value."""

from __future__ import annotations

import re
from collections.abc import Mapping
from datetime import date
from decimal import Decimal

from houndgraph.graph.cypher.temporal import zones
from houndgraph.graph.cypher.temporal.values import (
    DAY_NANOS,
    EPOCH_ORDINAL,
    NANOS,
    Date,
    DateTime,
    LocalDateTime,
    LocalTime,
    Temporal,
    TemporalError,
    Time,
    shift_days,
)

KINDS = ("date", "localtime", "time", "localdatetime", "datetime")
HAS_DATE = {"date", "localdatetime", "datetime"}
HAS_TIME = {"localtime", "time", "localdatetime", "datetime"}
HAS_ZONE = {"time", "datetime"}
DATE_KEYS = {"year", "month", "day", "week", "dayofweek", "ordinalday", "quarter", "dayofquarter"}
TIME_KEYS = {"hour", "minute", "second", "millisecond", "microsecond", "nanosecond"}


def construct(kind: str, argument: object) -> Temporal | None:
    """`kind(argument)`: None for a null argument."""
    if argument is None:
        return None
    if isinstance(argument, str):
        return parse(kind, argument)
    if isinstance(argument, Mapping):
        return from_map(kind, {str(key).lower(): value for key, value in argument.items()})
    if isinstance(argument, Date | LocalTime | Time | LocalDateTime | DateTime):
        return from_map(kind, {"datetime" if isinstance(argument, LocalDateTime | DateTime) else
                               "date" if isinstance(argument, Date) else "time": argument})
    raise TemporalError(f"{kind}() cannot be built from {type(argument).__name__}")


# -- from a map ----------------------------------------------------------------------------------


def from_map(kind: str, fields: dict[str, object]) -> Temporal:
    unknown = set(fields) - DATE_KEYS - TIME_KEYS - {"timezone", "date", "time", "datetime", "epochseconds",
                                                     "epochmillis"}
    if unknown:
        raise TemporalError(f"No such field: {sorted(unknown)[0]}")
    if "epochseconds" in fields or "epochmillis" in fields:
        return _from_epoch(kind, fields)
    whole = fields.get("datetime")
    date_source = fields.get("date", whole)
    time_source = fields.get("time", whole)
    for source in (whole, date_source, time_source):
        if source is not None and not isinstance(source, Date | LocalTime | Time | LocalDateTime | DateTime):
            raise TemporalError("a temporal value was expected")
    zone_text = fields.get("timezone")
    offset, zone = zones.parse_zone(_text(zone_text)) if zone_text is not None else (None, None)
    if zone_text is not None and kind in HAS_ZONE and isinstance(time_source, Time | DateTime):
        # A value with an offset moves to the zone given: the same instant, read there; then the fields apply.
        base_day = date_source.day if isinstance(date_source, Date | LocalDateTime | DateTime) else None
        moved = _moved(time_source, offset, zone, base_day)
        date_source = moved if date_source is time_source else date_source
        time_source = moved
    day = _date_part(fields, date_source) if kind in HAS_DATE else None
    nanos, source_offset, source_zone = _time_part(fields, time_source) if kind in HAS_TIME else (0, None, None)
    if zone_text is None:
        offset, zone = (source_offset, source_zone) if source_offset is not None else (0, None)
    if kind == "date":
        assert day is not None
        return Date(day)
    if kind == "localtime":
        return LocalTime(nanos)
    if kind == "localdatetime":
        assert day is not None
        return LocalDateTime(day, nanos)
    if kind == "time":
        if zone is not None:
            offset = zones.zone_offset(zone, date.today(), nanos)
        return Time(nanos, offset or 0)
    assert day is not None
    return make_datetime(day, nanos, offset, zone)


def _moved(source: Time | DateTime, offset: int | None, zone: str | None, day: date | None) -> Time | DateTime:
    if isinstance(source, Time):
        instant = _instant_of(day or date.today(), source.nanos, source.offset)
        target = offset if offset is not None else zones.instant_offset(zone or "UTC", instant)
        return Time((source.nanos + (target - source.offset) * NANOS) % DAY_NANOS, target)
    instant = source.epoch_nanos
    target = offset if offset is not None else zones.instant_offset(zone or "UTC", instant)
    days, nanos = divmod(instant + target * NANOS, DAY_NANOS)
    return DateTime(date.fromordinal(days + EPOCH_ORDINAL), nanos, target, zone)


def make_datetime(day: date, nanos: int, offset: int | None, zone: str | None) -> DateTime:
    if zone is None:
        return DateTime(day, nanos, offset or 0, None)
    guess = zones.zone_offset(zone, day, nanos)
    instant = _instant_of(day, nanos, guess)
    actual = zones.instant_offset(zone, instant)
    local = instant + actual * NANOS
    days, local_nanos = divmod(local, DAY_NANOS)
    return DateTime(date.fromordinal(days + EPOCH_ORDINAL), local_nanos, actual, zone)


def _instant_of(day: date, nanos: int, offset: int) -> int:
    return (day.toordinal() - EPOCH_ORDINAL) * DAY_NANOS + nanos - offset * NANOS


def _source_nanos(source: object) -> int:
    return source.nanos if isinstance(source, LocalTime | Time | LocalDateTime | DateTime) else 0


def _from_epoch(kind: str, fields: dict[str, object]) -> Temporal:
    if "epochmillis" in fields:
        total = int(Decimal(str(_number(fields["epochmillis"]))) * 1_000_000)
    else:
        total = int(Decimal(str(_number(fields["epochseconds"]))) * NANOS)
    total += int(_number(fields.get("nanosecond", 0)))
    days, nanos = divmod(total, DAY_NANOS)
    day = date.fromordinal(days + EPOCH_ORDINAL)
    value = DateTime(day, nanos, 0, None)
    if fields.get("timezone") is not None:
        offset, zone = zones.parse_zone(_text(fields["timezone"]))
        target = offset if offset is not None else zones.instant_offset(zone or "UTC", value.epoch_nanos)
        days, nanos = divmod(value.epoch_nanos + target * NANOS, DAY_NANOS)
        value = DateTime(date.fromordinal(days + EPOCH_ORDINAL), nanos, target, zone)
    if kind == "localdatetime":
        return LocalDateTime(value.day, value.nanos)
    return value


def _date_part(fields: dict[str, object], source: object) -> date:
    base = source.day if isinstance(source, Date | LocalDateTime | DateTime) else None
    given = {key: _integer(fields[key]) for key in DATE_KEYS if key in fields}
    if base is None and "year" not in given:
        raise TemporalError("year must be specified")
    try:
        if "week" in given or "dayofweek" in given:
            iso = base.isocalendar() if base is not None else (given["year"], 1, 1)
            return date.fromisocalendar(given.get("year", iso[0]), given.get("week", iso[1]),
                                        given.get("dayofweek", iso[2] if base is not None else 1))
        year = given.get("year", base.year if base is not None else 0)
        if "ordinalday" in given:
            return shift_days(date(year, 1, 1), given["ordinalday"] - 1)
        if "quarter" in given or "dayofquarter" in given:
            base_quarter = (base.month - 1) // 3 + 1 if base is not None else 1
            quarter = given.get("quarter", base_quarter)
            base_day = (base - date(base.year, (base_quarter - 1) * 3 + 1, 1)).days + 1 if base is not None else 1
            return shift_days(date(year, (quarter - 1) * 3 + 1, 1), given.get("dayofquarter", base_day) - 1)
        return date(year, given.get("month", base.month if base is not None else 1),
                    given.get("day", base.day if base is not None else 1))
    except ValueError as error:
        raise TemporalError(f"Invalid value for a date: {error}") from error


def _time_part(fields: dict[str, object], source: object) -> tuple[int, int | None, str | None]:
    """Nanoseconds of the day, and the offset and zone the source carries."""
    offset = source.offset if isinstance(source, Time | DateTime) else None
    zone = source.zone if isinstance(source, DateTime) else None
    return _override_time(fields, _source_nanos(source)), offset, zone


def _override_time(fields: dict[str, object], nanos: int) -> int:
    hour, rest = divmod(nanos, 3600 * NANOS)
    minute, rest = divmod(rest, 60 * NANOS)
    second, fraction = divmod(rest, NANOS)
    hour = _integer(fields.get("hour", hour))
    minute = _integer(fields.get("minute", minute))
    second = _integer(fields.get("second", second))
    if any(key in fields for key in ("millisecond", "microsecond", "nanosecond")):
        millis = _integer(fields.get("millisecond", 0))
        micros = _integer(fields.get("microsecond", 0))
        nanos_part = _integer(fields.get("nanosecond", 0))
        if not (0 <= millis < 1000 and 0 <= micros < 1_000_000 and 0 <= nanos_part < NANOS):
            raise TemporalError("Invalid value for a fraction of a second")
        fraction = millis * 1_000_000 + micros * 1000 + nanos_part
        if fraction >= NANOS:
            raise TemporalError("Invalid value for a fraction of a second")
    if not (0 <= hour < 24 and 0 <= minute < 60 and 0 <= second < 60):
        raise TemporalError("Invalid value for a time")
    return ((hour * 60 + minute) * 60 + second) * NANOS + fraction


def _integer(value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise TemporalError(f"an integer was expected, not {value!r}")
    return value


def _number(value: object) -> int | float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise TemporalError(f"a number was expected, not {value!r}")
    return value


def _text(value: object) -> str:
    if not isinstance(value, str):
        raise TemporalError(f"a time zone was expected, not {value!r}")
    return value


# -- from ISO 8601 text --------------------------------------------------------------------------

DATE_FORMS = [
    re.compile(r"^(?P<year>[+-]?\d{4})-(?P<month>\d{2})(?:-(?P<day>\d{2}))?$"),
    re.compile(r"^(?P<year>[+-]?\d{4})(?P<month>\d{2})(?P<day>\d{2})?$"),
    re.compile(r"^(?P<year>[+-]?\d{4})-?W(?P<week>\d{2})(?:-?(?P<dayofweek>\d))?$"),
    re.compile(r"^(?P<year>[+-]?\d{4})-?(?P<ordinalday>\d{3})$"),
    re.compile(r"^(?P<year>[+-]?\d{4})$"),
]
TIME = re.compile(r"^(?P<hour>\d{2})(?::?(?P<minute>\d{2})(?::?(?P<second>\d{2})(?:[.,](?P<fraction>\d{1,9}))?)?)?"
                  r"(?P<offset>Z|[+-]\d{2}(?::?\d{2}(?::?\d{2})?)?)?(?:\[(?P<zone>[^\]]+)\])?$")


def parse(kind: str, text: str) -> Temporal:
    date_text, _, time_text = text.partition("T")
    if kind in ("localtime", "time"):
        date_text, time_text = "", text
    fields: dict[str, object] = {}
    if kind in HAS_DATE:
        fields.update(_parse_date(date_text, text))
    if time_text and kind in HAS_TIME:
        fields.update(_parse_time(time_text, text, kind))
    elif kind in HAS_TIME and not time_text and kind not in HAS_DATE:
        raise TemporalError(f"Text cannot be parsed to a {kind}: '{text}'")
    return from_map(kind, fields)


def _parse_date(text: str, whole: str) -> dict[str, object]:
    for form in DATE_FORMS:
        match = form.match(text)
        if match:
            return {key: int(value) for key, value in match.groupdict().items() if value is not None}
    raise TemporalError(f"Text cannot be parsed to a date: '{whole}'")


def _parse_time(text: str, whole: str, kind: str) -> dict[str, object]:
    match = TIME.match(text)
    if not match:
        raise TemporalError(f"Text cannot be parsed to a time: '{whole}'")
    fields: dict[str, object] = {"hour": int(match["hour"])}
    if match["minute"]:
        fields["minute"] = int(match["minute"])
    if match["second"]:
        fields["second"] = int(match["second"])
    if match["fraction"]:
        fields["nanosecond"] = int(match["fraction"].ljust(9, "0"))
    if kind in HAS_ZONE:
        if match["zone"]:
            fields["timezone"] = match["zone"]
        elif match["offset"]:
            fields["timezone"] = match["offset"]
    return fields
