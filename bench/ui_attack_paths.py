"""The Attack Paths page on the synthetic 100k-object AD collection, analysed twice: the time from navigation
to the finding types listed (interactive) and to the first type's principals shown, in headless Chromium.

    .venv/bin/python bench/ui_attack_paths.py [--objects 100000] [--runs 2]

Each figure is the median of five navigations of a logged-in page, after one warm-up navigation.
"""

from __future__ import annotations

import statistics
import tempfile
import time
from pathlib import Path

from analysis import loaded_collection  # bench/analysis.py
from playwright.sync_api import sync_playwright
from ui_graph import CHROMIUM, CHROMIUM_ARGS  # bench/ui_graph.py
from upload import PASSWORD, free_port, served  # bench/upload.py

from houndgraph.analysis import run_analysis
from houndgraph.app import create_app
from houndgraph.settings import Settings

NAVIGATIONS = 5


def main() -> None:
    with loaded_collection(__doc__.splitlines()[0]) as (args, db):
        for _ in range(args.runs):
            with db.connect_raw() as conn:
                run_analysis(conn)
                conn.commit()
        with db.connect_raw() as conn:
            counted = conn.execute("SELECT count(DISTINCT finding), count(*) FROM attack_path_findings "
                                   "WHERE deleted_at IS NULL").fetchone()
        types, findings = counted or (0, 0)
        print(f"{args.runs} analyses: {findings} findings of {types} types")
        with tempfile.TemporaryDirectory(prefix="hgb-ui-") as data_dir:
            settings = Settings(data_dir=Path(data_dir), port=free_port(), admin_password=PASSWORD)
            with served(create_app(settings, db), settings.port), sync_playwright() as playwright:
                browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
                page = browser.new_page(viewport={"width": 1280, "height": 800})
                base = f"http://127.0.0.1:{settings.port}"
                page.goto(f"{base}/ui/login")
                page.fill("#login-username", "admin")
                page.fill("#login-password", PASSWORD)
                page.click("#login-submit")
                page.wait_for_selector("#logout")
                listed, detailed = [], []
                calls: dict[str, float] = {}
                page.on("requestfinished", lambda request: calls.__setitem__(
                    request.url.split("/api/v2")[-1][:60], request.timing["responseEnd"]))
                for attempt in range(NAVIGATIONS + 1):
                    calls.clear()
                    began = time.perf_counter()
                    page.goto(f"{base}/ui/attack-paths")
                    page.wait_for_selector("tr[data-type]")
                    shown = time.perf_counter()
                    page.wait_for_selector("#finding-principals tbody tr")
                    done = time.perf_counter()
                    if attempt:
                        listed.append(shown - began)
                        detailed.append(done - began)
                browser.close()
        print("the last navigation's API calls (ms to their end):",
              {url: round(ms) for url, ms in calls.items() if not url.startswith("http")})
        print(f"Attack Paths page, median of {NAVIGATIONS}: finding types listed {statistics.median(listed):.2f} s, "
              f"first type's principals {statistics.median(detailed):.2f} s (each: "
              f"{', '.join(f'{s:.2f}' for s in listed)})")


if __name__ == "__main__":
    main()
