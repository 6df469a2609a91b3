"""Create, read, update (seed operation 3), delete and list saved queries over HTTP."""

from __future__ import annotations

import httpx

from houndgraph.db import Database
from tests.conftest import LiveServer
from tests.factories import Account, account
from tests.openapi import assert_matches_spec
from tests.saved_query.conftest import assert_error, create_query, unique

ITEM = "/api/v2/saved-queries/{saved_query_id}"
LIST = "/api/v2/saved-queries"


def test_create_answers_201_with_the_query(owner: Account) -> None:
    name = unique()
    response = owner.http.post(LIST, json={"name": name, "query": "MATCH (n) RETURN n", "description": "all"})
    assert response.status_code == 201, response.text
    assert_matches_spec(response, LIST)
    data = response.json()["data"]
    assert (data["name"], data["query"], data["description"], data["user_id"]) == (
        name, "MATCH (n) RETURN n", "all", owner.id)
    assert data["deleted_at"] == {"Time": "0001-01-01T00:00:00Z", "Valid": False}


def test_description_is_optional(owner: Account) -> None:
    response = owner.http.post(LIST, json={"name": unique(), "query": "MATCH (n) RETURN n"})
    assert response.status_code == 201
    assert response.json()["data"]["description"] == ""


def test_empty_name_or_query_is_400(owner: Account) -> None:
    for body in ({"name": "", "query": "MATCH (n) RETURN n"}, {"name": unique(), "query": ""}, {}):
        assert_error(owner.http.post(LIST, json=body), 400, "the name and/or query field is empty")


def test_malformed_json_is_400(owner: Account) -> None:
    response = owner.http.post(LIST, content=b"{name", headers={"Content-Type": "application/json"})
    assert_error(response, 400, "error unmarshalling JSON payload")


def test_duplicate_name_is_409_for_the_same_user_only(owner: Account, other_user: Account) -> None:
    name = unique()
    create_query(owner.http, name)
    response = owner.http.post(LIST, json={"name": name, "query": "MATCH (m) RETURN m"})
    assert_error(response, 409, "duplicate name for saved query: please choose a different name")
    assert_matches_spec(response, LIST)
    create_query(other_user.http, name)


def test_get_by_id(owner: Account) -> None:
    created = create_query(owner.http, description="why")
    response = owner.http.get(f"{LIST}/{created['id']}")
    assert response.status_code == 200
    assert_matches_spec(response, ITEM)
    assert response.json()["data"] == created


def test_malformed_and_unknown_ids(owner: Account) -> None:
    for method in ("GET", "PUT", "DELETE"):
        body = {"name": "x"} if method == "PUT" else None
        assert_error(owner.http.request(method, f"{LIST}/abc", json=body), 400, "id is malformed")
        # The reference answered 500 with a database error for an unknown id on PUT: we answer 404.
        assert_error(owner.http.request(method, f"{LIST}/999999999", json=body), 404, "query does not exist")
    assert_matches_spec(owner.http.get(f"{LIST}/999999999"), ITEM)


def test_update_changes_given_fields_and_keeps_empty_ones(owner: Account) -> None:
    created = create_query(owner.http, description="first")
    new_name = unique()
    response = owner.http.put(f"{LIST}/{created['id']}", json={"name": new_name, "query": "MATCH (c:Computer) RETURN c",
                                                                "description": ""})
    assert response.status_code == 200, response.text
    assert_matches_spec(response, ITEM)
    data = response.json()["data"]
    assert (data["id"], data["name"], data["query"], data["description"]) == (
        created["id"], new_name, "MATCH (c:Computer) RETURN c", "first")
    assert data["updated_at"] >= created["updated_at"]
    assert owner.http.get(f"{LIST}/{created['id']}").json()["data"]["name"] == new_name


def test_update_to_a_taken_name_is_409(owner: Account) -> None:
    first, second = create_query(owner.http), create_query(owner.http)
    response = owner.http.put(f"{LIST}/{second['id']}", json={"name": first["name"]})
    assert_error(response, 409, "duplicate name for saved query: please choose a different name")
    assert owner.http.get(f"{LIST}/{second['id']}").json()["data"]["name"] == second["name"]


def test_delete_answers_204_then_the_query_is_gone(owner: Account) -> None:
    created = create_query(owner.http)
    response = owner.http.delete(f"{LIST}/{created['id']}")
    assert response.status_code == 204 and response.content == b""
    assert_error(owner.http.get(f"{LIST}/{created['id']}"), 404, "query does not exist")
    assert_error(owner.http.delete(f"{LIST}/{created['id']}"), 404, "query does not exist")


def test_list_without_scope_is_the_callers_own_queries_paginated(owner: Account, other_user: Account) -> None:
    mine = [create_query(owner.http, f"b-{unique()}"), create_query(owner.http, f"a-{unique()}"),
            create_query(owner.http, f"c-{unique()}")]
    create_query(other_user.http)
    response = owner.http.get(LIST)
    assert response.status_code == 200
    assert_matches_spec(response, LIST)
    body = response.json()
    assert (body["count"], body["skip"], body["limit"]) == (3, 0, 10000)
    assert [q["id"] for q in body["data"]] == [q["id"] for q in mine]
    assert all("scope" not in q for q in body["data"])

    page = owner.http.get(LIST, params={"sort_by": "-name", "skip": 1, "limit": 1}).json()
    assert (page["count"], page["skip"], page["limit"]) == (3, 1, 1)
    assert [q["name"] for q in page["data"]] == [mine[0]["name"]]
    by_name = owner.http.get(LIST, params={"sort_by": "name"}).json()["data"]
    assert [q["name"] for q in by_name] == sorted(q["name"] for q in mine)


