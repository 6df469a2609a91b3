"""The connection type every async graph function takes: the request's psycopg connection.

Requests get it from `houndgraph.db.graph_connection(session)`; it runs in the request's transaction,
under its statement timeout. The datapipe and the CLI write with a plain synchronous connection.
"""

from __future__ import annotations

from typing import Any, TypeAlias

import psycopg

GraphConnection: TypeAlias = psycopg.AsyncConnection[Any]
