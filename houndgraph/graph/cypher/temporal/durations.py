"""Durations as Neo4j has them: months, days, seconds and nanoseconds kept apart (a month is not a fixed number of
days, nor a day of seconds across a clock change); built from maps or ISO 8601 text, added to instants, and
measured between two instants."""

from __future__ import annotations

import re
from collections.abc import Mapping
from datetime import date
from decimal import Decimal

from houndgraph.graph.cypher.temporal import zones
from houndgraph.graph.cypher.temporal.values import (
    DAY_NANOS,
    EPOCH_ORDINAL,
    MONTH_SECONDS,
    NANOS,
    Date,
    DateTime,
    Duration,
    LocalDateTime,
    LocalTime,
    Temporal,
    TemporalError,
    Time,
    shift_days,
)

UNIT_SECONDS: dict[str, Decimal | int] = {"hours": 3600, "minutes": 60, "seconds": 1, "milliseconds": Decimal("0.001"),
                "microseconds": Decimal("0.000001"), "nanoseconds": Decimal("0.000000001")}
UNITS = {"years", "months", "weeks", "days", *UNIT_SECONDS}


def duration(argument: object) -> Duration | None:
    if argument is None:
        return None
    if isinstance(argument, Duration):
        return argument
    if isinstance(argument, str):
        return parse(argument)
    if isinstance(argument, Mapping):
        fields = {str(key).lower(): value for key, value in argument.items()}
        unknown = set(fields) - UNITS
        if unknown:
            raise TemporalError(f"No such field: {sorted(unknown)[0]}")
        return of_amounts({key: _decimal(value) for key, value in fields.items()})
    raise TemporalError(f"duration() cannot be built from {type(argument).__name__}")


def of_amounts(amounts: Mapping[str, Decimal]) -> Duration:
    """A duration of amounts that may be fractional: a fraction of a month becomes days and seconds (an average
    month), a fraction of a day seconds."""
    months = amounts.get("years", Decimal(0)) * 12 + amounts.get("months", Decimal(0))
    whole_months = int(months)
    days = amounts.get("weeks", Decimal(0)) * 7 + amounts.get("days", Decimal(0))
    days += (months - whole_months) * MONTH_SECONDS / 86400
    whole_days = int(days)
    seconds = sum((amounts.get(unit, Decimal(0)) * size for unit, size in UNIT_SECONDS.items()), Decimal(0))
    seconds += (days - whole_days) * 86400
    return Duration.of(whole_months, whole_days, 0, int((seconds * NANOS).to_integral_value()))


def _decimal(value: object) -> Decimal:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise TemporalError(f"a number was expected, not {value!r}")
    return Decimal(value) if isinstance(value, int) else Decimal(repr(value))


DURATION = re.compile(r"^([+-])?P(?:([-+]?[\d.]+)Y)?(?:([-+]?[\d.]+)M)?(?:([-+]?[\d.]+)W)?(?:([-+]?[\d.]+)D)?"
                      r"(?:T(?:([-+]?[\d.]+)H)?(?:([-+]?[\d.]+)M)?(?:([-+]?[\d.,]+)S)?)?$", re.IGNORECASE)
DURATION_AS_DATE = re.compile(r"^P(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2}(?:\.\d+)?)$")


def parse(text: str) -> Duration:
    match = DURATION_AS_DATE.match(text)
    if match:
        fields = ("years", "months", "days", "hours", "minutes", "seconds")
        return of_amounts({name: Decimal(part) for name, part in zip(fields, match.groups(), strict=True)})
    match = DURATION.match(text)
    if not match or text.upper().endswith("T") or text.upper() in ("P", "-P", "+P"):
        raise TemporalError(f"Text cannot be parsed to a Duration: '{text}'")
    names = ("years", "months", "weeks", "days", "hours", "minutes", "seconds")
    amounts = {name: Decimal(part.replace(",", ".")) for name, part in zip(names, match.groups()[1:], strict=True)
               if part is not None}
    if match.group(1) == "-":
        amounts = {name: -amount for name, amount in amounts.items()}
    return of_amounts(amounts)


