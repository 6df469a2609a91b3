"""The graph a collection makes does not depend on the order of its files."""

from __future__ import annotations

import zipfile
from typing import Any

import httpx
import psycopg

from houndgraph.db import Database
from tests.file_upload.helpers import ADCS_ZIP, end_job, start_job, upload, wait_for_job, zipped

_TIMES = {"lastseen", "firstseen"}
Node = tuple[str, frozenset[str], tuple[tuple[str, Any], ...]]
Edge = tuple[str, str, str, tuple[tuple[str, Any], ...]]


def _members() -> dict[str, bytes]:
    with zipfile.ZipFile(ADCS_ZIP) as archive:
        return {name: archive.read(name) for name in sorted(archive.namelist())}


def _frozen(properties: dict[str, Any]) -> tuple[tuple[str, Any], ...]:
    """Properties without the times of the upload and of analysis, comparable as a set member."""
    return tuple(sorted((key, repr(value)) for key, value in properties.items() if key not in _TIMES))


def _graph(conn: psycopg.Connection) -> tuple[set[Node], set[Edge]]:
    """Nodes (object id, kinds, properties) and edges (start, kind, end, properties), by object id."""
    nodes = {
        (objectid, frozenset(kinds), _frozen(properties))
        for objectid, kinds, properties in conn.execute(
            "SELECT n.properties ->> 'objectid', ARRAY(SELECT k.name FROM kind k WHERE k.id = ANY(n.kind_ids)), "
            "n.properties FROM node n")
    }
    edges = {
        (start, kind, end, _frozen(properties))
        for start, kind, end, properties in conn.execute(
            "SELECT s.properties ->> 'objectid', k.name, t.properties ->> 'objectid', e.properties FROM edge e "
            "JOIN node s ON s.id = e.start_id JOIN node t ON t.id = e.end_id JOIN kind k ON k.id = e.kind_id")
    }
    return nodes, edges


def _ingest_in_order(http: httpx.Client, database: Database, names: list[str],
                     members: dict[str, bytes]) -> tuple[set[Node], set[Edge]]:
    with database.connect_raw(autocommit=True) as conn:
        conn.execute("TRUNCATE edge, node RESTART IDENTITY CASCADE")
    job_id = start_job(http)["id"]
    archive = zipped({name: members[name] for name in names})
    assert upload(http, job_id, archive, "application/zip", "collection.zip").status_code == 202
    end_job(http, job_id)
    assert wait_for_job(http, job_id)["status"] == 2
    with database.connect_raw() as conn:
        return _graph(conn)


def test_a_collection_makes_the_same_graph_whatever_the_order_of_its_files(admin: httpx.Client,
                                                                           empty_graph: Database) -> None:
    members = _members()
    names = list(members)
    nodes, edges = _ingest_in_order(admin, empty_graph, names, members)
    reversed_nodes, reversed_edges = _ingest_in_order(admin, empty_graph, names[::-1], members)
    assert len(nodes) > 100 and len(edges) > 500
    assert reversed_nodes == nodes
    assert reversed_edges == edges