def test_list_without_scope_writes_each_query_as_the_scoped_list_does(owner: Account) -> None:
    # The plain list is written row by row without the models; the scoped one goes through them.
    texts = ["MATCH (n) RETURN n", "\u00e9\u2028 \"quoted\" \\ back\tslash \U0001f600", "x" * 3000]
    for index, text in enumerate(texts):
        name = f"{index}-{unique()} \u00fc\u00f1\u00ee"
        create_query(owner.http, name, query=f"MATCH (n) RETURN n LIMIT {index + 1}", description=text)
    plain = owner.http.get(LIST)
    scoped = owner.http.get(LIST, params={"scope": "owned"}).json()
    assert plain.headers["content-type"] == "application/json"
    body = plain.json()
    assert (body["count"], body["skip"], body["limit"]) == (3, 0, 10000)
    assert body["data"] == [{key: value for key, value in query.items() if key != "scope"}
                            for query in scoped["data"]]
    assert [query["description"] for query in body["data"]] == texts
    assert all(query["deleted_at"] == {"Time": "0001-01-01T00:00:00Z", "Valid": False} for query in body["data"])
    assert all(query["created_at"].endswith("Z") for query in body["data"])
    past_the_end = owner.http.get(LIST, params={"skip": 5}).json()
    assert (past_the_end["count"], past_the_end["skip"], past_the_end["data"]) == (3, 5, [])
    nothing = owner.http.get(LIST, params={"limit": 0}).json()
    assert (nothing["count"], nothing["limit"], nothing["data"]) == (3, 0, [])


def test_list_filters(owner: Account) -> None:
    tag = unique("tag")
    wanted = create_query(owner.http, f"{tag}-wanted", query="MATCH (g:Group) RETURN g")
    create_query(owner.http, f"{tag}-other")
    exact = owner.http.get(LIST, params={"name": f"eq:{tag}-wanted"}).json()
    assert [q["id"] for q in exact["data"]] == [wanted["id"]] and exact["count"] == 1
    approx = owner.http.get(LIST, params={"name": f"~eq:{tag.upper()}"}).json()
    assert approx["count"] == 2
    by_query = owner.http.get(LIST, params={"query": "~eq:(g:Group)"}).json()
    assert [q["id"] for q in by_query["data"]] == [wanted["id"]]
    by_user = owner.http.get(LIST, params={"user_id": f"eq:{owner.id}", "name": f"neq:{tag}-wanted"}).json()
    assert wanted["id"] not in [q["id"] for q in by_user["data"]] and by_user["count"] == 1


def test_list_refuses_bad_sort_filters_scope_and_paging(owner: Account) -> None:
    assert_error(owner.http.get(LIST, params={"sort_by": "color"}), 400,
                 "column format does not support sorting: color")
    assert_error(owner.http.get(LIST, params={"color": "eq:red"}), 400,
                 "the specified column cannot be filtered: color")
    assert_error(owner.http.get(LIST, params={"name": "gt:a"}), 400,
                 "the specified filter predicate is not supported for this column: name gt")
    assert_error(owner.http.get(LIST, params={"name": "a"}), 400,
                 "there are errors in the query parameter filters specified")
    assert_error(owner.http.get(LIST, params={"scope": "owned,mine"}), 400, "invalid scope param")
    assert_error(owner.http.get(LIST, params={"skip": "-1"}), 400)
    assert_matches_spec(owner.http.get(LIST, params={"scope": "nope"}), LIST)


def test_list_with_scopes_tags_each_part(owner: Account, shared_user: Account, other_user: Account) -> None:
    own = create_query(shared_user.http)
    shared = create_query(owner.http)
    public = create_query(other_user.http)
    assert owner.http.put(f"{LIST}/{shared['id']}/permissions",
                          json={"user_ids": [shared_user.id], "public": False}).status_code == 201
    assert other_user.http.put(f"{LIST}/{public['id']}/permissions", json={"public": True}).status_code == 201

    response = shared_user.http.get(LIST, params={"scope": "Owned,shared,PUBLIC"})
    assert response.status_code == 200
    assert_matches_spec(response, LIST)
    body = response.json()
    scopes = {(q["id"], q["scope"]) for q in body["data"]}
    assert {(own["id"], "Owned"), (shared["id"], "shared"), (public["id"], "PUBLIC")} <= scopes
    assert body["count"] == len(body["data"])
    assert (shared["id"], "shared") not in {(q["id"], q["scope"]) for q in
                                            other_user.http.get(LIST, params={"scope": "shared"}).json()["data"]}
    everything = shared_user.http.get(LIST, params={"scope": "all"}).json()["data"]
    assert {(own["id"], "owned"), (shared["id"], "shared"), (public["id"], "public")} <= {
        (q["id"], q["scope"]) for q in everything}


def test_permissions_of_the_role_are_enforced(live_server: LiveServer, database: Database) -> None:
    with account(live_server, database, "Read-Only") as reader:
        assert reader.http.get(LIST).status_code == 200
        assert_error(reader.http.post(LIST, json={"name": unique(), "query": "MATCH (n) RETURN n"}), 403,
                     "not authorized")
    with account(live_server, database, "Upload-Only") as uploader:
        assert_error(uploader.http.get(LIST), 403, "not authorized")


def test_anonymous_callers_are_refused(client: httpx.Client) -> None:
    assert_error(client.get(LIST), 401, "not authenticated")
