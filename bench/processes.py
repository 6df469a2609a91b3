"""What the benchmarks read of the processes they measure: CPU seconds from /proc (a process, with the children it
has reaped; the embedded PostgreSQL, by role), CPU seconds of process trees between two readings (`CpuMeter`), and
the peak memory and CPU seconds of the service and of PostgreSQL, sampled on a thread (`MemoryWatch`)."""

from __future__ import annotations

import os
import threading
from pathlib import Path

import psutil

_TICKS = os.sysconf("SC_CLK_TCK")


def _stat(pid: int | str) -> list[str]:
    """The fields of /proc/PID/stat after the command name (field 3, the state, first)."""
    return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()


def children(parent: int) -> list[int]:
    pids = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if int(_stat(entry.name)[1]) == parent:
                    pids.append(int(entry.name))
            except (OSError, IndexError):
                continue  # gone meanwhile
    return pids


def cpu(pid: int, reaped: bool) -> float:
    """CPU seconds of a process, with those of the children it has waited for when `reaped`."""
    try:
        fields = _stat(pid)
    except OSError:
        return 0.0
    return sum(int(value) for value in fields[11:15 if reaped else 13]) / _TICKS


def postgres_cpu(data_dir: Path) -> float:
    """CPU seconds so far of the embedded PostgreSQL under `data_dir`: the server and its backends, ended ones
    included (the server reaps them)."""
    return sum(postgres_cpu_by_role(data_dir).values())


def postgres_cpu_by_role(data_dir: Path) -> dict[str, float]:
    """`postgres_cpu` by process: "server" (the postmaster and the backends that have ended), "backend" (those
    still connected), and each auxiliary process by its title ("walwriter", "checkpointer", ...)."""
    postmaster = int(next(data_dir.rglob("postmaster.pid")).read_text().split()[0])
    roles = {"server": cpu(postmaster, reaped=True)}
    for pid in children(postmaster):
        try:
            title = Path(f"/proc/{pid}/cmdline").read_bytes().decode(errors="replace").replace("\0", " ").split()
        except OSError:
            continue
        role = title[1] if len(title) > 1 and title[1] in _AUXILIARY else "backend"
        roles[role] = roles.get(role, 0.0) + cpu(pid, reaped=False)
    return roles


_AUXILIARY = ("walwriter", "checkpointer", "background", "autovacuum", "io", "logical")


class CpuMeter:
    """CPU seconds spent by process trees (the service's, PostgreSQL's) between two readings: on a loaded
    machine, CPU per request says more than requests/s, which depend on what else runs."""

    def __init__(self, roots: dict[str, int]) -> None:
        self.roots = roots

    def read(self) -> dict[str, dict[int, float]]:
        reading: dict[str, dict[int, float]] = {}
        for label, pid in self.roots.items():
            root = psutil.Process(pid)
            reading[label] = {}
            for process in [root, *root.children(recursive=True)]:
                try:
                    times = process.cpu_times()
                except psutil.Error:
                    continue
                reading[label][process.pid] = times.user + times.system
                if process is root:  # children gone since (a backend whose connection was closed) count here
                    reading[label][process.pid] += times.children_user + times.children_system
        return reading

    @staticmethod
    def spent(before: dict[str, dict[int, float]], after: dict[str, dict[int, float]]) -> dict[str, float]:
        # A child gone since the first reading counts at the root with all its time, the part before that reading
        # included: that part is taken off (it was counted twice: PostgreSQL's figure passed the machine's cores).
        return {label: sum(seconds - before[label].get(pid, 0.0) for pid, seconds in after[label].items())
                - sum(seconds for pid, seconds in before[label].items() if pid not in after[label])
                for label in after}


