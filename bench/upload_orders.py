"""Ingest through the upload API whatever the member order: `sharphound_collection.py`'s collection, zipped
in several member orders, each uploaded to a fresh service.

    .venv/bin/python bench/upload_orders.py [--objects 100000] [--orders sharphound,reverse,issue] [--rounds 2]

Orders: `sharphound` (domains, OUs, GPOs, containers, groups, users, computers: the order SharpHound writes),
`reverse`, and `issue` (users, groups, computers, OUs, GPOs, containers, domains: the order of issue #14).
Prints, per order, each file's nodes, edges, seconds and edges/s from the job's completed tasks (the datapipe's own
start and end times: from its transaction's start, once the file before has committed and this file's first batch
is taken in from the reading process, to the last statement before its own commit; the file itself may have been
read ahead meanwhile), in the order the datapipe read them, then the ingest and analysis wall
times, with the machine and load average, and the CPU seconds the service's process, its reading process and
PostgreSQL spent from the upload to the end of ingest (a figure that other work on the machine disturbs far less
than wall time).

Each run is a process of its own (a fresh service, data directory and interpreter), so nothing one run leaves in
memory slows the next. Runs in a row drift (the machine's other work, its disk cache), so with `--rounds 2` or more
the orders run forward, then backward, and so on, and the summary compares each order's median.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time
import zipfile
from datetime import datetime
from pathlib import Path

from processes import children, cpu, postgres_cpu  # bench/processes.py
from sharphound_collection import FILES, Layout, write_collection  # bench/sharphound_collection.py
from upload import machine, service, upload_all  # bench/upload.py

SHARPHOUND_ORDER = list(FILES)
ORDERS = {
    "sharphound": SHARPHOUND_ORDER,
    "reverse": SHARPHOUND_ORDER[::-1],
    "issue": ["users", "groups", "computers", "ous", "gpos", "containers", "domains"],
}


def zip_in_order(paths: dict[str, Path], order: list[str], archive: Path) -> None:
    with zipfile.ZipFile(archive, "w", zipfile.ZIP_DEFLATED, compresslevel=1) as out:
        for kind in order:
            out.write(paths[kind], paths[kind].name)


def _seconds(task: dict) -> float:
    start, end = (datetime.fromisoformat(task[key].replace("Z", "+00:00")) for key in ("start_time", "end_time"))
    return (end - start).total_seconds()


POLL_SECONDS = 0.25


def cpu_seconds(data_dir: Path) -> dict[str, float]:
    """CPU seconds so far of the service's three parts: this process (web requests and the datapipe's writer;
    the bench's client is a small share), its reading processes (live, and those it has reaped: the datapipe closes
    the idle one before an analysis), and PostgreSQL (the server and its backends, ended ones included: the server
    reaps them)."""
    reading = [pid for pid in children(os.getpid())
               if b"houndgraph.worker.read_process" in Path(f"/proc/{pid}/cmdline").read_bytes()]
    own = cpu(os.getpid(), reaped=False)
    return {
        "service": own,
        # This process's other reaped children ran before the upload (the embedded server's set-up): a difference
        # of two readings leaves them out.
        "reading": sum(cpu(pid, reaped=False) for pid in reading) + cpu(os.getpid(), reaped=True) - own,
        "postgres": postgres_cpu(data_dir),
    }


def run_order(name: str, archive: Path, data_dir: Path) -> dict[str, float]:
    """Upload `archive` to a fresh service on `data_dir`; prints the job's files and figures, returns them."""
    with service(data_dir) as http:
        before = cpu_seconds(data_dir)
        after: dict[str, float] = {}
        # Polled four times a second: at the default twenty, the status requests cost the service some 5 s of
        # CPU over a 60 s ingest, on the cores the ingest uses.
        job, seconds = upload_all(http, [archive], poll=POLL_SECONDS,
                                  on_ingested=lambda: after.update(cpu_seconds(data_dir)))
        tasks = http.get(f"/api/v2/file-upload/{job['id']}/completed-tasks").json()["data"]
    print(f"\norder {name}: status {job['status']}, {job['nodes_written']:,} nodes, {job['edges_written']:,} edges")
    print(f"  {'file':<34} {'nodes':>9} {'edges':>9} {'seconds':>8} {'edges/s':>10}")
    for task in sorted(tasks, key=lambda item: item["start_time"]):  # in the order the datapipe read them
        spent = _seconds(task)
        print(f"  {task['file_name']:<34} {task['nodes_written']:>9,} {task['edges_written']:>9,} {spent:>8.2f} "
              f"{task['edges_written'] / max(spent, 1e-3):>10,.0f}")
    ingest = max(seconds["ingest"], 1e-3)
    print(f"  ingest {ingest:.1f} s ({job['edges_written'] / ingest:,.0f} edges/s), analysis "
          f"{seconds['analysis']:.1f} s, upload {seconds['upload']:.1f} s; load average {os.getloadavg()[0]:.2f}")
    used = {part: after[part] - before[part] for part in before}
    print(f"  CPU from upload to ingested: {sum(used.values()):.1f} s (" + ", ".join(
        f"{part} {value:.1f} s" for part, value in used.items()) + ")")
    return {"ingest": ingest, "analysis": seconds["analysis"], "cpu": sum(used.values())}


