"""Clients over HTTP: create (token shown once), operation 8, list, update, token rotation, soft delete."""

from __future__ import annotations

import httpx

from tests.client.helpers import SESSIONS_ONLY, as_client, create_client, due_soon, error_message
from tests.conftest import LiveServer
from tests.factories import unique
from tests.openapi import assert_matches_spec


def test_a_created_client_has_a_token_whose_key_is_shown_once(admin: httpx.Client) -> None:
    created = create_client(admin, events=[{"rrule": due_soon(3600), **SESSIONS_ONLY}])
    assert created["type"] == "sharphound" and created["token"]["key"]
    assert created["token"]["user_id"] is None
    assert [event["session_collection"] for event in created["events"]] == [True]

    response = admin.get(f"/api/v2/clients/{created['id']}")
    assert_matches_spec(response, "/api/v2/clients/{client_id}", "get")
    shown = response.json()["data"]
    assert shown["name"] == created["name"] and shown["token"]["id"] == created["token"]["id"]
    assert "key" not in shown["token"]
    assert shown["domain_controller"] == "dc01.testlab.local"
    assert shown["completed_job_count"] == 0 and shown["current_job_id"] is None
    assert "current_job" not in shown
    # Client tokens are managed through their client, not among users' tokens.
    tokens = admin.get("/api/v2/tokens").json()["data"]["tokens"]
    assert created["token"]["id"] not in {token["id"] for token in tokens}


def test_clients_list_sorts_filters_and_pages(admin: httpx.Client) -> None:
    prefix = unique("lst")
    made = [create_client(admin, name=f"{prefix}-{letter}") for letter in "cab"]
    response = admin.get("/api/v2/clients", params={"name": f"~eq:{prefix}", "sort_by": "-name", "limit": 2})
    assert_matches_spec(response, "/api/v2/clients", "get")
    body = response.json()
    assert body["count"] == 3 and [c["name"] for c in body["data"]] == [f"{prefix}-c", f"{prefix}-b"]
    assert error_message(admin.get("/api/v2/clients", params={"sort_by": "version"}), 400).startswith(
        "column format does not support sorting")
    assert error_message(admin.get("/api/v2/clients", params={"token": "eq:x"}), 400).startswith(
        "the specified column cannot be filtered")
    by_id = admin.get("/api/v2/clients", params={"id": f"eq:{made[0]['id']}"}).json()["data"]
    assert [c["id"] for c in by_id] == [made[0]["id"]]


def test_bad_input_answers_the_reference_error_and_creates_nothing(admin: httpx.Client) -> None:
    name = unique("bad")
    assert error_message(admin.post("/api/v2/clients", json={"name": name, "type": "nethound"}), 400)
    # A bad schedule refuses the whole client: it is not half created.
    bad_event = {"name": name, "type": "sharphound", "events": [{"rrule": due_soon(), "all_trusted_domains": True}]}
    assert error_message(admin.post("/api/v2/clients", json=bad_event), 400) == \
        "at least one data collection flag must be provided"
    assert admin.get("/api/v2/clients", params={"name": f"eq:{name}"}).json()["count"] == 0
    create_client(admin, name=name)
    assert error_message(admin.post("/api/v2/clients", json={"name": name, "type": "azurehound"}), 409) == \
        "client name must be unique"
    assert error_message(admin.get("/api/v2/clients/not-a-uuid"), 400) == "id is malformed"
    assert error_message(admin.get("/api/v2/clients/00000000-0000-4000-8000-000000000000"), 404) == \
        "resource not found"


def test_update_rotate_token_and_soft_delete(admin: httpx.Client, live_server: LiveServer) -> None:
    created = create_client(admin)
    renamed = unique("renamed")
    response = admin.put(f"/api/v2/clients/{created['id']}", json={"name": renamed, "domain_controller": "dc02"})
    assert_matches_spec(response, "/api/v2/clients/{client_id}", "put")
    assert response.json()["data"]["name"] == renamed

    with as_client(live_server.base_url, created) as old_signer:
        assert old_signer.put("/api/v2/clients/update", json={"hostname": "h1"}).status_code == 200
        response = admin.put(f"/api/v2/clients/{created['id']}/token")
        assert_matches_spec(response, "/api/v2/clients/{client_id}/token", "put")
        new_token = response.json()["data"]
        assert new_token["key"] and new_token["id"] != created["token"]["id"]
        assert old_signer.put("/api/v2/clients/update", json={}).status_code == 401
    with as_client(live_server.base_url, {**created, "token": new_token}) as signer:
        assert signer.put("/api/v2/clients/update", json={"hostname": "h2"}).status_code == 200
        response = admin.delete(f"/api/v2/clients/{created['id']}")
        assert response.status_code == 200 and response.content == b""
        assert signer.put("/api/v2/clients/update", json={}).status_code == 401
    assert admin.get(f"/api/v2/clients/{created['id']}").status_code == 404
    # The name is free again once its client is deleted.
    create_client(admin, name=renamed)