class MemoryWatch:
    """Peak memory of the service's processes and of PostgreSQL's, sampled on a thread: RSS every half second,
    PSS every two (reading a process's PSS walks its page tables, 1 GB of shared buffers for each PostgreSQL
    process: sampling all of them every half second took about a third of a core from the run it measured)."""

    def __init__(self, service: psutil.Process, data_dir: Path) -> None:
        self.service = service
        self.pgdata = data_dir
        self.peak_rss = self.peak_pss = self.peak_postgres = 0
        # Both sampled at the same moment: what the machine must hold for the two at once.
        self.peak_together = 0
        # What the run is doing (the caller says), and what it was doing at each peak.
        self.phase = "start"
        self.phase_of: dict[str, str] = {}
        # The service's processes at the moment of that joint peak: (what each runs, its PSS).
        self.together_by_process: list[tuple[str, int]] = []
        self.together_postgres = 0
        self._postmaster: psutil.Process | None = None
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def __enter__(self) -> MemoryWatch:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()

    def _postgres(self) -> list[psutil.Process]:
        try:
            if self._postmaster is None or not self._postmaster.is_running():
                pid_files = list(self.pgdata.rglob("postmaster.pid"))
                if not pid_files:
                    return []
                self._postmaster = psutil.Process(int(pid_files[0].read_text().split()[0]))
            return [self._postmaster, *self._postmaster.children(recursive=True)]
        except (psutil.Error, ValueError, OSError):
            self._postmaster = None
            return []

    @staticmethod
    def _sum(processes: list[psutil.Process], what: str) -> int:
        total = 0
        for process in processes:
            try:
                info = process.memory_full_info()
                total += getattr(info, what)
            except psutil.Error:
                pass
        return total

    def _run(self) -> None:
        samples = 0
        while not self._stop.wait(0.5):
            try:
                tree = [self.service, *self.service.children(recursive=True)]
            except psutil.Error:
                return
            tree = [process for process in tree if "postgres" not in process.name()]
            self._peak("peak_rss", sum(map(self._rss, tree)))
            samples += 1
            if samples % 4 == 1:
                each = [(self._what(process), self._sum([process], "pss")) for process in tree]
                service, postgres = sum(pss for _, pss in each), self._sum(self._postgres(), "pss")
                self._peak("peak_pss", service)
                self._peak("peak_postgres", postgres)
                if self._peak("peak_together", service + postgres):
                    self.together_by_process = sorted(each, key=lambda item: -item[1])
                    self.together_postgres = postgres

    def _peak(self, name: str, value: int) -> bool:
        if value <= getattr(self, name):
            return False
        setattr(self, name, value)
        self.phase_of[name] = self.phase
        return True

    @staticmethod
    def _what(process: psutil.Process) -> str:
        """The service's main process, a reading process, a worker: the module it runs, or its first words."""
        try:
            words = process.cmdline()
        except psutil.Error:
            return "?"
        if "-m" in words and words.index("-m") + 1 < len(words):
            return " ".join(words[words.index("-m") + 1:words.index("-m") + 3])
        return " ".join(word.rsplit("/", 1)[-1] for word in words[:2])

    @staticmethod
    def _rss(process: psutil.Process) -> int:
        try:
            return int(process.memory_info().rss)
        except psutil.Error:  # a process that has just ended
            return 0

    def cpu_seconds(self) -> tuple[float, float]:
        """CPU seconds so far of the service's processes and of PostgreSQL's: the live processes' own, and
        those of the children they have reaped (the reading process, a worker; PostgreSQL's ended backends)."""
        try:
            tree = [self.service, *self.service.children(recursive=True)]
        except psutil.Error:
            tree = []
        service = [process for process in tree if "postgres" not in process.name()]
        postgres = self._postgres()
        # Each service process's reaped children: the reading process is a child of the worker that runs the
        # datapipe, which closes it before an analysis.
        return _cpu(service, reaped=service), _cpu(postgres, reaped=postgres[:1])


def _cpu(processes: list[psutil.Process], reaped: list[psutil.Process]) -> float:
    total = 0.0
    for process in processes:
        try:
            times = process.cpu_times()
        except psutil.Error:
            continue
        total += times.user + times.system
        if process in reaped:
            total += times.children_user + times.children_system
    return total
