"""Events (schedules) over HTTP: operations 21, 22 and 23, list and delete; rules and scopes checked."""

from __future__ import annotations

import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime, timedelta

import httpx
import psutil
import pytest

from tests.client.helpers import SESSIONS_ONLY, create_client, due_soon, error_message, rrule_from
from tests.conftest import ADMIN_PASSWORD, LiveServer, login
from tests.file_upload.helpers import TESTLAB, ingest_paths
from tests.openapi import assert_matches_spec

DOMAIN_SID = "S-1-5-21-3130019616-2776909439-2417379446"
TEST_OU_DN = "OU=TESTOU,DC=TESTLAB,DC=LOCAL"
TEST_OU_ID = "2A374493-816A-4193-BEFD-D2F4132C6DCA"


@pytest.fixture(scope="module")
def testlab_scope(live_server: LiveServer) -> Iterator[None]:
    """The testlab's domain and OUs in the graph, for scopes to name."""
    with httpx.Client(base_url=live_server.base_url, timeout=120) as http:
        http.headers["Authorization"] = f"Bearer {login(http, 'admin', ADMIN_PASSWORD)}"
        assert ingest_paths(http, [TESTLAB / "domains.json", TESTLAB / "ous.json"])["status"] == 2
    yield


def test_create_get_update_list_and_delete_an_event(admin: httpx.Client, testlab_scope: None) -> None:
    client = create_client(admin)
    start = datetime.now(UTC) + timedelta(days=1)
    body = {"client_id": client["id"], "rrule": rrule_from(start, "FREQ=WEEKLY;BYDAY=MO,TH"),
            "session_collection": True, "ad_structure_collection": True, "domains": [DOMAIN_SID.lower()]}
    response = admin.post("/api/v2/events", json=body)
    assert_matches_spec(response, "/api/v2/events", "post")
    event = response.json()["data"]
    assert event["client_id"] == client["id"] and event["ad_structure_collection"] is True
    assert event["domains"] == [{"objectid": DOMAIN_SID, "name": "TESTLAB.LOCAL", "exists": True, "type": "Domain"}]
    assert event["next_scheduled_at"] >= start.strftime("%Y-%m-%dT%H:%M:%S")

    response = admin.get(f"/api/v2/events/{event['id']}")
    assert_matches_spec(response, "/api/v2/events/{event_id}", "get")
    bare = admin.get(f"/api/v2/events/{event['id']}", params={"hydrate_domains": "false"}).json()["data"]
    assert bare["domains"] == [{"objectid": DOMAIN_SID, "name": None, "exists": None, "type": None}]

    update = {**body, "domains": [], "ous": [TEST_OU_DN, TEST_OU_ID.lower()], "rrule": due_soon(7200)}
    response = admin.put(f"/api/v2/events/{event['id']}", json=update)
    assert_matches_spec(response, "/api/v2/events/{event_id}", "put")
    ous = response.json()["data"]["ous"]
    assert [(ou["objectid"], ou["distinguishedname"], ou["exists"]) for ou in ous] == [
        (TEST_OU_ID, TEST_OU_DN, True), (TEST_OU_ID, TEST_OU_DN, True)]

    listed = admin.get("/api/v2/events", params={"client_id": f"eq:{client['id']}", "sort_by": "-next_scheduled_at"})
    assert_matches_spec(listed, "/api/v2/events", "get")
    assert [e["id"] for e in listed.json()["data"]] == [event["id"]]
    assert admin.get(f"/api/v2/clients/{client['id']}").json()["data"]["events"][0]["id"] == event["id"]

    deleted = admin.delete(f"/api/v2/events/{event['id']}")
    assert deleted.status_code == 200 and deleted.content == b""
    assert error_message(admin.get(f"/api/v2/events/{event['id']}"), 404) == "resource not found"


@pytest.mark.parametrize(("change", "message"), [
    ({"session_collection": False}, "at least one data collection flag must be provided"),
    ({"domains": [DOMAIN_SID]}, "may only scope collection by exactly one of OU, Domain, or All Trusted Domains"),
    ({"all_trusted_domains": False}, "may only scope collection by exactly one of OU, Domain, or All Trusted Domains"),
    ({"all_trusted_domains": False, "ous": ["OU=NOWHERE,DC=TESTLAB,DC=LOCAL"]},
     "no record found for OU=NOWHERE,DC=TESTLAB,DC=LOCAL"),
    ({"all_trusted_domains": False, "domains": ["S-1-5-21-1-2-3"]}, "no record found for S-1-5-21-1-2-3"),
    ({"rrule": "RRULE:FREQ=DAILY"}, "invalid rrule specified: the rrule must include a DTSTART"),
    ({"rrule": "DTSTART:20250101T000000Z\nRRULE:FREQ=FORTNIGHTLY"},
     "invalid rrule specified: invalid 'FREQ': FORTNIGHTLY"),
])
def test_bad_events_answer_the_reference_error(admin: httpx.Client, testlab_scope: None, change: dict,
                                                message: str) -> None:
    client = create_client(admin)
    body = {"client_id": client["id"], "rrule": due_soon(60), **SESSIONS_ONLY, **change}
    assert error_message(admin.post("/api/v2/events", json=body), 400) == message
    assert admin.get("/api/v2/events", params={"client_id": f"eq:{client['id']}"}).json()["count"] == 0


