"""RFC 5545 rules as schedules: DTSTART required, COUNT and UNTIL, time zones and daylight-saving changes."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from houndgraph.event.recurrence import RecurrenceError, parse


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
