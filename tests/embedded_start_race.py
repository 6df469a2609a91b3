"""Run as a program: start the embedded database in N processes at once, each in a data directory of its own
under ROOT, and print one line per process ("ok" or its error). `test_database.py` runs it on a machine without
the embedded server's OS user."""

from __future__ import annotations

import multiprocessing
import sys
from pathlib import Path
from typing import Any


def _start(root: str, index: int, barrier: Any, results: Any) -> None:
    from houndgraph.db import Database
    from houndgraph.settings import Settings

    barrier.wait()
    try:
        Database.open(Settings(data_dir=Path(root) / str(index))).close()
        results.put(f"{index} ok")
    except Exception as error:  # noqa: BLE001  # the parent reports what failed
        results.put(f"{index} {error!r}")


def main(root: str, processes: int) -> None:
    context = multiprocessing.get_context("spawn")
    barrier = context.Barrier(processes)
    results = context.Queue()
    workers = [context.Process(target=_start, args=(root, index, barrier, results)) for index in range(processes)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    for _ in workers:
        print(results.get(timeout=5))


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]))
