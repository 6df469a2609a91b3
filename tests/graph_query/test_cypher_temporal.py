"""Temporal values over POST /api/v2/graphs/cypher: Neo4j's six types built, read, compared, shifted and measured,
answered and stored as ISO 8601 text; and the type errors Neo4j raises before it runs a query."""

from __future__ import annotations

import time
import uuid
from datetime import UTC, datetime
from typing import Any

import httpx
import pytest

URL = "/api/v2/graphs/cypher"


def answers(client: httpx.Client, query: str) -> dict[str, Any]:
    response = client.post(URL, json={"query": query})
    assert response.status_code == 200, response.text
    return {literal["key"]: literal.get("value") for literal in response.json()["data"]["literals"]}


def refusal(client: httpx.Client, query: str) -> str:
    response = client.post(URL, json={"query": query})
    assert response.status_code == 400, response.text
    return str(response.json()["errors"][0]["message"])


def test_the_six_types_from_maps_and_text(admin: httpx.Client, graph: dict[str, int]) -> None:
    assert answers(admin, "RETURN date({year: 1984, week: 10, dayOfWeek: 3}) AS week, "
                          "date('2015-202') AS ordinal, localtime({hour: 12, minute: 31, second: 14, "
                          "nanosecond: 789, millisecond: 123, microsecond: 456}) AS local, "
                          "time('214032-0100') AS time, localdatetime('2015-W30-2T214032.142') AS ldt, "
                          "datetime({year: 1984, month: 10, day: 11, hour: 12, timezone: 'Europe/Stockholm'}) AS dt, "
                          "duration({months: 0.75}) AS d") == {
        "week": "1984-03-07", "ordinal": "2015-07-21", "local": "12:31:14.123456789", "time": "21:40:32-01:00",
        "ldt": "2015-07-21T21:40:32.142", "dt": "1984-10-11T12:00+01:00[Europe/Stockholm]",
        "d": "P22DT19H51M49.5S"}


def test_accessors_comparison_and_arithmetic_of_values_a_with_passes_on(admin: httpx.Client,
                                                                         graph: dict[str, int]) -> None:
    assert answers(admin, "WITH date({year: 1984, month: 10, day: 11}) AS d, "
                          "datetime('2017-10-28T23:00+02:00[Europe/Stockholm]') AS before "
                          "RETURN d.week AS week, d.dayOfQuarter AS q, d < date('1984-10-12') AS earlier, "
                          "toString(d + duration('P1M20D')) AS later, "
                          "before + duration({hours: 5}) AS across_the_clock_change") == {
        "week": 41, "q": 11, "earlier": True, "later": "1984-12-01",
        "across_the_clock_change": "2017-10-29T03:00+01:00[Europe/Stockholm]"}


def test_truncate_and_the_distance_between_instants(admin: httpx.Client, graph: dict[str, int]) -> None:
    assert answers(admin, "RETURN date.truncate('weekYear', date({year: 1984, month: 2, day: 1}), {day: 5}) AS t, "
                          "duration.between(date('1984-10-11'), datetime('2015-07-21T21:40:32.142+0100')) AS b, "
                          "duration.inDays(date('1984-10-11'), date('2015-06-24')) AS days, "
                          "duration.inSeconds(localtime('12:44:54.7'), localtime('12:34:55.3')) AS s") == {
        "t": "1984-01-05", "b": "P30Y9M10DT21H40M32.142S", "days": "P11213D", "s": "PT-9M-59.4S"}


