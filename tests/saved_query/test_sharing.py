"""Who may do what with a saved query: owner, a user it is shared with, another user and an administrator,
against a private, a shared and a public query; then the sharing rules and their messages."""

from __future__ import annotations

import uuid
from collections.abc import Iterator

import httpx
import pytest

from houndgraph.db import Database
from tests.conftest import LiveServer
from tests.factories import Account, account, admin_id
from tests.openapi import assert_matches_spec
from tests.saved_query.conftest import assert_error, create_query, unique

LIST = "/api/v2/saved-queries"
ITEM = "/api/v2/saved-queries/{saved_query_id}"
VISIBILITIES = ("private", "shared", "public")


# Every test here makes its own queries and none counts the owner's, so the owner too is made once per module.
@pytest.fixture(scope="module")
def owner(live_server: LiveServer, database: Database) -> Iterator[Account]:
    with account(live_server, database) as user:
        yield user


@pytest.fixture
def queries(owner: Account, shared_user: Account) -> dict[str, dict]:
    """One query of each visibility, owned by `owner` (a plain User: owners may make their queries public)."""
    made = {visibility: create_query(owner.http, f"{visibility}-{unique()}") for visibility in VISIBILITIES}
    shared = owner.http.put(f"{LIST}/{made['shared']['id']}/permissions",
                            json={"user_ids": [shared_user.id], "public": False})
    assert shared.status_code == 201, shared.text
    public = owner.http.put(f"{LIST}/{made['public']['id']}/permissions", json={"public": True})
    assert public.status_code == 201, public.text
    return made


def _callers(owner: Account, shared_user: Account, other_user: Account, admin: httpx.Client) -> dict:
    return {"owner": owner.http, "shared_user": shared_user.http, "other_user": other_user.http, "admin": admin}


# Expected status per caller for (private, shared, public).
READ = {"owner": (200, 200, 200), "shared_user": (404, 200, 200), "other_user": (404, 404, 200),
        "admin": (404, 404, 200)}
UPDATE = {"owner": (200, 200, 200), "shared_user": (404, 404, 404), "other_user": (404, 404, 404),
          "admin": (404, 404, 200)}
DELETE = {"owner": (204, 204, 204), "shared_user": (403, 403, 403), "other_user": (403, 403, 403),
          "admin": (403, 403, 204)}
READ_PERMISSIONS = {"owner": (200, 200, 200), "shared_user": (404, 404, 200), "other_user": (404, 404, 200),
                    "admin": (200, 200, 200)}


@pytest.mark.parametrize("caller", list(READ))
def test_reading_a_query_and_its_export(caller: str, queries: dict, owner: Account, shared_user: Account,
                                        other_user: Account, admin: httpx.Client) -> None:
    http = _callers(owner, shared_user, other_user, admin)[caller]
    for visibility, expected in zip(VISIBILITIES, READ[caller], strict=True):
        query = queries[visibility]
        response = http.get(f"{LIST}/{query['id']}")
        assert response.status_code == expected, (caller, visibility, response.text)
        assert_matches_spec(response, ITEM)
        if expected == 404:
            assert_error(response, 404, "query does not exist")
        else:
            assert response.json()["data"]["id"] == query["id"]
        assert http.get(f"{LIST}/{query['id']}/export").status_code == expected


@pytest.mark.parametrize("caller", list(UPDATE))
def test_updating_a_query(caller: str, queries: dict, owner: Account, shared_user: Account,
                          other_user: Account, admin: httpx.Client) -> None:
    http = _callers(owner, shared_user, other_user, admin)[caller]
    for visibility, expected in zip(VISIBILITIES, UPDATE[caller], strict=True):
        query = queries[visibility]
        response = http.put(f"{LIST}/{query['id']}", json={"description": f"edited by {caller}"})
        assert response.status_code == expected, (caller, visibility, response.text)
        assert_matches_spec(response, ITEM)
        stored = owner.http.get(f"{LIST}/{query['id']}").json()["data"]["description"]
        assert (stored == f"edited by {caller}") == (expected == 200)


