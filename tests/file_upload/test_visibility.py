"""Where ingest and analysis time goes, without a profiler: task times over HTTP and INFO log lines."""

from __future__ import annotations

import itertools
import logging
from collections.abc import Iterator
from datetime import datetime

import httpx
import pytest

from houndgraph.db import Database
from tests.file_upload.helpers import ADCS_ZIP, completed_tasks, ingest_paths
from tests.test_operations import Lines


@pytest.fixture
def info_lines() -> Iterator[list[str]]:
    """INFO lines of the datapipe and of analysis, whatever logging setup another test left behind."""
    handler = Lines()
    loggers = [logging.getLogger(name) for name in ("houndgraph.datapipe", "houndgraph.analysis")]
    levels = [logger.level for logger in loggers]
    for logger in loggers:
        logger.addHandler(handler)
        logger.setLevel(logging.INFO)
    yield handler.lines
    for logger, level in zip(loggers, levels, strict=True):
        logger.removeHandler(handler)
        logger.setLevel(level)


def _time(value: str) -> datetime:
    return datetime.fromisoformat(value.replace("Z", "+00:00"))


def test_completed_tasks_carry_when_each_file_was_read(admin: httpx.Client, empty_graph: Database) -> None:
    finished = ingest_paths(admin, [ADCS_ZIP])
    assert finished["status"] == 2, finished
    tasks = sorted(completed_tasks(admin, finished["id"]), key=lambda task: task["id"])
    assert len(tasks) == 13
    job_start, job_end = _time(finished["start_time"]), _time(finished["end_time"])
    for task in tasks:
        start, end = _time(task["start_time"]), _time(task["end_time"])
        assert job_start <= start <= end <= job_end, task
    # Files are read one after the other (in the datapipe's reading order: test_upload_order.py).
    for earlier, later in itertools.pairwise(sorted(tasks, key=lambda task: _time(task["start_time"]))):
        assert _time(earlier["end_time"]) <= _time(later["start_time"])


def test_each_file_and_each_analysis_rule_is_logged(admin: httpx.Client, empty_graph: Database,
                                                    info_lines: list[str]) -> None:
    finished = ingest_paths(admin, [ADCS_ZIP])
    assert finished["status"] == 2, finished
    files = [line for line in info_lines if line.startswith("ingested ")]
    assert len(files) == 13
    users = next(line for line in files if line.startswith("ingested users.json:"))
    assert " records, " in users and " nodes, " in users and " edges in " in users and " edges/s)" in users
    rules = [line for line in info_lines if line.startswith("analysis rule ")]
    assert rules and all(" edges added, " in line and " removed" in line for line in rules)