def test_the_epoch_second_arithmetic_of_the_public_queries_still_filters(admin: httpx.Client,
                                                                          graph: dict[str, int]) -> None:
    # BloodHound's own epoch-second properties against the clock, as the prebuilt queries write it.
    year_ago = int(time.time()) - 365 * 86400
    expected = answers(admin, f"MATCH (u:User) WHERE u.pwdlastset < {year_ago} RETURN count(u) AS stale")
    assert answers(admin, "MATCH (u:User) WHERE u.pwdlastset < (datetime().epochseconds - (365 * 86400)) "
                          "RETURN count(u) AS stale") == expected
    assert answers(admin, "MATCH (u:User) WHERE datetime({epochSeconds: u.pwdlastset}) < "
                          "datetime() - duration({days: 365}) RETURN count(u) AS stale") == expected
    assert answers(admin, "RETURN datetime() - duration({days: 90}) < datetime() AS earlier, "
                          "datetime().epochSeconds > 1700000000 AS now") == {"earlier": True, "now": True}


def test_a_temporal_value_plus_a_stored_string_is_a_type_error(admin: httpx.Client, graph: dict[str, int]) -> None:
    assert "InvalidArgumentType" in refusal(admin, "MATCH (u:User) RETURN date('2020-01-01') + u.name AS x")


def test_a_datetime_computed_from_a_stored_epoch_prints_z_for_utc(admin: httpx.Client, graph: dict[str, int]) -> None:
    row = answers(admin, "MATCH (u:User) WHERE u.pwdlastset > 0 WITH u ORDER BY u.pwdlastset LIMIT 1 "
                         "RETURN u.pwdlastset AS s, datetime({epochSeconds: toInteger(u.pwdlastset)}) AS t, "
                         "datetime({epochSeconds: toInteger(u.pwdlastset)}).epochSeconds AS back")
    moment = datetime.fromtimestamp(int(row["s"]), UTC)
    text = moment.strftime("%Y-%m-%dT%H:%M") + (moment.strftime(":%S") if moment.second else "") + "Z"
    assert (row["t"], row["back"]) == (text, int(row["s"]))
    assert answers(admin, "RETURN datetime({epochSeconds: 1700000000}) AS t") == {"t": "2023-11-14T22:13:20Z"}


def test_stored_temporal_values_compare_add_and_answer_their_components(writer: httpx.Client) -> None:
    name = f"temporal-{uuid.uuid4()}"
    created = writer.post(URL, json={"query": f"CREATE (:Base {{name: '{name}', d: duration({{days: 14, hours: 16}}), "
                                              "m: duration('P1M'), day: date('2020-01-31'), lt: localtime('12:00'), "
                                              "t: datetime({year: 1984, month: 10, day: 11, hour: 12, "
                                              "timezone: '+01:00'})})"})
    assert created.status_code in (200, 404), created.text
    match = f"MATCH (n:Base {{name: '{name}'}}) "
    try:
        assert answers(writer, match + "RETURN n.d + n.d AS twice, n.d * 2 AS doubled, n.d - n.d AS none, "
                                       "n.day + n.m AS clamped, n.t + n.d AS later, n.t - n.m AS earlier, "
                                       "n.lt + n.d AS wrapped, date('2020-01-01') + n.d AS from_literal, "
                                       "toString(n.d) AS text") == {
            "twice": "P28DT32H", "doubled": "P28DT32H", "none": "PT0S", "clamped": "2020-02-29",
            "later": "1984-10-26T04:00+01:00", "earlier": "1984-09-11T12:00+01:00", "wrapped": "04:00",
            "from_literal": "2020-01-15", "text": "P14DT16H"}
        assert answers(writer, match + "RETURN n.d.days AS days, n.d.hours AS hours, n.m.months AS months, "
                                       "n.t.year AS year, n.t.epochSeconds AS epoch, n.t.offset AS offset, "
                                       "n.day.dayOfWeek AS weekday, n.lt.hour AS hour") == {
            "days": 14, "hours": 16, "months": 1, "year": 1984, "epoch": 466340400, "offset": "+01:00",
            "weekday": 5, "hour": 12}
        assert answers(writer, match + "RETURN n.t < datetime('1984-10-11T12:00:01+01:00') AS before, "
                                       "n.t = datetime('1984-10-11T11:00Z') AS same_instant, n.day > n.day AS after, "
                                       "n.day < date('2020-02-01') AS earlier_day, "
                                       "n.d = duration('P14DT16H') AS equal, n.t + n.d > n.t AS moved_on") == {
            "before": True, "same_instant": True, "after": False, "earlier_day": True, "equal": True,
            "moved_on": True}
        # Stored from a value the statement computes, then read back as a datetime, not as text.
        changed = writer.post(URL, json={"query": match + "SET n.epoch = datetime({epochSeconds: 86400 * 365}), "
                                                          "n.later = n.day + n.d"})
        assert changed.status_code in (200, 404), changed.text
        assert answers(writer, match + "RETURN n.epoch AS epoch, n.epoch.year AS year, n.later AS later, "
                                       "n.later.day AS day") == {
            "epoch": "1971-01-01T00:00Z", "year": 1971, "later": "2020-02-14", "day": 14}
        assert answers(writer, f"UNWIND [date('2021-01-01'), date('1999-12-31')] AS d {match}"
                               "WITH d ORDER BY d RETURN collect(d) AS days") == {"days": ["1999-12-31", "2021-01-01"]}
    finally:
        writer.post(URL, json={"query": f"{match}DELETE n"})