@pytest.mark.parametrize("caller", list(DELETE))
def test_deleting_a_query(caller: str, queries: dict, owner: Account, shared_user: Account,
                          other_user: Account, admin: httpx.Client) -> None:
    http = _callers(owner, shared_user, other_user, admin)[caller]
    for visibility, expected in zip(VISIBILITIES, DELETE[caller], strict=True):
        query = queries[visibility]
        response = http.delete(f"{LIST}/{query['id']}")
        assert response.status_code == expected, (caller, visibility, response.text)
        if expected == 403:
            assert_error(response, 403, "User does not have permission to delete this query")
        still_there = owner.http.get(f"{LIST}/{query['id']}").status_code == 200
        assert still_there == (expected != 204)


@pytest.mark.parametrize("caller", list(READ_PERMISSIONS))
def test_reading_the_permissions(caller: str, queries: dict, owner: Account, shared_user: Account,
                                 other_user: Account, admin: httpx.Client) -> None:
    http = _callers(owner, shared_user, other_user, admin)[caller]
    expected_bodies = {
        "private": {"public": False, "shared_to_user_ids": []},
        "shared": {"public": False, "shared_to_user_ids": [shared_user.id]},
        "public": {"public": True, "shared_to_user_ids": []},
    }
    for visibility, expected in zip(VISIBILITIES, READ_PERMISSIONS[caller], strict=True):
        query = queries[visibility]
        response = http.get(f"{LIST}/{query['id']}/permissions")
        assert response.status_code == expected, (caller, visibility, response.text)
        if expected == 200:
            assert response.json()["data"] == {"query_id": query["id"], **expected_bodies[visibility]}
        else:
            assert_error(response, 404, "no query permissions exist for saved query")


def test_scoped_lists_follow_the_sharing(queries: dict, shared_user: Account, other_user: Account,
                                         admin: httpx.Client) -> None:
    def ids(http: httpx.Client, scope: str) -> set[int]:
        return {q["id"] for q in http.get(LIST, params={"scope": scope}).json()["data"]}

    assert queries["shared"]["id"] in ids(shared_user.http, "shared")
    assert queries["private"]["id"] not in ids(shared_user.http, "shared,public")
    assert queries["shared"]["id"] not in ids(other_user.http, "shared,public")
    assert queries["public"]["id"] in ids(other_user.http, "public") and queries["public"]["id"] in ids(admin, "public")
    assert queries["private"]["id"] not in ids(admin, "owned,shared,public")


def test_sharing_refusals(queries: dict, owner: Account, shared_user: Account, other_user: Account,
                          admin: httpx.Client) -> None:
    private, public = queries["private"]["id"], queries["public"]["id"]
    url = f"{LIST}/{private}/permissions"
    assert_error(owner.http.put(url, json={"user_ids": [shared_user.id], "public": True}), 400,
                 "Public cannot be true while user_ids is populated")
    assert_error(owner.http.put(f"{LIST}/999999999/permissions", json={"public": True}), 404, "Query does not exist")
    assert_error(owner.http.put(f"{LIST}/x/permissions", json={"public": True}), 400, "id is malformed")
    assert_error(owner.http.put(url, json={"user_ids": [owner.id]}), 400, "Cannot share query to self")
    assert_error(other_user.http.put(url, json={"user_ids": [shared_user.id]}), 403, "Forbidden")
    assert_error(shared_user.http.put(f"{LIST}/{queries['shared']['id']}/permissions", json={"public": True}), 403,
                 "Forbidden")
    # Only an administrator reaches the public-query rule; its owner may not change a public query's sharing.
    assert_error(admin.put(f"{LIST}/{public}/permissions", json={"user_ids": [other_user.id]}), 400,
                 "Public query cannot be shared to users. You must set your query to private first")
    assert_error(owner.http.put(f"{LIST}/{public}/permissions", json={"user_ids": [other_user.id]}), 403,
                 "Forbidden")
    assert_error(admin.put(url, json={"public": True}), 403, "Forbidden")
    stranger = str(uuid.uuid4())
    assert_error(owner.http.put(url, json={"user_ids": [stranger]}), 400, f"unknown user: {stranger}")
    assert_error(owner.http.put(url, json={"user_ids": ["not-a-uuid"]}), 400)
    assert owner.http.get(f"{LIST}/{private}/permissions").json()["data"]["shared_to_user_ids"] == []


