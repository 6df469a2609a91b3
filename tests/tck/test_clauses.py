"""The openCypher TCK: clauses."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.tck.check import check_feature, feature_id
from tests.tck.runner import Runner
from tests.tck.scenarios import feature_files


# One test runs a whole feature file: up to 322 scenarios (Temporal9), minutes on a loaded machine.
@pytest.mark.timeout(900)
@pytest.mark.parametrize("path", feature_files("clauses"), ids=feature_id)
def test_feature(tck_runner: Runner, path: Path, request: pytest.FixtureRequest) -> None:
    check_feature(tck_runner, path, request)
