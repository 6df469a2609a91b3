"""Time zones: fixed offsets (`+01:00`, `-0230`, `Z`) and named zones of the IANA database (`Europe/Stockholm`)."""

from __future__ import annotations

import re
from datetime import date, datetime, timedelta
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from houndgraph.graph.cypher.temporal.values import NANOS, TemporalError

OFFSET = re.compile(r"^(?:Z|([+-])(\d{2})(?::?(\d{2})(?::?(\d{2}))?)?)$")


def parse_zone(text: str) -> tuple[int | None, str | None]:
    """(fixed offset in seconds, None) for an offset, (None, name) for a named zone."""
    match = OFFSET.match(text)
    if match:
        return offset_seconds(match), None
    try:
        ZoneInfo(text)
    except (ZoneInfoNotFoundError, ValueError) as error:
        raise TemporalError(f"Invalid value for TimeZone: Text '{text}'") from error
    return None, text


def offset_seconds(match: re.Match[str]) -> int:
    if match.group(1) is None:
        return 0
    sign = -1 if match.group(1) == "-" else 1
    hours, minutes, seconds = (int(match.group(i) or 0) for i in (2, 3, 4))
    if hours > 18 or minutes > 59 or seconds > 59:
        raise TemporalError(f"Zone offset out of range: {match.group(0)}")
    return sign * (hours * 3600 + minutes * 60 + seconds)


def zone_offset(zone: str, day: date, nanos: int) -> int:
    """The offset of `zone` at the local date and time (the earlier one where the clock goes back)."""
    local = datetime(day.year, day.month, day.day) + timedelta(microseconds=nanos // 1000)
    offset = local.replace(tzinfo=ZoneInfo(zone)).utcoffset()
    assert offset is not None
    return int(offset.total_seconds())


def instant_offset(zone: str, epoch_nanos: int) -> int:
    """The offset of `zone` at an instant."""
    moment = datetime(1970, 1, 1, tzinfo=ZoneInfo("UTC")) + timedelta(microseconds=epoch_nanos // 1000)
    offset = moment.astimezone(ZoneInfo(zone)).utcoffset()
    assert offset is not None
    return int(offset.total_seconds())


def seconds_of(nanos: int) -> int:
    return nanos // NANOS
