"""RFC 5545 recurrence rules (python-dateutil): parsing with the checks a schedule needs, and the next
occurrence in UTC.

A rule must carry its DTSTART (`DTSTART:20250101T020000Z` or `DTSTART;TZID=Europe/Paris:20250101T020000`,
then `RRULE:...`); a DTSTART without a zone is UTC. Occurrences follow the wall clock of DTSTART's zone, so
a daily 02:00 stays 02:00 across daylight-saving changes; an occurrence the spring change skips (02:30 on
the day clocks jump from 02:00 to 03:00) moves forward by the gap, and one the autumn change repeats is
taken once, at its first instance.
"""

from __future__ import annotations

import json
import subprocess
import sys
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta, tzinfo

from dateutil import rrule as dateutil_rrule
from dateutil import tz

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
    """`parse(text).next_after(...)` computed by a child Python that is killed after `seconds`: the search is
    pure Python that cannot be interrupted, and it must neither hold the event loop (nor the GIL) nor run on
    without end. The rule is parsed here first, so a malformed one costs no process. RecurrenceError when the
    rule is refused or its search takes too long."""
    parse(text)
    question = json.dumps({"rule": text, "moment": moment.isoformat(), "inclusive": inclusive})
    child = subprocess.Popen([sys.executable, "-c", SEARCH_PROGRAM], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                             stderr=subprocess.DEVNULL, text=True)
    try:
        answer, _ = child.communicate(question, timeout=max(seconds, 0.0))
    except subprocess.TimeoutExpired:
        child.kill()
        child.wait()
        raise RecurrenceError(f"its next occurrence could not be found within {seconds:.3g} seconds") from None
    try:
        found = json.loads(answer)
    except ValueError:
        raise RecurrenceError("its next occurrence could not be computed") from None
    if found["error"]:
        raise RecurrenceError(found["error"])
    return datetime.fromisoformat(found["next"]) if found["next"] else None


SEARCH_PROGRAM = "from houndgraph.event.recurrence import answer_search; answer_search()"


def answer_search() -> None:
    """The child's side of `next_occurrence`: the question on stdin, the answer on stdout."""
    question = json.load(sys.stdin)
    try:
        found = parse(question["rule"]).next_after(datetime.fromisoformat(question["moment"]),
                                                   inclusive=question["inclusive"])
        answer = {"error": "", "next": found.isoformat() if found else None}
    except RecurrenceError as error:
        answer = {"error": str(error), "next": None}
    json.dump(answer, sys.stdout)
