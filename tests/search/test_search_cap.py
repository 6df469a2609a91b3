"""Path finding and search share one cap for the whole service (`query_slots`): only the per-user cap held them,
and a few users' searches at once could take every core of PostgreSQL from everyone else's requests."""

from __future__ import annotations

import httpx

from houndgraph.db import Database
from houndgraph.query_slots import SEARCH_SLOT_SPACE, SEARCHES_BUSY
from houndgraph.settings import Settings
from tests.conftest import another_server
from tests.factories import user_with_role


def test_path_finding_and_search_wait_for_the_services_slots(admin: httpx.Client, server_settings: Settings,
                                                             database: Database) -> None:
    _, first = user_with_role(admin, "Read-Only")
    _, second = user_with_role(admin, "Read-Only")
    with another_server(server_settings, database, graph_searches=1) as server, \
            httpx.Client(base_url=server.base_url, timeout=60) as http, \
            database.connect_raw(autocommit=True) as elsewhere:
        # The service's only search slot, held as a search running in another process holds it.
        elsewhere.execute("SELECT pg_advisory_lock(0, %s)", (SEARCH_SLOT_SPACE,))
        pair = {"start_node": "S-1-5-21-1", "end_node": "S-1-5-21-2"}
        refused = [http.get("/api/v2/search", params={"q": "admin"}, headers=first),
                   http.get("/api/v2/graphs/shortest-path", params=pair, headers=second)]
        # Each waited its moment in line, then was refused as a query past a cap is; Cypher has its own lane.
        assert [answer.status_code for answer in refused] == [429, 429], [answer.text for answer in refused]
        assert {answer.json()["errors"][0]["message"] for answer in refused} == {SEARCHES_BUSY}
        assert refused[0].headers["Retry-After"] == "1"
        cypher = http.post("/api/v2/graphs/cypher", json={"query": "RETURN 1 AS one"}, headers=first)
        assert cypher.status_code == 200, cypher.text
        elsewhere.execute("SELECT pg_advisory_unlock(0, %s)", (SEARCH_SLOT_SPACE,))
        assert http.get("/api/v2/search", params={"q": "admin"}, headers=first).status_code == 200
