"""A large graph is drawn at once and laid out in a worker (the benchmark page, bench/ui_graph.py's, in Chromium):
the first frame comes before the force layout settles, and the page's CSP lets the worker run."""

from __future__ import annotations

import json

from tests.ui.browser import UI

WORKER_LAYOUT_FROM = 1000  # GraphView.WORKER_LAYOUT_FROM


def bench(ui: UI, nodes: int) -> dict[str, int]:
    ui.goto(f"/ui/bench.html?nodes={nodes}&edges={2 * nodes}&frames=3")
    result = ui.page.locator("#bench-result[data-ready]")
    result.wait_for(state="attached", timeout=180_000)
    answer: dict[str, int] = json.loads(result.inner_text())
    return answer


def test_a_large_graph_is_drawn_first_and_laid_out_in_a_worker(ui: UI) -> None:
    result = bench(ui, WORKER_LAYOUT_FROM + 200)
    assert result["nodes"] == WORKER_LAYOUT_FROM + 200
    assert result["layout_worker_ms"] > 0, "the force layout ran in the worker"
    assert result["first_frame_ms"] < result["layout_settled_ms"]
    ui.screenshot("explore-large-graph")


def test_a_small_graph_is_laid_out_before_its_first_frame(ui: UI) -> None:
    result = bench(ui, 200)
    assert result["layout_worker_ms"] == 0
    assert result["layout_settled_ms"] <= result["first_frame_ms"]
