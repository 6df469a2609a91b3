"""The Collection page in Chromium: a client created with its token shown once, that token used by a
collector which checks in and runs the job given by Collect now (its per-domain results and log shown), a
job canceled, and a schedule made with the recurrence editor and its preview of the next runs."""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import datetime

import httpx
import pytest
from playwright.sync_api import Locator, Route, expect

from houndgraph.db import Database
from tests.client.helpers import as_client, wait_for
from tests.factories import unique
from tests.labs import TESTLAB, clear
from tests.ui.browser import UI

COMPLETE = 2
INGESTED = 240  # s: the job's files are ingested and analysed beside other test workers


@pytest.fixture(scope="module", autouse=True)
def empty_at_the_end(database: Database) -> Iterator[None]:
    yield
    clear(database)


def create_client(ui: UI) -> tuple[str, dict[str, dict[str, str]]]:
    """A client made on the page: its name, and its token as the dialog showed it."""
    ui.goto("/ui/collection/clients")
    name = unique("ui-client")
    ui.page.click("#create-client")
    ui.page.fill("#client-name", name)
    ui.page.fill("#client-dc", "dc01.testlab.local")
    ui.page.click("dialog.modal button:has-text('Create')")
    key = ui.page.locator("#new-client-key")
    key.wait_for()
    token = {"id": ui.page.locator("#new-client-token-id").inner_text(), "key": key.inner_text()}
    ui.screenshot("collection-client-token")
    ui.page.click("dialog.modal button:has-text('I have copied it')")
    expect(key).to_have_count(0)
    return name, {"token": token}


def collect_now(ui: UI, row: Locator) -> int:
    row.locator("button", has_text="Collect now").click()
    ui.page.click("dialog.modal button:has-text('Start collection')")
    toast = ui.page.locator(".toast", has_text="is waiting for")
    toast.wait_for()
    return int(re.search(r"Job #(\d+)", toast.inner_text()).group(1))  # type: ignore[union-attr]


def job_row(ui: UI, job_id: int) -> Locator:
    return ui.page.locator(f'tbody[data-job="{job_id}"] > tr').first


def test_a_client_is_created_with_its_token_shown_once_and_checks_in_with_it(ui: UI) -> None:
    name, created = create_client(ui)
    row = ui.page.locator(f'tr[data-client="{name}"]')
    expect(row).to_contain_text("Never checked in")
    with as_client(ui.base_url, created) as collector:
        response = collector.put("/api/v2/clients/update", json={"hostname": "sh01", "version": "2.5.7"})
        assert response.status_code == 200, response.text
    ui.goto("/ui/collection/clients")
    expect(row).to_contain_text("2.5.7")
    expect(row).to_contain_text("Idle")
    expect(row).to_contain_text("sh01")
    ui.screenshot("collection-clients")


def test_collect_now_then_cancel_the_job(ui: UI) -> None:
    name, _ = create_client(ui)
    row = ui.page.locator(f'tr[data-client="{name}"]')
    job_id = collect_now(ui, row)
    ui.goto("/ui/collection/jobs")
    job = job_row(ui, job_id)
    expect(job.locator('[data-status="Ready"]')).to_be_visible()
    job.locator("button", has_text="Cancel").click()
    expect(job_row(ui, job_id).locator('[data-status="Canceled"]')).to_be_visible()
    expect(job_row(ui, job_id).locator("button", has_text="Cancel")).to_have_count(0)


