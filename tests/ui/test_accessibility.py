"""axe-core (web/node_modules, `make test` installs it) on every page, in the light and the dark theme: no
serious or critical violation. The pages hold the hand-built HOUND.LOCAL domain, analysed, so that tables,
charts and dialogs are drawn rather than their empty states."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Page

from houndgraph.db import Database
from tests.attack_path.graphs import FINDING_TABLES, SID, load
from tests.ui.browser import UI

AXE = Path(__file__).resolve().parents[2] / "web" / "node_modules" / "axe-core" / "axe.min.js"
PAGES = {
    "explore": ("/ui/explore", "#graph"),
    "attack-paths": (f"/ui/attack-paths/{SID}/T0GenericAll", "#finding-principals tbody tr"),
    "posture": ("/ui/posture", ".stat"),
    "collection-clients": ("/ui/collection/clients", "#clients-table > *"),
    "collection-schedules": ("/ui/collection/schedules", "#schedules-table > *"),
    "collection-jobs": ("/ui/collection/jobs", "#jobs-table > *"),
    "zones": ("/ui/zones", "h1"),
    "data-quality": ("/ui/data-quality", ".stat"),
    "audit": ("/ui/audit", "#audit-table tbody tr"),
    "administration": ("/ui/administration/file-ingest", "h1"),
    "users": ("/ui/administration/users", "h1"),
}


@pytest.fixture(scope="module", autouse=True)
def analysed(database: Database, tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    load(database, tmp_path_factory.mktemp("hound"))
    yield
    with database.connect_raw(autocommit=True) as conn:
        conn.execute(f"TRUNCATE edge, node, {FINDING_TABLES} RESTART IDENTITY CASCADE")


def serious_violations(page: Page) -> list[dict[str, Any]]:
    if not AXE.exists():
        pytest.fail("axe-core is missing: run `npm ci` in web/ (make test does)")
    # Evaluated through the DevTools protocol, which the page's CSP does not govern (no inline script tag).
    page.evaluate(AXE.read_text() + "\n;void 0")
    result = page.evaluate("axe.run(document, { resultTypes: ['violations'] })")
    return [{"id": v["id"], "impact": v["impact"], "help": v["help"],
             "nodes": [node["target"] for node in v["nodes"]][:5]}
            for v in result["violations"] if v["impact"] in ("serious", "critical")]


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_no_page_has_a_serious_accessibility_violation(ui: UI, theme: str) -> None:
    ui.goto("/ui/explore")
    ui.page.evaluate(f"localStorage.setItem('houndgraph.theme', '{theme}')")
    found: dict[str, list[dict[str, Any]]] = {}
    for name, (path, ready) in PAGES.items():
        ui.goto(path)
        ui.page.locator(ready).first.wait_for()
        assert ui.page.evaluate("document.documentElement.dataset.theme") == theme
        violations = serious_violations(ui.page)
        if violations:
            found[name] = violations
        if name in ("attack-paths", "posture", "collection-clients", "audit"):
            ui.screenshot(f"{name}-{theme}")
    assert found == {}