@pytest.mark.parametrize(("query", "error"), [
    ("RETURN NOT 0", "InvalidArgumentType"),
    ("RETURN true OR []", "InvalidArgumentType"),
    ("RETURN 1 IN 'foo'", "InvalidArgumentType"),
    ("WITH 123 AS x RETURN x.num", "InvalidArgumentType"),
    ("WITH [1, 2] AS l, 'a' AS i RETURN l[i]", "InvalidArgumentType"),
    ("RETURN range(0, 1.5)", "InvalidArgumentType"),
    ("MATCH p = (p)-[]->() RETURN p", "VariableAlreadyBound"),
    ("RETURN 1 AS a UNION RETURN 2 AS a UNION ALL RETURN 3 AS a", "InvalidClauseComposition"),
    ("MATCH (n) WITH count(*) RETURN 1", "NoExpressionAlias"),
    ("RETURN none(x IN ['Clara', 'Bob'] WHERE x % 2 = 0) AS r", "InvalidArgumentType"),
    ("RETURN any(x IN [false, true] WHERE x * 2 = 0) AS r", "InvalidArgumentType"),
    ("MATCH (n) WHERE (n)-[r]->() RETURN n", "UndefinedVariable"),
])
def test_type_and_semantic_errors_name_neo4js_class(admin: httpx.Client, graph: dict[str, int], query: str,
                                                     error: str) -> None:
    assert error in refusal(admin, query)


def test_a_stored_temporal_property_reads_back_as_neo4j_answers_it(writer: httpx.Client) -> None:
    name = f"temporal-{uuid.uuid4()}"
    created = writer.post(URL, json={"query": f"CREATE (:Base {{name: '{name}', "
                                              "when: datetime({year: 1984, month: 10, day: 11, hour: 12, "
                                              "timezone: '+01:00'}), "
                                              "each: [duration({days: 14, hours: 16}), duration('PT0.75M')]})"})
    assert created.status_code in (200, 404), created.text
    try:
        assert answers(writer, f"MATCH (n:Base {{name: '{name}'}}) RETURN n.when AS w, n.each AS e, "
                               "n.when = datetime('1984-10-11T12:00+01:00') AS same") == {
            "w": "1984-10-11T12:00+01:00", "e": ["P14DT16H", "PT45S"], "same": True}
    finally:
        writer.post(URL, json={"query": f"MATCH (n:Base {{name: '{name}'}}) DELETE n"})


def test_a_label_test_of_a_missing_node_is_null(admin: httpx.Client, graph: dict[str, int]) -> None:
    assert answers(admin, "MATCH (u:User) WITH u LIMIT 1 OPTIONAL MATCH (u)-[:NoSuchKind]->(m) "
                          "RETURN m:NoSuchLabel AS label") == {"label": None}
