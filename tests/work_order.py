"""Spreading the suite over the test workers (`make test`: --dist loadfile --no-loadscope-reorder), a plugin that
tests/conftest.py loads.

A module runs on one worker, in order (module fixtures, the browser tests' shared page), except the modules of
SPREAD_BY_TEST, spread test by test: each holds minutes of work, too much for one worker to run alone at the end. Their
tests are independent (the path modules' own graphs are function fixtures; a TCK test is a feature file).
Work is handed out in order, longest-processing-time first: the modules that run long on one worker (LONGEST_FIRST,
measured with --durations=0), then the other modules by number of tests, and the modules spread test by test last,
whose small units fill the workers evenly at the end (the long modules were handed out after the spread ones before,
and a run ended with one worker busy for half a minute and the others idle). The TCK's server is started once
per worker: its tests come one after the other in that order."""

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
# Worker-seconds of each (setup, tests and teardown) in a full run on the build VM, longest first.
LONGEST_FIRST = (
    "tests/test_multi_process.py",  # 52 s
    "tests/fuzz/test_api_fuzz.py",  # 47 s
    "tests/ui/test_explore_extras.py",  # 43 s
    "tests/cli/test_ingest_cli.py",  # 33 s
    "tests/ui/test_zones.py",  # 33 s
    "tests/datapipe/test_crash_safety.py",  # 33 s
    "tests/test_database.py",  # 32 s
    "tests/graph_query/test_long_query_lane.py",  # 29 s
    "tests/client/test_scheduler_processes.py",  # 29 s
    "tests/ui/test_admin.py",  # 27 s
    "tests/ui/test_explore.py",  # 26 s
    "tests/ui/test_accessibility.py",  # 25 s
    "tests/test_streaming_replica.py",  # 23 s
    "tests/test_service_shutdown.py",  # 23 s
    "tests/ui/test_serving.py",  # 18 s
    "tests/test_request_deadline.py",  # 18 s
    "tests/client/test_recurrence.py",  # 17 s
    "tests/ui/test_collection.py",  # 16 s
    "tests/ui/test_attack_paths.py",  # 15 s
)


def _work_unit(nodeid: str) -> str:
    module = nodeid.split("::", 1)[0]
    return nodeid if module in SPREAD_BY_TEST else module


def _rank(unit: str) -> int:
    module = unit.split("::", 1)[0]
    if module in SPREAD_BY_TEST:
        return len(LONGEST_FIRST) + 1
    return LONGEST_FIRST.index(module) if module in LONGEST_FIRST else len(LONGEST_FIRST)


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
