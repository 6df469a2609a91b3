"""The graph a collection makes does not depend on the order of its files."""

from __future__ import annotations

import zipfile
from typing import Any

import httpx
import psycopg

from houndgraph.db import Database
from tests.file_upload.helpers import ADCS_ZIP, end_job, start_job, upload, wait_for_job, zipped

_TIMES = {"lastseen", "firstseen"}
# A member renamed with this ending has no SharpHound file name: the datapipe reads it in upload order.
_UNRANKED = "0.json"
# SHARPHOUND_READING_ORDER of the datapipe, as files of the lab's collection are named.
_READING_ORDER = ["users.json", "groups.json", "computers.json", "ous.json", "gpos.json", "containers.json",
                  "domains.json"]
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
                     members: dict[str, bytes]) -> tuple[set[Node], set[Edge], list[str]]:
    """The graph the members make, uploaded in the order of `names` (each the name it is zipped under), and
    the names in the order the datapipe read them."""
    with database.connect_raw(autocommit=True) as conn:
        conn.execute("TRUNCATE edge, node RESTART IDENTITY CASCADE")
    job_id = start_job(http)["id"]
    archive = zipped({name: members[name.replace(_UNRANKED, ".json")] for name in names})
    assert upload(http, job_id, archive, "application/zip", "collection.zip").status_code == 202
    end_job(http, job_id)
    assert wait_for_job(http, job_id)["status"] == 2
    tasks = http.get(f"/api/v2/file-upload/{job_id}/completed-tasks").json()["data"]
    read = [task["file_name"] for task in sorted(tasks, key=lambda task: task["start_time"])]
    with database.connect_raw() as conn:
        return (*_graph(conn), read)


def test_a_collection_makes_the_same_graph_whatever_the_order_of_its_files(admin: httpx.Client,
                                                                           empty_graph: Database) -> None:
    members = _members()
    names = list(members)
    nodes, edges, read = _ingest_in_order(admin, empty_graph, names, members)
    # Under names the datapipe does not rank, the files are read as uploaded: here backwards.
    unranked = [name.replace(".json", _UNRANKED) for name in names[::-1]]
    reversed_nodes, reversed_edges, read_reversed = _ingest_in_order(admin, empty_graph, unranked, members)
    assert len(nodes) > 100 and len(edges) > 500
    assert read_reversed == unranked
    assert reversed_nodes == nodes
    assert reversed_edges == edges
    # SharpHound's files are read objects first (users, groups, computers), then the containers that name them,
    # after the files of other names (certificate services here), whatever the upload order.
    others = [name for name in names if name not in _READING_ORDER]
    assert read == others + _READING_ORDER
