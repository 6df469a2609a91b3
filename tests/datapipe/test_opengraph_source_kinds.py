"""An OpenGraph file's `metadata.source_kind` is registered at ingest, as the reference registers it: listed by
`GET /api/v2/graphs/source-kinds`, and what `POST /api/v2/clear-database` with `deleteSourceKinds` deletes by."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from houndgraph.db import Database
from houndgraph.models.ingest_job import JobStatus
from houndgraph.models.source_kind import BUILTIN_SOURCE_KINDS
from tests.datapipe.test_clear_database import clear, wait_for_purges
from tests.file_upload.helpers import TESTLAB, completed_tasks, ingest_paths, object_ids_by_kind, stored_counts


def opengraph(source_kind: str | None, nodes: list[str], edges: list[tuple[str, str]] | None = None) -> dict[str, Any]:
    document: dict[str, Any] = {"graph": {
        "nodes": [{"id": node, "kinds": ["Repository"], "properties": {"name": node}} for node in nodes],
        "edges": [{"start": {"value": start}, "end": {"value": end}, "kind": "CanPush"} for start, end in edges or []],
    }}
    if source_kind is not None:
        document["metadata"] = {"source_kind": source_kind}
    return document


def ingest_documents(http: httpx.Client, tmp_path: Path, *documents: dict[str, Any],
                     status: JobStatus = JobStatus.COMPLETE) -> dict[str, Any]:
    paths = []
    for number, document in enumerate(documents):
        path = tmp_path / f"opengraph-{number}.json"
        path.write_text(json.dumps(document))
        paths.append(path)
    finished = ingest_paths(http, paths)
    assert finished["status"] == status, finished
    return finished


def listed(http: httpx.Client) -> list[dict[str, Any]]:
    response = http.get("/api/v2/graphs/source-kinds")
    assert response.status_code == 200, response.text
    kinds: list[dict[str, Any]] = response.json()["data"]["kinds"]
    return kinds


def stored_source_kinds(database: Database) -> list[tuple[int, str]]:
    with database.connect_raw() as conn:
        return conn.execute("SELECT id, name FROM source_kinds WHERE id > %s ORDER BY id",
                            (len(BUILTIN_SOURCE_KINDS),)).fetchall()


def objectids_of_kind(database: Database, kind: str) -> set[str]:
    with database.connect_raw() as conn:
        rows = conn.execute("SELECT properties->>'objectid' FROM node WHERE kind_ids && "
                            "ARRAY(SELECT id FROM kind WHERE name = %s)::smallint[]", (kind,)).fetchall()
    return {objectid for (objectid,) in rows}


@pytest.fixture
def graph_without_collectors(empty_graph: Database) -> Iterator[Database]:
    """An empty graph and no source kinds but the built-in ones, before and after (other tests add some)."""
    def forget() -> None:
        with empty_graph.connect_raw(autocommit=True) as conn:
            conn.execute("DELETE FROM source_kinds WHERE id > %s", (len(BUILTIN_SOURCE_KINDS),))

    forget()
    yield empty_graph
    forget()


def test_an_uploaded_file_lists_its_source_kind(admin: httpx.Client, graph_without_collectors: Database,
                                                tmp_path: Path) -> None:
    ingest_documents(admin, tmp_path, opengraph("GitHub", ["REPO-1", "REPO-2"]))
    kinds = listed(admin)
    (github,) = [kind for kind in kinds if kind["name"] == "GitHub"]
    assert kinds == [{"id": 1, "name": "Base"}, {"id": 2, "name": "AZBase"}, github, {"id": 0, "name": "Sourceless"}]
    assert stored_source_kinds(graph_without_collectors) == [(github["id"], "GitHub")]


def test_a_file_of_edges_only_registers_its_source_kind(admin: httpx.Client, graph_without_collectors: Database,
                                                        tmp_path: Path) -> None:
    # The reference registers the kind on reading the metadata, before any node or edge.
    ingest_documents(admin, tmp_path, opengraph("GitLab", [], [("USER-1", "REPO-1")]))
    assert [name for _, name in stored_source_kinds(graph_without_collectors)] == ["GitLab"]


def test_no_source_kind_registers_nothing(admin: httpx.Client, graph_without_collectors: Database,
                                          tmp_path: Path) -> None:
    ingest_documents(admin, tmp_path, opengraph(None, ["REPO-1"]), opengraph("", ["REPO-2"]))
    assert objectids_of_kind(graph_without_collectors, "Repository") == {"REPO-1", "REPO-2"}
    assert stored_source_kinds(graph_without_collectors) == []
    assert [kind["name"] for kind in listed(admin)] == ["Base", "AZBase", "Sourceless"]


def test_files_of_the_same_kind_add_no_duplicate(admin: httpx.Client, graph_without_collectors: Database,
                                                 tmp_path: Path) -> None:
    ingest_documents(admin, tmp_path, opengraph("GitHub", ["REPO-1"]), opengraph("GitHub", ["REPO-2"]))
    first = stored_source_kinds(graph_without_collectors)
    assert [name for _, name in first] == ["GitHub"]
    ingest_documents(admin, tmp_path, opengraph("GitHub", ["REPO-3"]))
    assert stored_source_kinds(graph_without_collectors) == first, "the same id, once"
    assert [kind["name"] for kind in listed(admin)].count("GitHub") == 1


def test_clearing_a_source_kind_deletes_exactly_its_nodes(admin: httpx.Client, graph_without_collectors: Database,
                                                          tmp_path: Path) -> None:
    ingest_paths(admin, [TESTLAB / "users.json"])
    users = object_ids_by_kind([TESTLAB / "users.json"])
    ingest_documents(admin, tmp_path,
                     opengraph("GitHub", ["REPO-1", "REPO-2"], [("REPO-1", "REPO-2")]),
                     opengraph("GitLab", ["REPO-3"]),
                     opengraph(None, ["REPO-4"]))
    assert objectids_of_kind(graph_without_collectors, "GitHub") == {"REPO-1", "REPO-2"}
    (github,) = [kind["id"] for kind in listed(admin) if kind["name"] == "GitHub"]
    assert clear(admin, {"deleteSourceKinds": [github]}).status_code == 204
    wait_for_purges(graph_without_collectors)
    assert objectids_of_kind(graph_without_collectors, "Repository") == {"REPO-3", "REPO-4"}
    with graph_without_collectors.connect_raw() as conn:
        assert stored_counts(conn, users) == {"User": len(users["User"])}, "AD nodes are kept"
    assert [kind["name"] for kind in listed(admin)] == ["Base", "AZBase", "GitLab", "Sourceless"]
    # The other collector's id is the one clear-database takes; GitHub's is no longer known.
    (gitlab,) = [kind["id"] for kind in listed(admin) if kind["name"] == "GitLab"]
    assert clear(admin, {"deleteSourceKinds": [github]}).status_code == 400
    assert clear(admin, {"deleteSourceKinds": [gitlab]}).status_code == 204
    wait_for_purges(graph_without_collectors)
    assert objectids_of_kind(graph_without_collectors, "Repository") == {"REPO-4"}


def test_a_source_kind_too_long_to_register_fails_its_file_alone(admin: httpx.Client,
                                                                  graph_without_collectors: Database,
                                                                  tmp_path: Path) -> None:
    finished = ingest_documents(admin, tmp_path, opengraph("G" * 256, ["REPO-1"]), opengraph("GitHub", ["REPO-2"]),
                                status=JobStatus.PARTIALLY_COMPLETE)
    errors = {task["file_name"]: task["errors"] for task in completed_tasks(admin, finished["id"])}
    assert errors == {"opengraph-0.json": ["opengraph-0.json: failed to register sourceKind: longer than 255 "
                                           "characters"], "opengraph-1.json": []}
    assert objectids_of_kind(graph_without_collectors, "Repository") == {"REPO-2"}
    assert [name for _, name in stored_source_kinds(graph_without_collectors)] == ["GitHub"]
