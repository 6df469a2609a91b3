"""The six temporal values, their ISO 8601 text, their components and their order."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, timedelta

from houndgraph.graph.cypher.errors import CypherError

NANOS = 1_000_000_000
DAY_NANOS = 86_400 * NANOS
# Java's average month (365.2425 / 12 days): how fractional months become days and seconds.
MONTH_SECONDS = 2_629_746


class TemporalError(CypherError):
    """A temporal value that cannot be built or computed (Neo4j's InvalidArgumentValue / TemporalParseError)."""


@dataclass(frozen=True)
class Date:
    day: date


@dataclass(frozen=True)
class LocalTime:
    nanos: int  # of the day


@dataclass(frozen=True)
class Time:
    nanos: int  # of the day, local
    offset: int  # seconds east of UTC


@dataclass(frozen=True)
class LocalDateTime:
    day: date
    nanos: int


@dataclass(frozen=True)
class DateTime:
    day: date
    nanos: int  # local
    offset: int
    zone: str | None = None  # a named zone (Europe/Stockholm), or None for a fixed offset

    @property
    def epoch_nanos(self) -> int:
        return (self.day.toordinal() - EPOCH_ORDINAL) * DAY_NANOS + self.nanos - self.offset * NANOS


@dataclass(frozen=True)
class Duration:
    months: int
    days: int
    seconds: int
    nanos: int  # 0 <= nanos < NANOS, the sign carried by seconds

    @staticmethod
    def of(months: int = 0, days: int = 0, seconds: int = 0, nanos: int = 0) -> Duration:
        extra, nanos = divmod(nanos, NANOS)
        return Duration(months, days, seconds + extra, nanos)

    @property
    def total_nanos(self) -> int:
        return self.seconds * NANOS + self.nanos


Temporal = Date | LocalTime | Time | LocalDateTime | DateTime | Duration
TYPE_NAMES = {Date: "Date", LocalTime: "LocalTime", Time: "Time", LocalDateTime: "LocalDateTime",
              DateTime: "DateTime", Duration: "Duration"}
EPOCH_ORDINAL = date(1970, 1, 1).toordinal()


def is_temporal(value: object) -> bool:
    return isinstance(value, Date | LocalTime | Time | LocalDateTime | DateTime | Duration)


# -- ISO 8601 text -------------------------------------------------------------------------------


def iso(value: Temporal) -> str:
    if isinstance(value, Date):
        return date_text(value.day)
    if isinstance(value, LocalTime):
        return time_text(value.nanos)
    if isinstance(value, Time):
        return time_text(value.nanos) + offset_text(value.offset)
    if isinstance(value, LocalDateTime):
        return f"{date_text(value.day)}T{time_text(value.nanos)}"
    if isinstance(value, DateTime):
        zone = f"[{value.zone}]" if value.zone else ""
        return f"{date_text(value.day)}T{time_text(value.nanos)}{offset_text(value.offset)}{zone}"
    return duration_text(value)


def date_text(day: date) -> str:
    return f"{day.year:04d}-{day.month:02d}-{day.day:02d}"


def time_text(nanos: int) -> str:
    """java.time's form: seconds only when not zero, a fraction in groups of three digits."""
    hour, rest = divmod(nanos, 3600 * NANOS)
    minute, rest = divmod(rest, 60 * NANOS)
    second, fraction = divmod(rest, NANOS)
    text = f"{hour:02d}:{minute:02d}"
    if second or fraction:
        text += f":{second:02d}"
    if fraction:
        digits = f"{fraction:09d}"
        while digits.endswith("000"):
            digits = digits[:-3]
        text += f".{digits}"
    return text


def offset_text(offset: int) -> str:
    if offset == 0:
        return "Z"
    sign = "+" if offset > 0 else "-"
    hours, rest = divmod(abs(offset), 3600)
    minutes, seconds = divmod(rest, 60)
    return f"{sign}{hours:02d}:{minutes:02d}" + (f":{seconds:02d}" if seconds else "")


def duration_text(value: Duration) -> str:
    if value == Duration(0, 0, 0, 0):
        return "PT0S"
    years, months = _split_toward_zero(value.months, 12)
    text = "P" + (f"{years}Y" if years else "") + (f"{months}M" if months else "")
    text += f"{value.days}D" if value.days else ""
    total = value.total_nanos
    hours, rest = _split_toward_zero(total, 3600 * NANOS)
    minutes, rest = _split_toward_zero(rest, 60 * NANOS)
    clock = (f"{hours}H" if hours else "") + (f"{minutes}M" if minutes else "")
    if rest:
        whole, fraction = divmod(abs(rest), NANOS)
        digits = f".{fraction:09d}".rstrip("0") if fraction else ""
        clock += f"{'-' if rest < 0 else ''}{whole}{digits}S"
    return text + ("T" + clock if clock else "")


def _split_toward_zero(value: int, unit: int) -> tuple[int, int]:
    whole = abs(value) // unit * (1 if value >= 0 else -1)
    return whole, value - whole * unit


# -- components ----------------------------------------------------------------------------------


def component(value: Temporal, key: str) -> object:
    """`value.key`, as Neo4j names the components (case-insensitively); None for a key the type lacks."""
    key = key.lower()
    if isinstance(value, Duration):
        return _duration_component(value, key)
    parts: dict[str, object] = {}
    if isinstance(value, Date | LocalDateTime | DateTime):
        parts.update(_date_components(value.day))
    if isinstance(value, LocalTime | Time | LocalDateTime | DateTime):
        parts.update(_time_components(value.nanos))
    if isinstance(value, Time | DateTime):
        parts["offset"] = offset_text(value.offset).replace("Z", "+00:00")
        parts["offsetminutes"] = value.offset // 60
        parts["offsetseconds"] = value.offset
        parts["timezone"] = value.zone if isinstance(value, DateTime) and value.zone else parts["offset"]
    if isinstance(value, DateTime):
        parts["epochseconds"] = value.epoch_nanos // NANOS
        parts["epochmillis"] = value.epoch_nanos // 1_000_000
    return parts.get(key)


def _date_components(day: date) -> dict[str, object]:
    iso_year, week, weekday = day.isocalendar()
    quarter = (day.month - 1) // 3 + 1
    quarter_start = date(day.year, (quarter - 1) * 3 + 1, 1)
    return {"year": day.year, "quarter": quarter, "month": day.month, "week": week, "weekyear": iso_year,
            "day": day.day, "ordinalday": day.timetuple().tm_yday, "weekday": weekday, "dayofweek": weekday,
            "dayofquarter": (day - quarter_start).days + 1}


def _time_components(nanos: int) -> dict[str, object]:
    hour, rest = divmod(nanos, 3600 * NANOS)
    minute, rest = divmod(rest, 60 * NANOS)
    second, fraction = divmod(rest, NANOS)
    return {"hour": hour, "minute": minute, "second": second, "millisecond": fraction // 1_000_000,
            "microsecond": fraction // 1000, "nanosecond": fraction}


def _duration_component(value: Duration, key: str) -> object:
    total = value.total_nanos
    seconds = _floor_seconds(total)
    parts = {
        "years": value.months // 12 if value.months >= 0 else -(-value.months // 12),
        "quarters": _split_toward_zero(value.months, 3)[0], "months": value.months,
        "weeks": _split_toward_zero(value.days, 7)[0], "days": value.days,
        "hours": _split_toward_zero(seconds, 3600)[0], "minutes": _split_toward_zero(seconds, 60)[0],
        "seconds": seconds, "milliseconds": _floor_div(total, 1_000_000), "microseconds": _floor_div(total, 1000),
        "nanoseconds": total, "quartersofyear": _split_toward_zero(value.months, 3)[0] % 4 if value.months >= 0
        else -((-value.months // 3) % 4),
        "monthsofquarter": _split_toward_zero(value.months, 1)[0] % 3 if value.months >= 0
        else -((-value.months) % 3),
        "monthsofyear": value.months % 12 if value.months >= 0 else -((-value.months) % 12),
        "daysofweek": value.days % 7 if value.days >= 0 else -((-value.days) % 7),
        "minutesofhour": _split_toward_zero(seconds, 60)[0] % 60 if seconds >= 0 else -((-seconds // 60) % 60),
        "secondsofminute": seconds % 60 if seconds >= 0 else -((-seconds) % 60),
        "millisecondsofsecond": value.nanos // 1_000_000, "microsecondsofsecond": value.nanos // 1000,
        "nanosecondsofsecond": value.nanos,
    }
    return parts.get(key)


def _floor_seconds(total: int) -> int:
    return total // NANOS


def _floor_div(total: int, unit: int) -> int:
    return total // unit


# -- order ---------------------------------------------------------------------------------------


def compare(left: Temporal, right: Temporal) -> int | None:
    """-1 / 0 / 1, or None where Cypher's comparison is null (different types; durations have no order)."""
    if type(left) is not type(right) or isinstance(left, Duration):
        return None
    key_left, key_right = _order_key(left), _order_key(right)
    return (key_left > key_right) - (key_left < key_right)


def equal(left: Temporal, right: Temporal) -> bool:
    if type(left) is not type(right):
        return False
    if isinstance(left, Duration) and isinstance(right, Duration):
        return left == right
    if isinstance(left, DateTime) and isinstance(right, DateTime):
        return left.epoch_nanos == right.epoch_nanos
    return _order_key(left) == _order_key(right)


def _order_key(value: Temporal) -> tuple[int, ...]:
    if isinstance(value, Date):
        return (value.day.toordinal(),)
    if isinstance(value, LocalTime):
        return (value.nanos,)
    if isinstance(value, Time):
        return (value.nanos - value.offset * NANOS, value.offset)
    if isinstance(value, LocalDateTime):
        return (value.day.toordinal(), value.nanos)
    if isinstance(value, DateTime):
        return (value.epoch_nanos,)
    return (value.months, value.days, value.total_nanos)


def shift_days(day: date, days: int) -> date:
    try:
        return day + timedelta(days=days)
    except OverflowError as error:
        raise TemporalError("the date is out of the supported range") from error
