"""One million objects through the upload API: ingest, analysis, memory, disk, and path searches.

    .venv/bin/python bench/scale.py [--objects 100000,300000,1000000] [--rounds 5]
    .venv/bin/python bench/scale.py --objects 300000 --compare 100000      # the same as --objects 100000,300000

For each size (smallest first; `--compare`, unless 0, is one more size): writes the synthetic SharpHound v6 collection
of `sharphound_collection.py` (ten edge records an object) as one zip in SharpHound's member order, starts a fresh
`houndgraph serve` process on an empty data directory, uploads the zip and times ingest and analysis from the
job's status; asks for a second analysis with nothing changed and times it; reads the database size
(`pg_database_size` and `du` of the data directory); times over HTTP (p50 of `--rounds`) the shortest path
from an enabled user to Domain Admins and the many-sources Cypher query below, and both again towards the
group at the root of the collection's group tree (every user reaches it; nothing reaches Domain Admins);
prints the slowest analysis rules from the service's log. The service's peak memory is sampled every half
second: its own processes (RSS and PSS) and, separately, the embedded PostgreSQL's (PSS, which counts shared
buffers once), and the two together at the same moment, each peak with the phase it came in (ingest, analysis, the
rest). CPU seconds of the service's processes and of PostgreSQL's (exited backends included, through
the postmaster's children times) are read when ingest ends and when analysis ends: on a shared machine they
move less than wall-clock time. The WAL the server wrote (`pg_stat_wal`) and what `pg_wal` holds at the end
are printed beside the database size. The figures of every size are printed side by side at the end, with
each figure's growth factor from one size to the next beside the factor of the sizes themselves, the machine
and the load average.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import zipfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import httpx
import psutil
from processes import MemoryWatch  # bench/processes.py
from sharphound_collection import DOMAIN_ADMINS, Layout, write_collection  # bench/sharphound_collection.py
from synthetic import p50_p90  # bench/synthetic.py
from upload import PASSWORD, free_port, machine, upload_all  # bench/upload.py

from houndgraph.db import Database
from houndgraph.graph.projection.csr import META
from houndgraph.graph.projection.reading import VERSION as EDGE_VERSION
from houndgraph.graph.projection.store import PROJECTION_DIRECTORY
from houndgraph.settings import Settings

MANY_SOURCES = ("MATCH p=shortestPath((u:User)-[*1..]->(g:Group {{objectid: '{target}'}})) "
                "WHERE u.enabled = true RETURN p LIMIT 1000")
MIB = 1024**2
# The largest tables and indexes of the graph, in bytes (a table's TOAST counted with it).
LARGEST_RELATIONS = """
SELECT c.relname, pg_total_relation_size(c.oid) - CASE WHEN c.relkind = 'r' THEN pg_indexes_size(c.oid) ELSE 0 END
FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
WHERE n.nspname = current_schema() AND c.relkind IN ('r', 'i')
ORDER BY 2 DESC LIMIT 6
"""
ANALYSIS_RULE = re.compile(r"analysis rule (\S+): ([\d.]+) s")
ANALYSIS_STEP = re.compile(r"analysis step (\S+): ([\d.]+) s")


@dataclass
class Figures:
    objects: int
    edge_records: int = 0
    files_mb: float = 0.0
    values: dict[str, str] = field(default_factory=dict)

    def put(self, name: str, value: str) -> None:
        self.values[name] = value
        print(f"  {name}: {value}", flush=True)


def path_user(layout: Layout) -> str:
    """The user whose path searches the benchmark times: an enabled one (every tenth user is disabled)."""
    return layout.user(next(i for i in range(7, layout.users) if i % 10 != 0))


@contextmanager
def serve(data_dir: Path, log: Path) -> Iterator[tuple[httpx.Client, psutil.Process]]:
    """`houndgraph serve` on `data_dir` in its own process, and a client logged in as its admin."""
    port = free_port()
    env = {**os.environ, "HOUNDGRAPH_DATA_DIR": str(data_dir), "HOUNDGRAPH_PORT": str(port),
           "HOUNDGRAPH_ADMIN_PASSWORD": PASSWORD, "HOUNDGRAPH_DATAPIPE_INTERVAL": "0.2",
           "HOUNDGRAPH_LOG_LEVEL": "info", "HOUNDGRAPH_REQUEST_TIMEOUT_SECONDS": "300"}
    with log.open("wb") as output:
        process = subprocess.Popen([sys.executable, "-m", "houndgraph.cli", "serve"], env=env,
                                   stdout=output, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 300
        while True:
            try:
                if httpx.get(f"{url}/api/v2/health", timeout=5).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            if time.monotonic() > deadline or process.poll() is not None:
                raise SystemExit(f"the service did not start; see {log}")
            time.sleep(0.2)
        with httpx.Client(base_url=url, timeout=900) as http:
            token = http.post("/api/v2/login", json={"login_method": "secret", "username": "admin",
                                                     "secret": PASSWORD}).json()["data"]["session_token"]
            http.headers["Authorization"] = f"Bearer {token}"
            yield http, psutil.Process(process.pid)
    finally:
        process.terminate()
        try:
            process.wait(timeout=120)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def write_zip(layout: Layout, directory: Path) -> tuple[Path, float]:
    """The collection as one zip, in SharpHound's member order; its JSON files' size in MB."""
    paths = write_collection(layout, directory)
    size = sum(path.stat().st_size for path in paths) / 1e6
    archive = directory / "collection.zip"
    with zipfile.ZipFile(archive, "w", zipfile.ZIP_DEFLATED, compresslevel=1) as out:
        for path in paths:
            out.write(path, path.name)
            path.unlink()
    return archive, size


def reanalyse(http: httpx.Client) -> float:
    """Ask for an analysis with nothing changed; seconds until the datapipe has run it. Asked once the datapipe is
    idle: the upload's job is complete before its analysis's closing checkpoint, which would count otherwise."""
    while (status := http.get("/api/v2/datapipe/status").json()["data"])["status"] != "idle":
        time.sleep(0.2)
    before = status["last_analysis_run_at"]
    started = time.monotonic()
    http.put("/api/v2/analysis").raise_for_status()
    while True:
        status = http.get("/api/v2/datapipe/status").json()["data"]
        if status["last_analysis_run_at"] != before and status["status"] == "idle":
            return time.monotonic() - started
        time.sleep(0.2)


def timed(http: httpx.Client, rounds: int, method: str, path: str, body: dict | None = None) -> tuple[str, str]:
    """p50 / p90 in ms over `rounds`, and what the last answer held."""
    timings = []
    for _ in range(rounds):
        started = time.perf_counter()
        response = http.request(method, path, json=body)
        timings.append(time.perf_counter() - started)
    p50, p90 = p50_p90(timings)
    answer = f"HTTP {response.status_code}"
    if response.status_code == 200:
        data = response.json().get("data") or {}
        answer += f", {len(data.get('nodes') or {})} nodes, {len(data.get('edges') or [])} edges"
    return f"{p50 * 1000:,.1f} ms (p90 {p90 * 1000:,.1f})", answer


def du(path: Path) -> int:
    return int(subprocess.run(["du", "-sb", str(path)], capture_output=True, text=True, check=True).stdout.split()[0])


def database_size(data_dir: Path) -> tuple[int, int, int, str, str]:
    """`pg_database_size`, the `du` of the data directory and of its `pg_wal`, the WAL the server has written since
    it was created (`pg_stat_wal`: its bytes, then how many of its records were whole pages, and how many checkpoints
    the server made), and the largest relations, in bytes (attaching to the running server)."""
    database = Database.open(Settings(data_dir=data_dir))
    try:
        with database.connect_raw() as conn:
            row = conn.execute("SELECT pg_database_size(current_database()), "
                               "(SELECT wal_bytes FROM pg_stat_wal), (SELECT wal_fpi FROM pg_stat_wal), "
                               "(SELECT num_done FROM pg_stat_checkpointer)").fetchone()
            largest = conn.execute(LARGEST_RELATIONS).fetchall()
    finally:
        database.close()
    assert row is not None
    wal_dirs = list(data_dir.rglob("pg_wal"))
    relations = ", ".join(f"{name} {size / 1e6:,.0f} MB" for name, size in largest)
    written = f"{int(row[1]) / 1e9:.2f} GB ({int(row[2]):,} full-page images; {row[3]} checkpoints)"
    return row[0], du(data_dir), sum(map(du, wal_dirs)), written, relations


def wait_for_path_projection(http: httpx.Client, data_dir: Path, path: str, seconds: float = 600) -> str:
    """Ask for `path` once (a search asks for the copy of the edges it did not find) and wait until the copy of the
    current edges is published in `data_dir`; its size and how long it took to be ready."""
    started = time.perf_counter()
    http.get(path)
    database = Database.open(Settings(data_dir=data_dir))
    try:
        with database.connect_raw() as conn:
            row = conn.execute(EDGE_VERSION).fetchone()
    finally:
        database.close()
    assert row is not None
    meta = data_dir / PROJECTION_DIRECTORY / str(row[0]) / META
    while not meta.exists():
        if time.perf_counter() - started > seconds:
            raise SystemExit(f"no path projection after {seconds:.0f} s (is HOUNDGRAPH_PATH_PROJECTION off?)")
        time.sleep(0.1)
    ready = time.perf_counter() - started
    figures = json.loads(meta.read_text())
    return (f"{figures['bytes'] / max(figures['edges'], 1):.1f} bytes per edge ({figures['bytes'] / MIB:,.0f} MiB, "
            f"{figures['edges']:,} edges, {figures['nodes']:,} nodes), ready {ready:.1f} s after the first search")


def slowest_rules(log: Path, count: int = 5) -> str:
    seconds: dict[str, float] = {}
    for match in ANALYSIS_RULE.finditer(log.read_text(errors="replace")):
        seconds.setdefault(match.group(1), float(match.group(2)))  # the first (full) analysis
    ranked = sorted(seconds.items(), key=lambda item: -item[1])[:count]
    return ", ".join(f"{name} {value:.1f} s" for name, value in ranked)


def last_steps(log: Path) -> str:
    """The closing steps of the last analysis (the re-analysis with nothing changed) and their seconds."""
    text = log.read_text(errors="replace")
    seconds = {match.group(1): float(match.group(2)) for match in ANALYSIS_STEP.finditer(text)}
    return ", ".join(f"{name} {value:.1f} s" for name, value in seconds.items())


@contextmanager
def keep_log_on_failure(log: Path) -> Iterator[None]:
    """A run that fails (a lost connection, an error answer) keeps the service's log beside the scratch directory,
    which is removed, and prints its last lines other than the request log."""
    try:
        yield
    except BaseException:
        if log.exists():
            kept = log.parent.parent.with_name(f"{log.parent.parent.name}-{log.parent.name}-service.log")
            shutil.copyfile(log, kept)
            lines = [line for line in log.read_text(errors="replace").splitlines() if '"event": "request"' not in line]
            print(f"  the run failed; the service's log is kept in {kept}; its last lines:", *lines[-15:],
                  sep="\n    ", flush=True)
        raise


def cpu_between(before: tuple[float, float], after: tuple[float, float]) -> str:
    return f"{after[0] - before[0]:.1f} s, {after[1] - before[1]:.1f} s"


def run_size(objects: int, rounds: int, scratch: Path) -> Figures:
    figures = Figures(objects)
    layout = Layout.of(objects)
    work = scratch / f"size-{objects}"
    work.mkdir()
    print(f"\n{objects:,} objects", flush=True)
    started = time.perf_counter()
    archive, figures.files_mb = write_zip(layout, work)
    figures.put("collection", f"{figures.files_mb:,.0f} MB of JSON, {archive.stat().st_size / 1e6:,.0f} MB zipped, "
                f"written in {time.perf_counter() - started:.0f} s")
    data_dir, log = work / "data", work / "service.log"
    with keep_log_on_failure(log), serve(data_dir, log) as (http, process), MemoryWatch(process, data_dir) as memory:
        cpu = [memory.cpu_seconds()]

        def ingested() -> None:
            cpu.append(memory.cpu_seconds())
            memory.phase = "analysis"

        memory.phase = "ingest"
        job, seconds = upload_all(http, [archive], poll=1.0, on_ingested=ingested)
        cpu.append(memory.cpu_seconds())
        memory.phase = "re-analysis and path searches"
        archive.unlink()
        figures.edge_records = job["edges_written"]
        figures.put("upload -> analysing (ingest)", f"{seconds['ingest']:.1f} s ({job['nodes_written']:,} nodes, "
                    f"{job['edges_written']:,} edges, status {job['status']}); load average {os.getloadavg()[0]:.1f}")
        figures.put("ingest CPU: service, PostgreSQL", cpu_between(cpu[0], cpu[1]))
        figures.put("analysis", f"{seconds['analysis']:.1f} s; load average {os.getloadavg()[0]:.1f}")
        figures.put("analysis CPU: service, PostgreSQL", cpu_between(cpu[1], cpu[2]))
        user = path_user(layout)
        # The datapipe builds the path copy of the analysed graph before it takes the next request: waited for here,
        # so that neither it nor the checkpoint counts in the re-analysis.
        if os.environ.get("HOUNDGRAPH_PATH_PROJECTION", "true").lower() not in ("0", "false", "off", "no"):
            figures.put("path projection", wait_for_path_projection(
                http, data_dir, f"/api/v2/graphs/shortest-path?start_node={user}&end_node={DOMAIN_ADMINS}"))
        figures.put("re-analysis, nothing changed", f"{reanalyse(http):.1f} s; load average {os.getloadavg()[0]:.1f}")
        figures.put("re-analysis steps", last_steps(log))
        pg_size, du_size, wal_size, wal_written, largest = database_size(data_dir)
        path = timed(http, rounds, "GET", f"/api/v2/graphs/shortest-path?start_node={user}&end_node={DOMAIN_ADMINS}")
        figures.put("shortest path user -> Domain Admins, p50", f"{path[0]}; {path[1]}")
        many = timed(http, rounds, "POST", "/api/v2/graphs/cypher",
                     {"query": MANY_SOURCES.format(target=DOMAIN_ADMINS), "include_properties": False})
        figures.put("many sources -> Domain Admins (Cypher), p50", f"{many[0]}; {many[1]}")
        # Nothing in this collection leads to Domain Admins (the searches above exhaust what the user reaches);
        # every user reaches the root of the group tree, through its groups.
        top = layout.group(0)
        path = timed(http, rounds, "GET", f"/api/v2/graphs/shortest-path?start_node={user}&end_node={top}")
        figures.put("shortest path user -> top group, p50", f"{path[0]}; {path[1]}")
        many = timed(http, rounds, "POST", "/api/v2/graphs/cypher",
                     {"query": MANY_SOURCES.format(target=top), "include_properties": False})
        figures.put("many sources -> top group (Cypher), p50", f"{many[0]}; {many[1]}")
        print(f"  (load average {os.getloadavg()[0]:.1f})")
    when = memory.phase_of
    figures.put("service peak memory", f"RSS {memory.peak_rss / MIB:,.0f} MiB, PSS {memory.peak_pss / MIB:,.0f} MiB "
                f"(during {when.get('peak_pss', '-')})")
    figures.put("PostgreSQL peak memory (PSS)", f"{memory.peak_postgres / MIB:,.0f} MiB "
                f"(during {when.get('peak_postgres', '-')})")
    processes = ", ".join(f"{what} {pss / MIB:,.0f}" for what, pss in memory.together_by_process)
    figures.put("service and PostgreSQL at once, peak (PSS)", f"{memory.peak_together / MIB:,.0f} MiB "
                f"(during {when.get('peak_together', '-')}; PostgreSQL {memory.together_postgres / MIB:,.0f} MiB, "
                f"the service's processes: {processes})")
    figures.put("data directory (du) after analysis", f"{du_size / 1e9:.2f} GB: pg_wal {wal_size / 1e9:.2f} GB, "
                f"pg_database_size {pg_size / 1e9:.2f} GB")
    figures.put("WAL written by ingest and analysis", wal_written)
    figures.put("largest relations", largest)
    figures.put("slowest analysis rules", slowest_rules(log))
    shutil.rmtree(work, ignore_errors=True)
    return figures


# Figures compared side by side: those of a few words (the others are printed with each size).
_TABLE_SKIPS = ("slowest analysis rules", "re-analysis steps", "largest relations", "collection", "path projection")
_NUMBER = re.compile(r"-?[\d,]*\.?\d+")


def leading_number(value: str) -> float | None:
    match = _NUMBER.search(value)
    return float(match.group().replace(",", "")) if match else None


def growth(before: Figures, after: Figures, name: str) -> str:
    """`x<figure's factor>` from one size to the next; '' where either has no number (or the first is 0)."""
    first, second = leading_number(before.values.get(name, "")), leading_number(after.values.get(name, ""))
    if first is None or second is None or first == 0:
        return ""
    return f"x{second / first:.2f}"


def print_table(results: list[Figures]) -> None:
    """Each figure's value at every size, and between two sizes its growth factor; the header gives the factor
    of the sizes, which a figure that grows linearly matches."""
    header = f"{'figure':40}" + f"{f'{results[0].objects:,} objects':>40}"
    for before, after in zip(results, results[1:], strict=False):
        header += f"{f'x{after.objects / before.objects:.2f}':>9}" + f"{f'{after.objects:,} objects':>40}"
    print("\n" + header)
    for name in results[-1].values:
        if name in _TABLE_SKIPS:
            continue
        line = f"{name[:40]:40}" + f"{results[0].values.get(name, '-').split(';')[0][:39]:>40}"
        for before, after in zip(results, results[1:], strict=False):
            line += f"{growth(before, after, name):>9}" + f"{after.values.get(name, '-').split(';')[0][:39]:>40}"
        print(line)


def sizes(text: str) -> list[int]:
    return [int(part.replace("_", "")) for part in text.split(",") if part.strip()]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--objects", type=sizes, default=[1_000_000],
                        help="sizes, comma-separated (e.g. 100000,300000,1000000)")
    parser.add_argument("--compare", type=int, default=100_000, help="one more size (0: none)")
    parser.add_argument("--rounds", type=int, default=5, help="rounds of each path search")
    args = parser.parse_args()
    # A plain `kill` unwinds like Ctrl-C, so the service is stopped and the scratch directory removed.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(1))
    print(f"{machine()}; load average {os.getloadavg()[0]:.2f}")
    chosen = sorted({*args.objects, *([args.compare] if args.compare else [])})
    with tempfile.TemporaryDirectory(prefix="hgb-scale-", dir="/tmp") as tmp:
        results = [run_size(size, args.rounds, Path(tmp)) for size in chosen]
    print_table(results)
    print(f"load average at the end {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
