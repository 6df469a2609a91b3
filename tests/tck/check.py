"""One feature file's scenarios checked against the list of those known not to pass (not_passing.txt).

The list only shrinks: a listed scenario that passes fails the suite (take it off the list), and so does an
unlisted one that fails (fix it, or list it with its reason)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.tck.runner import Runner
from tests.tck.scenarios import FEATURES, scenarios

NOT_PASSING = Path(__file__).with_name("not_passing.txt")


def _listed() -> dict[str, str]:
    listed: dict[str, str] = {}
    for line in NOT_PASSING.read_text().splitlines():
        if line.strip() and not line.startswith("#"):
            scenario_id, _, reason = line.partition(" ")
            listed[scenario_id] = reason.strip()
    return listed


LISTED = _listed()


def check_feature(runner: Runner, path: Path, request: pytest.FixtureRequest) -> None:
    passed, failed, surprises = 0, {}, []
    for scenario in scenarios(path):
        reason = runner.failure(scenario)
        if reason is None:
            passed += 1
            if scenario.id in LISTED:
                surprises.append(f"{scenario.id} passes: take it off {NOT_PASSING.name}")
        else:
            failed[scenario.id] = reason
            if scenario.id not in LISTED:
                surprises.append(f"{scenario.id} {scenario.name}: {reason}")
    folder = "/".join(path.relative_to(FEATURES).parts[:2])
    request.node.user_properties.append(("tck", {"folder": folder, "passed": passed, "failed": failed}))
    assert not surprises, "\n".join(surprises)


def feature_id(path: Path) -> str:
    return path.relative_to(FEATURES).as_posix()