# -- arithmetic ----------------------------------------------------------------------------------


def plus(value: Temporal, amount: Duration, sign: int = 1) -> Temporal:
    months, days, nanos = sign * amount.months, sign * amount.days, sign * amount.total_nanos
    if isinstance(value, Duration):
        return Duration.of(value.months + months, value.days + days, 0, value.total_nanos + nanos)
    if isinstance(value, LocalTime):
        return LocalTime((value.nanos + nanos) % DAY_NANOS)
    if isinstance(value, Time):
        return Time((value.nanos + nanos) % DAY_NANOS, value.offset)
    if isinstance(value, Date):
        day = shift_days(add_months(value.day, months), days)
        return Date(shift_days(day, int(nanos / DAY_NANOS)))
    if isinstance(value, LocalDateTime):
        day, rest = _add_nanos(shift_days(add_months(value.day, months), days), value.nanos, nanos)
        return LocalDateTime(day, rest)
    day = shift_days(add_months(value.day, months), days)
    if value.zone is None:
        day, rest = _add_nanos(day, value.nanos, nanos)
        return DateTime(day, rest, value.offset, None)
    from houndgraph.graph.cypher.temporal.construct import make_datetime

    moved = make_datetime(day, value.nanos, None, value.zone)
    instant = moved.epoch_nanos + nanos
    offset = zones.instant_offset(value.zone, instant)
    whole_days, rest = divmod(instant + offset * NANOS, DAY_NANOS)
    return DateTime(date.fromordinal(whole_days + EPOCH_ORDINAL), rest, offset, value.zone)


def _add_nanos(day: date, nanos: int, amount: int) -> tuple[date, int]:
    extra_days, rest = divmod(nanos + amount, DAY_NANOS)
    return shift_days(day, extra_days), rest


def add_months(day: date, months: int) -> date:
    """java.time's plusMonths: the day of month kept, or the month's last day where it has no such day."""
    total = day.year * 12 + day.month - 1 + months
    year, month = divmod(total, 12)
    if not 1 <= year <= 9999:
        raise TemporalError("the date is out of the supported range")
    for candidate in range(day.day, 27, -1):
        try:
            return date(year, month + 1, candidate)
        except ValueError:
            continue
    return date(year, month + 1, min(day.day, 28))


def scaled(value: Duration, factor: object, divide: bool = False) -> Duration:
    number = _decimal(factor)
    if divide:
        if number == 0:
            raise TemporalError("/ by zero")
        number = 1 / number
    return of_amounts({"months": value.months * number, "days": value.days * number,
                       "nanoseconds": value.total_nanos * number})


# -- between two instants ------------------------------------------------------------------------


def between(unit: str, start: Temporal, end: Temporal) -> Duration | None:
    """duration.between / inMonths / inDays / inSeconds (unit: between, months, days, seconds)."""
    if isinstance(start, Duration) or isinstance(end, Duration):
        raise TemporalError("duration.between() takes two instants")
    first, second = _aligned(start, end)
    if first[0] is None or second[0] is None:
        return Duration.of(nanos=second[1] - first[1]) if unit in ("between", "seconds") else Duration(0, 0, 0, 0)
    day1, nanos1, offset1 = first
    day2, nanos2, offset2 = second
    assert day1 is not None and day2 is not None
    instant1 = _instant(day1, nanos1, offset1)
    instant2 = _instant(day2, nanos2, offset2)
    if unit == "seconds":
        return Duration.of(nanos=instant2 - instant1)
    months = _months_until(day1, nanos1, day2, nanos2)
    if unit == "months":
        return Duration(months, 0, 0, 0)
    if unit == "days":
        return Duration(0, _days_until(day1, nanos1, day2, nanos2), 0, 0)
    shifted = add_months(day1, months)
    days = _days_until(shifted, nanos1, day2, nanos2)
    moved = shift_days(shifted, days)
    zone = _zone_of(start) or _zone_of(end)
    offset_moved = zones.zone_offset(zone, moved, nanos1) if zone else offset1
    return Duration.of(months, days, 0, instant2 - _instant(moved, nanos1, offset_moved))