def test_an_event_needs_a_live_client_and_a_well_formed_id(admin: httpx.Client) -> None:
    body = {"client_id": "00000000-0000-4000-8000-000000000000", "rrule": due_soon(60), **SESSIONS_ONLY}
    assert error_message(admin.post("/api/v2/events", json=body), 400).startswith("no client found")
    assert error_message(admin.get("/api/v2/events/abc"), 400) == "id is malformed"
    assert error_message(admin.get("/api/v2/events/99999999"), 404) == "resource not found"
    assert error_message(admin.post("/api/v2/events", content=b"{", headers={"Content-Type": "application/json"}),
                         400) == "error unmarshalling JSON payload"


TOO_LONG = "invalid rrule specified: its next occurrence could not be found within 2 seconds"
NEVER = "invalid rrule specified: it has no occurrence from now on"


@pytest.mark.parametrize(("rule", "refusals"), [
    # Seventeen million occurrences before today, each counted (COUNT counts from DTSTART): never found in time.
    ("DTSTART:00010101T000000Z\nRRULE:FREQ=HOURLY;COUNT=100000000", {TOO_LONG}),
    # Never occurs: dateutil looks until the year 9999, which a fast machine finishes within the budget.
    ("DTSTART:20250101T000000Z\nRRULE:FREQ=MONTHLY;BYMONTH=2;BYMONTHDAY=31", {TOO_LONG, NEVER}),
])
def test_a_rule_whose_next_run_takes_long_to_find_is_refused_without_stalling_others(
        admin: httpx.Client, live_server: LiveServer, testlab_scope: None, rule: str, refusals: set[str]) -> None:
    client = create_client(admin)
    body = {"client_id": client["id"], "rrule": rule, **SESSIONS_ONLY}
    with ThreadPoolExecutor(1) as pool, httpx.Client(base_url=live_server.base_url, timeout=20) as other:
        other.headers["Authorization"] = admin.headers["Authorization"]
        answer = pool.submit(other.post, "/api/v2/events", json=body)
        time.sleep(0.5)
        started = time.monotonic()
        assert admin.get("/api/v2/self").status_code == 200
        assert time.monotonic() - started < 3  # the search runs apart from the event loop
        # ...in a thread of the service: a Python process started for each search cost 0.1-0.5 s of CPU per event.
        assert not [child for child in psutil.Process().children(recursive=True)
                    if "houndgraph.event" in " ".join(child.cmdline())], "a process was started for the search"
        message = error_message(answer.result(), 400)
    assert message in refusals
    assert admin.get("/api/v2/events", params={"client_id": f"eq:{client['id']}"}).json()["count"] == 0


def test_a_rule_that_never_runs_again_is_refused(admin: httpx.Client, testlab_scope: None) -> None:
    client = create_client(admin)
    spent = "DTSTART:20200101T000000Z\nRRULE:FREQ=DAILY;UNTIL=20200105T000000Z"
    assert error_message(admin.post("/api/v2/events", json={"client_id": client["id"], "rrule": spent,
                                                            **SESSIONS_ONLY}), 400) == NEVER


def test_a_rule_that_began_long_ago_is_accepted_at_once(admin: httpx.Client, testlab_scope: None) -> None:
    # Its next run was searched from DTSTART, seventeen million hours back, and the rule was refused as too slow.
    client = create_client(admin)
    started = time.monotonic()
    created = admin.post("/api/v2/events", json={"client_id": client["id"], **SESSIONS_ONLY,
                                                 "rrule": "DTSTART:00010101T000000Z\nRRULE:FREQ=HOURLY"})
    assert created.status_code == 200, created.text
    assert time.monotonic() - started < 5
    next_run = datetime.fromisoformat(created.json()["data"]["next_scheduled_at"].replace("Z", "+00:00"))
    assert timedelta(0) <= next_run - datetime.now(UTC) <= timedelta(hours=1)
    assert (next_run.minute, next_run.second) == (0, 0)