def test_a_collected_job_shows_its_per_domain_results_and_log(ui: UI, admin: httpx.Client) -> None:
    name, created = create_client(ui)
    job_id = collect_now(ui, ui.page.locator(f'tr[data-client="{name}"]'))
    with as_client(ui.base_url, created) as collector:
        assert collector.post("/api/v2/jobs/start", json={"id": job_id}).status_code == 200
        for path in sorted(TESTLAB.glob("*.json")):
            response = collector.post("/api/v2/ingest", content=path.read_bytes(), headers={
                "Content-Type": "application/json", "X-File-Upload-Name": path.name})
            assert response.status_code == 202, response.text
        ended = collector.post("/api/v2/jobs/end", json={"status": "complete", "message": "collection done"})
        assert ended.status_code == 200, ended.text

    def complete() -> bool:
        return bool(admin.get(f"/api/v2/jobs/{job_id}").json()["data"]["status"] == COMPLETE)

    wait_for(complete, timeout=INGESTED, what="the job's files to be ingested and analysed")
    # The client filter's list is held back until the details are open: its arrival must not redraw the jobs
    # over them (it did when the page loaded the clients before the jobs, and a state was chosen meanwhile).
    held: list[Route] = []
    clients = re.compile(r"/api/v2/clients\?")
    ui.page.route(clients, lambda route: held.append(route))
    ui.goto("/ui/collection/jobs")
    ui.page.select_option("#jobs-status", "2")
    ui.page.locator('#jobs-table[aria-busy="false"]').wait_for()  # the filtered list, not the first one
    job = job_row(ui, job_id)
    expect(job).to_contain_text("TESTLAB.LOCAL")
    job.locator("button", has_text="Details").click()
    detail = ui.page.locator(f'tr[data-detail="{job_id}"]')
    expect(detail.locator(".domain-results tbody tr")).to_have_count(1)
    assert len(held) == 1, [route.request.url for route in held]
    held[0].continue_()
    ui.page.unroute(clients)
    expect(ui.page.locator("#jobs-client option")).not_to_have_count(1)
    expect(detail).to_be_visible()
    expect(detail.locator(".domain-results tbody tr")).to_have_count(1)
    assert "Collected" in detail.locator(".domain-results").inner_text()
    # The files and the log, or the error that stopped them (said, rather than a minute's wait for the log).
    detail.locator(".job-log, .form-error").first.wait_for()
    assert detail.locator(".form-error").count() == 0, detail.locator(".form-error").inner_text()
    detail.locator(".job-log").wait_for()
    files = detail.locator(".job-files tbody tr")
    expect(files).to_have_count(len(list(TESTLAB.glob("*.json"))))
    assert {row.locator("td").first.inner_text() for row in files.all()} == {p.name for p in TESTLAB.glob("*.json")}
    assert {row.locator("td").nth(1).inner_text() for row in files.all()} == {"complete"}
    ui.screenshot("collection-jobs")


def test_a_schedule_is_made_with_the_recurrence_editor_and_its_preview(ui: UI) -> None:
    create_client(ui)
    ui.goto("/ui/collection/schedules")
    ui.page.click("#create-schedule")
    ui.page.select_option("#schedule-frequency", label="Weeks")
    ui.page.check("#schedule-day-Mon")
    ui.page.check("#schedule-day-Thu")
    expect(ui.page.locator("#schedule-rrule")).to_contain_text("RRULE:FREQ=WEEKLY;BYDAY=MO,TH")
    runs = ui.page.locator("#schedule-preview li")
    expect(runs).to_have_count(5)
    weekdays = {datetime.strptime(text, "%m/%d/%Y, %I:%M:%S %p").strftime("%a") for text in runs.all_inner_texts()}
    assert weekdays == {"Mon", "Thu"}
    ui.screenshot("collection-schedule-editor")
    ui.page.click("dialog.modal button:has-text('Create')")
    ui.page.locator(".toast", has_text="Schedule created").wait_for()
    row = ui.page.locator("#schedules-table tbody tr", has_text="every week on Monday, Thursday").last
    expect(row).to_be_visible()
    assert re.search(r"\d", row.locator("td").nth(2).inner_text())
    ui.screenshot("collection-schedules")


def test_a_refused_client_is_reported_as_the_api_words_it(ui: UI, admin: httpx.Client) -> None:
    ui.goto("/ui/collection/clients")
    ui.page.click("#create-client")
    ui.page.locator("#client-name").evaluate("input => input.removeAttribute('maxlength')")
    ui.page.fill("#client-name", "x" * 300)
    ui.page.click("dialog.modal button:has-text('Create')")
    refused = admin.post("/api/v2/clients", json={"name": "x" * 300, "type": "sharphound"})
    message = refused.json()["errors"][0]["message"]
    expect(ui.page.locator(".toast-error")).to_have_text(message)
    assert [error for error in ui.take_errors() if "status of 400" not in error] == []
