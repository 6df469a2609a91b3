"""RFC 5545 recurrence rules (python-dateutil): parsing with the checks a schedule needs, and the next
occurrence in UTC.

A rule must carry its DTSTART (`DTSTART:20250101T020000Z` or `DTSTART;TZID=Europe/Paris:20250101T020000`,
then `RRULE:...`); a DTSTART without a zone is UTC. Occurrences follow the wall clock of DTSTART's zone, so
a daily 02:00 stays 02:00 across daylight-saving changes; an occurrence the spring change skips (02:30 on
the day clocks jump from 02:00 to 03:00) moves forward by the gap, and one the autumn change repeats is
taken once, at its first instance.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta, tzinfo
from types import FrameType
from typing import Any, TypeVar

from dateutil import rrule as dateutil_rrule
from dateutil import tz

T = TypeVar("T")

# How long the search for a rule's next occurrence may take. dateutil steps through every occurrence from
# DTSTART (one in year 1 with FREQ=HOURLY has seventeen million before today), and one that never occurs
# (BYMONTH=2;BYMONTHDAY=31) is looked for until the year 9999; a usual rule takes milliseconds.
SEARCH_SECONDS = 2.0

# Collectors run for minutes to hours: a rule firing more often than hourly would queue jobs faster than
# any client could run them.
TOO_FREQUENT = (dateutil_rrule.SECONDLY, dateutil_rrule.MINUTELY)


class RecurrenceError(ValueError):
    """The rule is not one a schedule can follow; the message says why."""


@dataclass(frozen=True, slots=True)
class Recurrence:
    text: str
    rule: dateutil_rrule.rruleset
    zone: tzinfo
    # A DTSTART without a zone: occurrences come out naive, read as UTC.
    naive: bool

    def next_after(self, moment: datetime, *, inclusive: bool = False) -> datetime | None:
        """The first occurrence at or after (`inclusive`) or strictly after `moment`, in UTC; None when the
        rule has none left (COUNT or UNTIL reached). Unbounded work: see `next_occurrence`."""
        local = moment.astimezone(self.zone)
        if self.naive:
            local = local.replace(tzinfo=None)

        # Wall-clock stepping: look from a little earlier, since a skipped (imaginary) time moves forward.
        candidate = self.rule.after(local - timedelta(hours=3), inc=True)
        while candidate is not None:
            resolved = _resolve(candidate, self.zone)
            if resolved > moment or (inclusive and resolved == moment):
                return resolved
            candidate = self.rule.after(candidate, inc=False)
        return None


def _resolve(occurrence: datetime, zone: tzinfo) -> datetime:
    aware = occurrence if occurrence.tzinfo is not None else occurrence.replace(tzinfo=zone)
    # A wall-clock time the zone skips does not exist: move it forward by the gap.
    resolved: datetime = tz.resolve_imaginary(aware)
    return resolved.astimezone(UTC)


def parse(text: str) -> Recurrence:
    """The rule of `text`, or RecurrenceError."""
    if not text or not text.strip():
        raise RecurrenceError("an rrule is required")
    normalized = "\n".join(line.strip() for line in text.strip().replace(";\n", ";").splitlines() if line.strip())
    if "DTSTART" not in normalized.upper():
        raise RecurrenceError("the rrule must include a DTSTART")
    if _unknown_zone(normalized):
        raise RecurrenceError("unknown time zone in DTSTART")
    try:
        rule = dateutil_rrule.rrulestr(normalized, forceset=True, unfold=True)
    except (ValueError, TypeError, KeyError, IndexError, AttributeError) as error:
        raise RecurrenceError(str(error) or "the rrule could not be parsed") from None
    # dateutil has no public accessors for a set's parts: read them as its own code does.
    rules = getattr(rule, "_rrule")  # noqa: B009
    if len(rules) != 1 or getattr(rule, "_rdate") or getattr(rule, "_exrule"):  # noqa: B009
        raise RecurrenceError("the rrule must hold exactly one RRULE (no RDATE or EXRULE)")
    only = rules[0]
    if getattr(only, "_freq") in TOO_FREQUENT:  # noqa: B009
        raise RecurrenceError("the rrule may not repeat more often than hourly")
    start: datetime = getattr(only, "_dtstart")  # noqa: B009
    return Recurrence(normalized, rule, start.tzinfo or UTC, start.tzinfo is None)


def _unknown_zone(normalized: str) -> bool:
    """dateutil falls back silently for a TZID it does not know; a schedule must not."""
    for line in normalized.splitlines():
        head = line.split(":", 1)[0].upper()
        if head.startswith("DTSTART") and "TZID=" in head:
            name = line.split(":", 1)[0].split("TZID=", 1)[1].split(";", 1)[0]
            return tz.gettz(name) is None
    return False



def next_occurrence(text: str, moment: datetime, *, inclusive: bool = False,
                    seconds: float = SEARCH_SECONDS) -> datetime | None:
    """`parse(text).next_after(...)`, bounded: a rule without COUNT starts its search from its last period before
    `moment` rather than from DTSTART (dateutil steps through every occurrence from DTSTART: one in year 1 with
    FREQ=HOURLY has seventeen million before today), and whatever is left is stopped after `seconds`
    (`_within`). Call it off the event loop: the search is Python that holds the GIL while it runs.
    RecurrenceError when the rule is refused or its search takes too long."""
    recurrence = _near(parse(text), moment)
    return _within(seconds, lambda: recurrence.next_after(moment, inclusive=inclusive))


# Periods of the frequencies whose occurrences repeat with whole periods of fixed length: their DTSTART may move
# by whole periods without changing one occurrence (a month or a year has no fixed length, and such rules take
# a few thousand steps from year 1 anyway).
_FIXED_PERIODS = {dateutil_rrule.WEEKLY: timedelta(weeks=1), dateutil_rrule.DAILY: timedelta(days=1),
                  dateutil_rrule.HOURLY: timedelta(hours=1)}
# How far before the moment the moved DTSTART lands: `next_after` looks from three hours earlier.
_LEAD = timedelta(days=8)


def _near(recurrence: Recurrence, moment: datetime) -> Recurrence:
    """The same rule with its DTSTART moved forward by whole periods to just before `moment`, when that leaves
    every occurrence from then on as it was: no COUNT (which counts from the first occurrence) and a frequency of
    fixed periods. dateutil derives the defaults of BYDAY, BYHOUR, BYMINUTE and BYSECOND from DTSTART, which
    whole days and weeks (on the wall clock of DTSTART's zone, as dateutil steps) leave unchanged."""
    only = getattr(recurrence.rule, "_rrule")[0]  # noqa: B009 - parse checked there is exactly one
    period = _FIXED_PERIODS.get(getattr(only, "_freq"))  # noqa: B009
    start: datetime = getattr(only, "_dtstart")  # noqa: B009
    if period is None or getattr(only, "_count") is not None:  # noqa: B009
        return recurrence
    local = moment.astimezone(recurrence.zone)
    if recurrence.naive:
        local = local.replace(tzinfo=None)
    step = period * getattr(only, "_interval")  # noqa: B009
    periods = (local.replace(tzinfo=None) - start.replace(tzinfo=None) - _LEAD) // step
    if periods <= 0:
        return recurrence
    moved = dateutil_rrule.rruleset()
    moved.rrule(only.replace(dtstart=start + periods * step))
    for excluded in getattr(recurrence.rule, "_exdate"):  # noqa: B009
        moved.exdate(excluded)
    return Recurrence(recurrence.text, moved, recurrence.zone, recurrence.naive)


class _OutOfTime(Exception):
    """Raised inside the search when its time is up (not a ValueError, which dateutil catches in places)."""


def _within(seconds: float, search: Callable[[], T]) -> T:
    """`search()` stopped once `seconds` have passed: a trace function of this thread alone, called at each
    Python call the search makes (dateutil calls several per period it steps through), raises in it. The search
    runs in the caller's thread, and no process is started for it."""
    give_up = time.monotonic() + max(seconds, 0.0)

    def watch(frame: FrameType, event: str, arg: Any) -> None:
        if time.monotonic() > give_up:
            raise _OutOfTime
        return None  # no line events: calls alone are enough to notice the deadline

    previous = sys.gettrace()
    sys.settrace(watch)
    try:
        return search()
    except _OutOfTime:
        raise RecurrenceError(f"its next occurrence could not be found within {seconds:.3g} seconds") from None
    finally:
        sys.settrace(previous)
