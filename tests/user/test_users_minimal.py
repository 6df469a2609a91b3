"""Seed operation 10: GET /api/v2/bloodhound-users-minimal."""

from __future__ import annotations

import httpx

from tests.factories import create_user, unique, user_with_role
from tests.openapi import assert_matches_spec
from tests.user.helpers import assert_error

PATH = "/api/v2/bloodhound-users-minimal"


def minimal(client: httpx.Client, headers: dict[str, str] | None = None, **params: str) -> list[dict]:
    response = client.get(PATH, params=params, headers=headers)
    assert response.status_code == 200, response.text
    assert_matches_spec(response, PATH)
    return response.json()["data"]["users"]


def test_shape_active_users_only_no_sensitive_fields(admin: httpx.Client) -> None:
    tag = unique("min")
    active = create_user(admin, principal=f"{tag}-on", first_name=tag)
    create_user(admin, principal=f"{tag}-off", first_name=tag, is_disabled=True)
    users = minimal(admin, first_name=f"eq:{tag}")
    assert users == [{
        "id": active["id"],
        "first_name": tag,
        "last_name": active["last_name"],
        "email": active["email_address"],
    }]


def test_missing_names_are_null_and_email_empty(admin: httpx.Client) -> None:
    user = create_user(admin, first_name="", last_name="", email_address="")
    [entry] = minimal(admin, id=f"eq:{user['id']}")
    assert entry == {"id": user["id"], "first_name": None,
                     "last_name": None, "email": ""}


def test_read_users_permission_suffices_and_upload_only_is_refused(admin: httpx.Client) -> None:
    user = create_user(admin)
    for role in ("Read-Only", "User", "Power User"):
        _, headers = user_with_role(admin, role)
        assert [entry["id"] for entry in minimal(admin, headers, id=f"eq:{user['id']}")] == [user["id"]]
    _, headers = user_with_role(admin, "Upload-Only")
    response = admin.get(PATH, headers=headers)
    assert_error(response, 403, "not authorized")
    assert_matches_spec(response, PATH)


def test_sorting(admin: httpx.Client) -> None:
    tag = unique("sort")
    users = {
        letter: create_user(admin, first_name=f"{tag}", last_name=f"{letter}{tag}",
                            email_address=f"{letter}-{tag}@example.test")
        for letter in "bca"
    }
    by_last = [entry["id"] for entry in minimal(admin, first_name=f"eq:{tag}", sort_by="last_name")]
    assert by_last == [users[letter]["id"] for letter in "abc"]
    by_email_desc = [entry["id"] for entry in minimal(admin, first_name=f"eq:{tag}", sort_by="-email_address")]
    assert by_email_desc == [users[letter]["id"] for letter in "cba"]
    by_id = [entry["id"] for entry in minimal(admin, first_name=f"eq:{tag}")]
    assert by_id == sorted(by_id)  # default order: id
    by_id_desc = [entry["id"] for entry in minimal(admin, first_name=f"eq:{tag}", sort_by="-id")]
    assert by_id_desc == sorted(by_id, reverse=True)
    # Several sort keys: first_name is equal for all, so last_name decides.
    both = [entry["id"] for entry in
            admin.get(PATH, params=[("first_name", f"eq:{tag}"), ("sort_by", "first_name"),
                                    ("sort_by", "-last_name")]).json()["data"]["users"]]
    assert both == [users[letter]["id"] for letter in "cba"]


def test_filters(admin: httpx.Client) -> None:
    tag = unique("filt")
    ann = create_user(admin, first_name=f"Ann{tag}", last_name=tag, email_address=f"ann-{tag}@example.test")
    bob = create_user(admin, first_name=f"Bob{tag}", last_name=tag, email_address=f"bob-{tag}@example.test")

    def ids(**params: str) -> set[str]:
        return {entry["id"] for entry in minimal(admin, **params)}

    assert ids(last_name=f"eq:{tag}") == {ann["id"], bob["id"]}
    assert ids(first_name=f"eq:Ann{tag}") == {ann["id"]}
    assert ids(first_name=f"~eq:BOB{tag[:8].upper()}", last_name=f"eq:{tag}") == {bob["id"]}
    assert ids(last_name=f"eq:{tag}", first_name=f"neq:Ann{tag}") == {bob["id"]}
    assert ids(email_address=f"~eq:ann-{tag}") == {ann["id"]}
    assert ids(email_address=f"eq:bob-{tag}@example.test") == {bob["id"]}
    assert ids(last_name=f"eq:{tag}", email_address=f"neq:bob-{tag}@example.test") == {ann["id"]}
    assert ids(id=f"eq:{ann['id']}") == {ann["id"]}
    assert ids(last_name=f"eq:{tag}", id=f"neq:{ann['id']}") == {bob["id"]}


def test_reference_error_messages(admin: httpx.Client) -> None:
    cases = [
        ({"sort_by": "principal_name"}, "the specified column cannot be sorted: principal_name"),
        ({"sort_by": "-is_disabled"}, "the specified column cannot be sorted: is_disabled"),
        ({"sort_by": ""}, "the specified column cannot be sorted because it is empty: "),
        ({"principal_name": "eq:admin"}, "the specified column cannot be filtered: principal_name"),
        ({"id": "~eq:abc"}, "the specified filter predicate is not supported for this column: id ~eq"),
        ({"first_name": "gt:a"}, "the specified filter predicate is not supported for this column: first_name gt"),
        ({"first_name": "nonsense"}, "there are errors in the query parameter filters specified"),
        ({"first_name": "like:x"}, "there are errors in the query parameter filters specified"),
        ({"id": "eq:not-a-uuid"}, "there are errors in the query parameter filters specified"),
    ]
    for params, message in cases:
        response = admin.get(PATH, params=params)
        assert_error(response, 400, message)
        assert_matches_spec(response, PATH)


def test_anonymous_is_refused(client: httpx.Client) -> None:
    assert_error(client.get(PATH), 401, "not authenticated")


def test_the_list_follows_users_added_and_deleted(admin: httpx.Client) -> None:
    # The list is kept per cache generation: adding a user (even one without a role) and deleting one move it.
    tag = unique("gen")
    assert minimal(admin, first_name=f"eq:{tag}") == []
    user = create_user(admin, role=None, first_name=tag)
    assert [entry["id"] for entry in minimal(admin, first_name=f"eq:{tag}")] == [user["id"]]
    assert admin.delete(f"/api/v2/bloodhound-users/{user['id']}").status_code == 200
    assert minimal(admin, first_name=f"eq:{tag}") == []