def test_share_make_public_and_private_again(owner: Account, shared_user: Account, other_user: Account,
                                             admin: httpx.Client) -> None:
    query = create_query(owner.http)
    url = f"{LIST}/{query['id']}/permissions"
    shared = owner.http.put(url, json={"user_ids": [shared_user.id, other_user.id, shared_user.id]})
    assert shared.status_code == 201
    rows = shared.json()["data"]
    assert sorted(r["shared_to_user_id"] for r in rows) == sorted([shared_user.id, other_user.id])
    assert all(r["query_id"] == query["id"] and r["public"] is False and r["shared_to_user_id"] is not None
               for r in rows)
    again = owner.http.put(url, json={"user_ids": [shared_user.id]})
    assert again.status_code == 201 and [r["id"] for r in again.json()["data"]] == [
        r["id"] for r in rows if r["shared_to_user_id"] == shared_user.id]

    public = owner.http.put(url, json={"public": True})
    assert public.status_code == 201
    [row] = public.json()["data"]
    assert row["public"] is True and row["shared_to_user_id"] is None
    # Once public, its sharing is the administrators' (the reference's rule): asking again is 204 for them.
    assert_error(owner.http.put(url, json={"public": True}), 403, "Forbidden")
    assert admin.put(url, json={"public": True}).status_code == 204
    assert owner.http.get(url).json()["data"] == {"query_id": query["id"], "public": True, "shared_to_user_ids": []}
    assert other_user.http.get(f"{LIST}/{query['id']}").status_code == 200

    assert_error(owner.http.put(url, json={"public": False}), 403, "Forbidden")
    assert admin.put(url, json={"public": False}).status_code == 204
    assert owner.http.get(url).json()["data"] == {"query_id": query["id"], "public": False, "shared_to_user_ids": []}
    assert_error(other_user.http.get(f"{LIST}/{query['id']}"), 404, "query does not exist")


def test_administrators_make_their_own_queries_public(admin: httpx.Client, other_user: Account) -> None:
    query = create_query(admin)
    url = f"{LIST}/{query['id']}/permissions"
    assert_error(admin.put(url, json={"user_ids": [admin_id(admin)]}), 400, "Cannot share query to self")
    assert admin.put(url, json={"user_ids": [other_user.id]}).status_code == 201
    assert admin.put(url, json={"public": True}).status_code == 201
    assert other_user.http.get(url).json()["data"]["public"] is True


def test_unsharing(owner: Account, shared_user: Account, other_user: Account, admin: httpx.Client) -> None:
    query = create_query(owner.http)
    url = f"{LIST}/{query['id']}/permissions"
    assert owner.http.put(url, json={"user_ids": [shared_user.id, other_user.id]}).status_code == 201

    assert_error(admin.request("DELETE", f"{LIST}/999999999/permissions", json={"user_ids": []}), 404,
                 "query does not exist")
    stranger_query = create_query(admin)
    assert_error(other_user.http.request("DELETE", f"{LIST}/{stranger_query['id']}/permissions",
                                         json={"user_ids": [other_user.id]}), 400,
                 "User cannot unshare a query from themselves that is not shared to them")
    assert_error(other_user.http.request("DELETE", url, json={"user_ids": [shared_user.id]}), 403,
                 "Query does not belong to the user")
    # Dropping oneself does not let a user drop others in the same call (the reference let it through).
    assert_error(other_user.http.request("DELETE", url, json={"user_ids": [other_user.id, shared_user.id]}), 403,
                 "Query does not belong to the user")

    assert other_user.http.request("DELETE", url, json={"user_ids": [other_user.id]}).status_code == 204
    assert_error(other_user.http.get(f"{LIST}/{query['id']}"), 404, "query does not exist")
    assert owner.http.get(url).json()["data"]["shared_to_user_ids"] == [shared_user.id]

    assert admin.request("DELETE", url, json={"user_ids": [shared_user.id]}).status_code == 204
    assert owner.http.get(url).json()["data"]["shared_to_user_ids"] == []
    assert owner.http.put(url, json={"user_ids": [shared_user.id]}).status_code == 201
    assert owner.http.request("DELETE", url, json={"user_ids": []}).status_code == 204
    assert shared_user.http.get(f"{LIST}/{query['id']}").status_code == 404
