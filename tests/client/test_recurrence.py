"""RFC 5545 rules as schedules: DTSTART required, COUNT and UNTIL, time zones and daylight-saving changes."""

from __future__ import annotations

import time
from datetime import UTC, datetime, timedelta

import pytest

from houndgraph.event.recurrence import RecurrenceError, next_occurrence, parse


def at(text: str) -> datetime:
    return datetime.fromisoformat(text)


def test_a_daily_run_keeps_its_wall_clock_time_across_daylight_saving_changes() -> None:
    rule = parse("DTSTART;TZID=America/New_York:20250301T090000\nRRULE:FREQ=DAILY")
    assert rule.next_after(at("2025-03-08T15:00:00+00:00")) == at("2025-03-09T13:00:00+00:00")  # EDT from 9 March
    assert rule.next_after(at("2025-03-07T15:00:00+00:00")) == at("2025-03-08T14:00:00+00:00")  # still EST
    assert rule.next_after(at("2025-11-02T12:00:00+00:00")) == at("2025-11-02T14:00:00+00:00")  # EST again


def test_a_time_the_spring_change_skips_moves_forward_and_a_repeated_one_runs_once() -> None:
    rule = parse("DTSTART;TZID=Europe/Paris:20250301T023000\nRRULE:FREQ=DAILY")
    # 30 March 2025: 02:00 → 03:00 in Paris; 02:30 does not exist, the run is at 03:30 CEST.
    assert rule.next_after(at("2025-03-29T12:00:00+00:00")) == at("2025-03-30T01:30:00+00:00")
    # 26 October 2025: 02:30 happens twice; the run is at the first one, and not again at the second.
    first = rule.next_after(at("2025-10-25T12:00:00+00:00"))
    assert first == at("2025-10-26T00:30:00+00:00")
    assert rule.next_after(first) == at("2025-10-27T01:30:00+00:00")


def test_count_and_until_end_the_rule() -> None:
    counted = parse("DTSTART:20250101T060000Z\nRRULE:FREQ=WEEKLY;COUNT=2")
    assert counted.next_after(at("2025-01-01T07:00:00+00:00")) == at("2025-01-08T06:00:00+00:00")
    assert counted.next_after(at("2025-01-08T07:00:00+00:00")) is None
    until = parse("DTSTART:20250101T060000Z\nRRULE:FREQ=DAILY;UNTIL=20250103T060000Z")
    assert until.next_after(at("2025-01-03T06:00:00+00:00"), inclusive=True) == at("2025-01-03T06:00:00+00:00")
    assert until.next_after(at("2025-01-03T06:00:00+00:00")) is None


def test_a_start_without_a_zone_is_utc() -> None:
    rule = parse("DTSTART:20250101T060000\nRRULE:FREQ=HOURLY;INTERVAL=12")
    assert rule.next_after(datetime(2025, 1, 1, 7, tzinfo=UTC)) == datetime(2025, 1, 1, 18, tzinfo=UTC)


@pytest.mark.parametrize(("text", "reason"), [
    ("RRULE:FREQ=DAILY", "DTSTART"),
    ("", "required"),
    ("DTSTART:20250101T000000Z\nRRULE:FREQ=SOMETIMES", "FREQ"),
    ("DTSTART:20250101T000000Z\nRRULE:FREQ=MINUTELY", "hourly"),
    ("DTSTART;TZID=Mars/Olympus_Mons:20250101T000000\nRRULE:FREQ=DAILY", "time zone"),
    ("DTSTART;TZID=Europe/Paris:20250101T000000\nRRULE:FREQ=DAILY;UNTIL=20250110T000000", "UTC"),
    ("DTSTART:20250101T000000Z\nRRULE:FREQ=DAILY\nEXRULE:FREQ=WEEKLY", "exactly one"),
])
def test_rules_a_schedule_cannot_follow_are_refused(text: str, reason: str) -> None:
    with pytest.raises(RecurrenceError, match=reason):
        parse(text)


@pytest.mark.parametrize("text", [
    "DTSTART;TZID=Europe/Paris:20200301T023000\nRRULE:FREQ=DAILY",
    "DTSTART;TZID=America/New_York:20210105T013000\nRRULE:FREQ=HOURLY;INTERVAL=5",
    "DTSTART;TZID=Australia/Lord_Howe:20220226T013000\nRRULE:FREQ=WEEKLY;INTERVAL=3;BYDAY=MO,SA;WKST=SU",
    "DTSTART:20200823T143000Z\nRRULE:FREQ=DAILY;INTERVAL=7;BYHOUR=2,14;BYMINUTE=15",
    "DTSTART:20190101T000000Z\nRRULE:FREQ=HOURLY;INTERVAL=13;BYMONTH=3,11",
    "DTSTART:20190101T000000Z\nRRULE:FREQ=DAILY;UNTIL=20270101T000000Z\nEXDATE:20261130T000000Z",
])
def test_the_bounded_search_finds_what_stepping_from_dtstart_finds(text: str) -> None:
    # The search starts from the rule's last whole period before the moment instead of DTSTART: the same runs.
    moment = at("2026-03-08T06:45:00+00:00")
    for hours in range(0, 24 * 400, 97):
        later = moment + timedelta(hours=hours)
        assert next_occurrence(text, later) == parse(text).next_after(later), (text, later)


def test_a_rule_that_began_in_year_one_is_found_at_once_and_one_that_counts_from_it_is_bounded() -> None:
    started = time.monotonic()
    assert next_occurrence("DTSTART:00010101T000000Z\nRRULE:FREQ=HOURLY", at("2026-11-28T01:13:00+00:00")) == \
        at("2026-11-28T02:00:00+00:00")
    assert time.monotonic() - started < 1
    with pytest.raises(RecurrenceError, match="could not be found within 0.5 seconds"):
        next_occurrence("DTSTART:00010101T000000Z\nRRULE:FREQ=HOURLY;COUNT=100000000",
                        at("2026-11-28T01:13:00+00:00"), seconds=0.5)
    assert time.monotonic() - started < 3
