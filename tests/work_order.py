"""Spreading the suite over the test workers (`make test`: --dist loadfile --no-loadscope-reorder), a plugin that
tests/conftest.py loads.

A module runs on one worker, in order (module fixtures, the browser tests' shared page), except the modules of
SPREAD_BY_TEST, spread test by test: each holds minutes of work, too much for one worker to run alone at the end. Their
tests are independent (the path modules' own graphs are function fixtures; a TCK test is a feature file, and each
worker starts the TCK's server once, as the TCK's tests come first and one after the other).
Work is handed out in order: the slowest first (measured with --durations), then by number of tests, so that no long
module starts last while the other workers sit idle."""

from __future__ import annotations

from typing import Any

import pytest

SPREAD_BY_TEST = frozenset({
    "tests/graph/cypher/test_shortest_many_sources.py",
    "tests/graph/cypher/test_shortest_path_budget.py",
    "tests/graph/test_projection_cypher.py",
    "tests/graph/test_pair_path_function.py",
    "tests/graph/test_pair_paths.py",
    "tests/tck/test_temporal.py",
    "tests/tck/test_clauses.py",
    "tests/tck/test_expressions.py",
    "tests/tck/test_quantifier.py",
})
SLOWEST_FIRST = (
    "tests/tck/test_temporal.py",
    "tests/tck/test_clauses.py",
    "tests/tck/test_expressions.py",
    "tests/tck/test_quantifier.py",
    "tests/fuzz/test_api_fuzz.py",
    "tests/fuzz/test_cypher_fuzz.py",
    "tests/ui/",
    "tests/client/test_scheduler_processes.py",
    "tests/config/test_config.py",
)


def _work_unit(nodeid: str) -> str:
    module = nodeid.split("::", 1)[0]
    return nodeid if module in SPREAD_BY_TEST else module


def _rank(unit: str) -> int:
    return next((rank for rank, prefix in enumerate(SLOWEST_FIRST) if unit.startswith(prefix)), len(SLOWEST_FIRST))


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    units: dict[str, list[pytest.Item]] = {}
    for item in items:
        units.setdefault(_work_unit(item.nodeid), []).append(item)
    ordered = sorted(units.items(), key=lambda unit: (_rank(unit[0]), -len(unit[1])))
    items[:] = [item for _, unit_items in ordered for item in unit_items]


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config: pytest.Config, log: Any) -> Any:
    """--dist loadfile with the modules of SPREAD_BY_TEST handed out test by test."""
    if config.getvalue("dist") != "loadfile":
        return None
    from xdist.scheduler import LoadFileScheduling

    class SpreadingScheduling(LoadFileScheduling):  # type: ignore[misc]
        def _split_scope(self, nodeid: str) -> str:
            return _work_unit(nodeid)

    return SpreadingScheduling(config, log)
