"""The openCypher TCK: clauses."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.tck.check import check_feature, feature_id
from tests.tck.runner import Runner
from tests.tck.scenarios import feature_files


@pytest.mark.parametrize("path", feature_files("clauses"), ids=feature_id)
def test_feature(tck_runner: Runner, path: Path, request: pytest.FixtureRequest) -> None:
    check_feature(tck_runner, path, request)
