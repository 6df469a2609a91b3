"""A zone preview runs synchronous library code in a thread: its connection comes from the synchronous pool, so a
crowd of previews waits its turn (503 at its deadline) instead of opening connections until PostgreSQL has none
left, and what a preview sets on its connection ends with it."""

from __future__ import annotations

from contextlib import ExitStack

import httpx

from houndgraph.db import SYNC_POOL_OVERFLOW, SYNC_POOL_SIZE, Database
from houndgraph.settings import Settings
from tests.asset_group_tag.conftest import TAGS, D
from tests.conftest import another_server

PREVIEW = f"{TAGS}/preview-selectors"
BODY = {"seeds": [{"type": 1, "value": f"{D}-512"}], "expansion": 1}


def _backends(database: Database) -> int:
    with database.connect_raw(autocommit=True) as conn:
        row = conn.execute("SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() "
                           "AND backend_type = 'client backend'").fetchone()
        assert row is not None
        return int(row[0]) - 1  # not this one


def _settings(database: Database) -> tuple[str, str]:
    with database.pooled_sync(5) as conn:
        read_only = conn.execute("SHOW transaction_read_only").fetchone()
        timeout = conn.execute("SHOW statement_timeout").fetchone()
        assert read_only is not None and timeout is not None
        return str(read_only[0]), str(timeout[0])


def test_previews_wait_for_the_synchronous_pool_and_leave_its_connections_as_they_were(
        server_settings: Settings, domain: Database, admin_token: str) -> None:
    with another_server(server_settings, domain, request_timeout_seconds=3) as server, \
            httpx.Client(base_url=server.base_url, timeout=60,
                         headers={"Authorization": f"Bearer {admin_token}"}) as http:
        database: Database = server.app.state.database
        plain = _settings(database)
        answer = http.post(PREVIEW, json=BODY)
        assert answer.status_code == 200, answer.text
        assert len(answer.json()["data"]["members"]) == 4
        # The preview's read-only transaction and statement timeout ended with it.
        assert _settings(database) == plain
        with ExitStack() as held:
            for _ in range(SYNC_POOL_SIZE + SYNC_POOL_OVERFLOW):
                held.enter_context(database.pooled_sync(5))
            before = _backends(domain)
            busy = http.post(PREVIEW, json=BODY)
            assert busy.status_code == 503, busy.text
            assert _backends(domain) == before  # it opened no connection of its own
        again = http.post(PREVIEW, json=BODY)
        assert again.status_code == 200 and len(again.json()["data"]["members"]) == 4
