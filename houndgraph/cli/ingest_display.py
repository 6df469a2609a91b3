"""What `houndgraph ingest` shows: a live progress bar, then a table of every file's outcome."""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from rich.console import Console
from rich.progress import BarColumn, Progress, SpinnerColumn, TextColumn, TimeElapsedColumn
from rich.table import Table

JOB_STATUS_NAMES = {
    -1: "invalid", 0: "ready", 1: "running", 2: "complete", 3: "canceled", 4: "timed out", 5: "failed",
    6: "ingesting", 7: "analyzing", 8: "partially complete",
}
FINISHED_STATUSES = frozenset({2, 3, 4, 5, 8})
SUCCESS_STATUSES = frozenset({2})


@dataclass(frozen=True, slots=True)
class FileOutcome:
    file_name: str
    parent_file_name: str
    state: str
    nodes: int
    edges: int
    errors: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)


class IngestProgress:
    """A progress bar over files, with objects and edges written and the rate."""

    def __init__(self, console: Console, total_files: int) -> None:
        self.started = time.monotonic()
        self._progress = Progress(
            SpinnerColumn(), TextColumn("[bold]{task.description}"), BarColumn(),
            TextColumn("{task.completed}/{task.total} files"), TextColumn("{task.fields[objects]:,} objects"),
            TextColumn("{task.fields[edges]:,} edges"), TextColumn("{task.fields[rate]:,.0f} objects/s"),
            TimeElapsedColumn(), console=console, transient=False,
        )
        self._task = self._progress.add_task("ingesting", total=total_files, objects=0, edges=0, rate=0.0)

    def __enter__(self) -> IngestProgress:
        self._progress.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._progress.stop()

    def update(self, *, files_done: int, objects: int, edges: int, description: str | None = None,
               total_files: int | None = None) -> None:
        elapsed = max(time.monotonic() - self.started, 1e-6)
        fields: dict[str, Any] = {"objects": objects, "edges": edges, "rate": objects / elapsed}
        if description is not None:
            fields["description"] = description
        if total_files is not None:
            fields["total"] = total_files
        self._progress.update(self._task, completed=files_done, **fields)


def summary_table(outcomes: Sequence[FileOutcome], status: int, status_message: str, elapsed: float) -> Table:
    title = f"job {JOB_STATUS_NAMES.get(status, status)}" + (f": {status_message}" if status_message else "")
    table = Table(title=title, title_justify="left")
    table.add_column("file")
    table.add_column("in archive")
    table.add_column("result")
    table.add_column("objects", justify="right")
    table.add_column("edges", justify="right")
    table.add_column("errors and warnings", overflow="fold")
    for outcome in outcomes:
        notes = [*outcome.errors, *outcome.warnings]
        style = "red" if outcome.state == "failed" else ("yellow" if outcome.warnings else "")
        table.add_row(outcome.file_name, outcome.parent_file_name, outcome.state, f"{outcome.nodes:,}",
                      f"{outcome.edges:,}", "\n".join(notes), style=style)
    objects = sum(o.nodes for o in outcomes)
    edges = sum(o.edges for o in outcomes)
    failed = sum(1 for o in outcomes if o.state == "failed")
    rate = objects / elapsed if elapsed > 0 else 0.0
    table.add_section()
    table.add_row(f"{len(outcomes)} files", "", f"{failed} failed", f"{objects:,}", f"{edges:,}",
                  f"{elapsed:.1f} s, {rate:,.0f} objects/s, {edges / elapsed if elapsed > 0 else 0:,.0f} edges/s")
    return table