Point = tuple[date | None, int, int]


def _aligned(start: Temporal, end: Temporal) -> tuple[Point, Point]:
    """Both ends as (local date or None, local nanoseconds, offset) in one zone: the start's if it has one, else
    the end's. A local end is read in that zone; a missing date is the other end's."""
    zone_value = start if isinstance(start, Time | DateTime) else end if isinstance(end, Time | DateTime) else None
    if _day(start) is None and _day(end) is None:
        if isinstance(start, Time) and isinstance(end, Time):
            return (None, start.nanos - start.offset * NANOS, 0), (None, end.nanos - end.offset * NANOS, 0)
        return (None, _nanos(start), 0), (None, _nanos(end), 0)
    day1 = _day(start) or _day(end)
    day2 = _day(end) or _day(start)
    assert day1 is not None and day2 is not None
    points: list[Point] = []
    for value, day in ((start, day1), (end, day2)):
        nanos = _nanos(value)
        if zone_value is None:
            points.append((day, nanos, 0))
        elif isinstance(value, Time | DateTime) and value is not zone_value:
            instant = _instant(day, nanos, value.offset)
            target = _target_offset(zone_value, instant)
            whole_days, nanos = divmod(instant + target * NANOS, DAY_NANOS)
            points.append((date.fromordinal(whole_days + EPOCH_ORDINAL), nanos, target))
        else:
            points.append((day, nanos, value.offset if isinstance(value, Time | DateTime)
                           else _offset_at(zone_value, day, nanos)))
    return points[0], points[1]


def _nanos(value: Temporal) -> int:
    return value.nanos if isinstance(value, LocalTime | Time | LocalDateTime | DateTime) else 0


def _target_offset(zone_value: Time | DateTime, instant: int) -> int:
    if isinstance(zone_value, DateTime) and zone_value.zone:
        return zones.instant_offset(zone_value.zone, instant)
    return zone_value.offset


def _offset_at(zone_value: Time | DateTime, day: date | None, nanos: int) -> int:
    if isinstance(zone_value, DateTime) and zone_value.zone and day is not None:
        return zones.zone_offset(zone_value.zone, day, nanos)
    return zone_value.offset


def _zone_of(value: Temporal) -> str | None:
    return value.zone if isinstance(value, DateTime) else None


def _day(value: Temporal) -> date | None:
    return value.day if isinstance(value, Date | LocalDateTime | DateTime) else None


def _instant(day: date, nanos: int, offset: int) -> int:
    return (day.toordinal() - EPOCH_ORDINAL) * DAY_NANOS + nanos - offset * NANOS


def _end_day(day1: date, nanos1: int, day2: date, nanos2: int) -> date:
    """java.time's LocalDateTime.until: a later end whose time of day is earlier counts one day less."""
    if day2 > day1 and nanos2 < nanos1:
        return shift_days(day2, -1)
    if day2 < day1 and nanos2 > nanos1:
        return shift_days(day2, 1)
    return day2


def _months_until(day1: date, nanos1: int, day2: date, nanos2: int) -> int:
    end = _end_day(day1, nanos1, day2, nanos2)
    packed1 = (day1.year * 12 + day1.month - 1) * 32 + day1.day
    packed2 = (end.year * 12 + end.month - 1) * 32 + end.day
    difference = packed2 - packed1
    return difference // 32 if difference >= 0 else -((-difference) // 32)


def _days_until(day1: date, nanos1: int, day2: date, nanos2: int) -> int:
    return (_end_day(day1, nanos1, day2, nanos2) - day1).days
