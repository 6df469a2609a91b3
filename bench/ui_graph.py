"""Graph drawing in the browser: the explorer's own GraphView draws a synthetic graph (5,000 nodes and 10,000
edges by default) in headless Chromium; prints the time to the first frame and the frame times while panning.

    .venv/bin/python bench/ui_graph.py [--nodes 5000] [--edges 10000] [--frames 120]

Serves the committed bundle (houndgraph/ui/static, page bench.html) from the same routes as the service, without
a database. Headless Chromium here renders WebGL in software (SwiftShader, no GPU): a desktop GPU is faster.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil

from playwright.sync_api import sync_playwright
from starlette.applications import Starlette
from upload import free_port, served  # bench/upload.py

from houndgraph.ui.serving import ui_routes

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
WORKER_LAYOUT_FROM = 1000  # GraphView.WORKER_LAYOUT_FROM
# As the browser tests start it (tests/ui/browser.py): without the network flags, this machine's closed network
# makes Chromium retry connections.
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-background-networking", "--disable-component-update",
                 "--disable-sync", "--no-first-run"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--nodes", type=int, default=5000)
    parser.add_argument("--edges", type=int, default=10000)
    parser.add_argument("--frames", type=int, default=120)
    args = parser.parse_args()

    port = free_port()
    with served(Starlette(routes=ui_routes()), port):
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            page = browser.new_page(viewport={"width": 1600, "height": 1000})
            errors: list[str] = []
            page.on("pageerror", lambda error: errors.append(str(error)))
            page.goto(f"http://127.0.0.1:{port}/ui/bench.html?nodes={args.nodes}&edges={args.edges}"
                      f"&frames={args.frames}")
            page.locator("#bench-result[data-ready]").wait_for(timeout=600_000)
            # A user's pan: press, drag across the view in small steps, release.
            page.mouse.move(800, 500)
            page.mouse.down()
            for step in range(args.frames):
                page.mouse.move(800 - 3 * step, 500 - step)
                page.wait_for_timeout(16)
            page.mouse.up()
            page.locator("#bench-result[data-done]").wait_for(timeout=600_000)
            result = json.loads(page.locator("#bench-result").inner_text())
            version = browser.version
            browser.close()
    if errors:
        raise SystemExit(f"the page failed: {errors}")
    print(f"machine: {platform.processor() or platform.machine()}, {os.cpu_count()} cores, Chromium {version} "
          "(headless, software WebGL)")
    print(f"graph: {result['nodes']} nodes, {result['edges']} edges")
    print(f"build + starting layout: {result['layout_and_build_ms']} ms")
    print(f"time to first frame: {result['first_frame_ms']} ms")
    print(f"force layout settled (in a worker from {WORKER_LAYOUT_FROM} nodes): {result['layout_settled_ms']} ms, "
          f"of which {result['layout_worker_ms']} ms computing in the worker")
    for name, what in (("drag", "dragging the view with the mouse (edges hidden while moving)"),
                       ("redraw", "full redraw every frame (camera moved by script)")):
        median = result[f"{name}_frame_ms_median"]
        print(f"{what}, {result[f'{name}_frames']} frames: median {median} ms "
              f"({1000 / median if median else 0:.1f} fps), p95 {result[f'{name}_frame_ms_p95']} ms; "
              f"sigma's render call ({result[f'{name}_render_frames']} renders): median "
              f"{result[f'{name}_render_frame_ms_median']} ms, p95 {result[f'{name}_render_frame_ms_p95']} ms")


if __name__ == "__main__":
    main()