def run_in_child(name: str, collection: Path) -> dict[str, float]:
    """`run_order` in a process of its own, on the collection already written under `collection`."""
    result = collection / f"result-{name}.json"
    subprocess.run([sys.executable, __file__, "--run", name, "--collection", str(collection)], check=True)
    figures: dict[str, float] = json.loads(result.read_text())
    result.unlink()
    return figures


def child(name: str, collection: Path) -> None:
    paths = {kind: next(collection.glob(f"*_{kind}.json")) for kind in FILES}
    archive = collection / f"collection-{name}.zip"
    zip_in_order(paths, ORDERS[name], archive)
    with tempfile.TemporaryDirectory(prefix=f"data-{name}-", dir=collection) as data_dir:
        figures = run_order(name, archive, Path(data_dir))
    archive.unlink(missing_ok=True)
    (collection / f"result-{name}.json").write_text(json.dumps(figures))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--objects", type=int, default=100_000)
    parser.add_argument("--orders", default=",".join(ORDERS), help=f"comma-separated, of {', '.join(ORDERS)}")
    parser.add_argument("--rounds", type=int, default=1, help="each order this many times, alternating direction")
    parser.add_argument("--run", help=argparse.SUPPRESS)  # one run, in a child process
    parser.add_argument("--collection", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    # A plain `kill` unwinds like Ctrl-C, so each service's embedded PostgreSQL is stopped and its files removed.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(1))
    if args.run:
        child(args.run, args.collection)
        return
    orders = args.orders.split(",")
    print(f"{machine()}; load average {os.getloadavg()[0]:.2f}")
    with tempfile.TemporaryDirectory(prefix="hgb-orders-", dir="/tmp") as tmp:
        started = time.perf_counter()
        write_collection(Layout.of(args.objects), Path(tmp))
        print(f"collection: {args.objects:,} objects, written in {time.perf_counter() - started:.1f} s")
        results: dict[str, list[dict[str, float]]] = {name: [] for name in orders}
        for round_ in range(args.rounds):
            for name in orders if round_ % 2 == 0 else orders[::-1]:
                results[name].append(run_in_child(name, Path(tmp)))
    print("\nsummary, per order: ingest s, analysis s, CPU s to ingested" + (" (each run; median)" if args.rounds > 1
                                                                             else ""))
    medians = {}
    for name, runs in results.items():
        medians[name] = statistics.median(run["ingest"] for run in runs)
        each = ", ".join(f"{run['ingest']:.1f} / {run['analysis']:.1f} / {run['cpu']:.1f}" for run in runs)
        print(f"  {name:<11} {each}" + (f"; median ingest {medians[name]:.1f}" if args.rounds > 1 else ""))
    cpu = {name: statistics.median(run["cpu"] for run in runs) for name, runs in results.items()}
    print(f"slowest / fastest{' (medians)' if args.rounds > 1 else ''}: ingest "
          f"{max(medians.values()) / min(medians.values()):.2f}, "
          f"CPU to ingested {max(cpu.values()) / min(cpu.values()):.2f}"
          f"; load average {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
