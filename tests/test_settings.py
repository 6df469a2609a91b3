import multiprocessing
import os
import stat
import subprocess
import sys
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from houndgraph.settings import InsecureSettingError, Settings, check_password_strength


@pytest.mark.parametrize("password", ["short1!A", "password12345", "alllowercaseletters", "Admin-admin"])
def test_weak_passwords_are_refused(password: str) -> None:
    with pytest.raises(InsecureSettingError):
        check_password_strength(password)


def test_a_strong_password_passes() -> None:
    check_password_strength("Correct-Horse-Battery-9")


def test_the_generated_secret_key_is_private_and_stable(tmp_path: Path) -> None:
    first = Settings(data_dir=tmp_path).signing_key()
    key_file = tmp_path / "secret_key"
    assert stat.S_IMODE(key_file.stat().st_mode) == 0o600
    assert Settings(data_dir=tmp_path).signing_key() == first
    assert len(first) >= 32


def _signing_key_after(barrier: Any, data_dir: Path) -> bytes:
    barrier.wait()
    return Settings(data_dir=data_dir).signing_key()


@pytest.mark.parametrize("round_", range(5))
def test_processes_starting_together_on_a_new_data_directory_share_one_whole_key(tmp_path: Path, round_: int) -> None:
    # `make serve` starts a worker per core at once: each must read the key another just made, never an empty or
    # half-written file (one worker signed with an empty key and the other refused its sessions).
    processes = 8
    with multiprocessing.Manager() as manager, ProcessPoolExecutor(processes) as pool:
        barrier = manager.Barrier(processes)
        keys = list(pool.map(_signing_key_after, [barrier] * processes, [tmp_path] * processes))
    assert len(keys[0]) >= 48 and set(keys) == {keys[0]}
    assert [path.name for path in tmp_path.iterdir()] == ["secret_key"]


def test_a_short_configured_secret_key_is_refused(tmp_path: Path) -> None:
    with pytest.raises(InsecureSettingError, match="HOUNDGRAPH_SECRET_KEY"):
        Settings(data_dir=tmp_path, secret_key="too-short").check()


def test_listening_beyond_loopback_needs_a_configured_admin_password(tmp_path: Path) -> None:
    with pytest.raises(InsecureSettingError, match="HOUNDGRAPH_ADMIN_PASSWORD"):
        Settings(data_dir=tmp_path, host="0.0.0.0").check()


def test_serve_refuses_to_start_with_a_weak_admin_password(tmp_path: Path) -> None:
    env = {**os.environ, "HOUNDGRAPH_DATA_DIR": str(tmp_path), "HOUNDGRAPH_ADMIN_PASSWORD": "admin"}
    result = subprocess.run([sys.executable, "-m", "houndgraph.cli", "serve"], env=env, capture_output=True,
                            text=True, timeout=60)
    assert result.returncode == 2
    assert "Refusing to start" in result.stderr
    assert "HOUNDGRAPH_ADMIN_PASSWORD" in result.stderr
    assert not (tmp_path / "pgdata").exists(), "nothing starts on an insecure setting"


def test_workers_and_long_query_slots_follow_the_cpus_the_process_may_run_on(tmp_path: Path) -> None:
    """Under `taskset -c 0` (or a container's cpuset) the service starts one worker, not one per machine CPU."""
    script = ("import os; os.sched_setaffinity(0, {min(os.sched_getaffinity(0))}); "
              "from houndgraph.settings import Settings; s = Settings(data_dir=os.environ['DIR']); "
              "print(s.workers, s.long_graph_queries)")
    unset = ("HOUNDGRAPH_WORKERS", "HOUNDGRAPH_LONG_GRAPH_QUERIES")
    env = {key: value for key, value in os.environ.items() if key not in unset} | {"DIR": str(tmp_path)}
    answer = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, check=True)
    assert answer.stdout.split() == ["1", "1"]
