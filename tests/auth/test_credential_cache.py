"""Each process remembers the credentials it has checked (houndgraph.auth.cache): a session or token that has
just been used, and so is remembered by two processes, is refused by both on the very next request once it is
logged out, deleted, its user disabled or its permissions taken away, whoever made the change. The second
process is a second app on the same database, with a cache of its own."""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest

from houndgraph.db import Database
from houndgraph.settings import Settings
from tests.auth.signing import signed_headers
from tests.conftest import another_server
from tests.factories import ROLE_IDS, bearer, create_user, unique
from tests.user.helpers import api_tokens_disabled

SELF = "/api/v2/self"
CONFIG = "/api/v2/config"  # needs ReadAppConfig: a User has it, an Upload-Only user does not


@pytest.fixture
def second(server_settings: Settings, database: Database) -> Iterator[httpx.Client]:
    """A client of the second process."""
    with another_server(server_settings, database) as server, \
            httpx.Client(base_url=server.base_url, timeout=60) as http:
        yield http


@pytest.fixture
def user(admin: httpx.Client) -> dict:
    return create_user(admin)


def new_token(admin: httpx.Client, session: dict[str, str]) -> dict:
    response = admin.post("/api/v2/tokens", json={"token_name": unique("cache")}, headers=session)
    assert response.status_code == 200, response.text
    return response.json()["data"]


def signed_get(http: httpx.Client, token: dict, uri: str) -> int:
    return http.get(uri, headers=signed_headers(token["id"], token["key"], "GET", uri)).status_code


def both_use(first: httpx.Client, second: httpx.Client, headers: dict[str, str], token: dict,
             uri: str = SELF) -> None:
    """The session and the token, each used twice in each process: both remember them."""
    for http in (first, second, first, second):
        assert http.get(uri, headers=headers).status_code == 200
        assert signed_get(http, token, uri) == 200


def test_a_logout_in_one_process_ends_the_session_in_both(admin: httpx.Client, second: httpx.Client,
                                                          user: dict) -> None:
    session = bearer(admin, user["principal_name"])
    other_session = bearer(admin, user["principal_name"])
    for http in (admin, second, admin, second):
        assert http.get(SELF, headers=session).status_code == 200
        assert http.get(SELF, headers=other_session).status_code == 200
    assert second.post("/api/v2/logout", headers=session).status_code == 200
    assert admin.get(SELF, headers=session).status_code == 401
    assert second.get(SELF, headers=session).status_code == 401
    assert admin.get(SELF, headers=other_session).status_code == 200, "the user's other session lives on"


def test_a_deleted_token_is_refused_by_both_processes(admin: httpx.Client, second: httpx.Client,
                                                      user: dict) -> None:
    session = bearer(admin, user["principal_name"])
    token = new_token(admin, session)
    both_use(admin, second, session, token)
    assert admin.delete(f"/api/v2/tokens/{token['id']}", headers=session).status_code == 200
    assert signed_get(admin, token, SELF) == 401
    assert signed_get(second, token, SELF) == 401
    assert second.get(SELF, headers=session).status_code == 200


def test_a_user_disabled_over_the_api_is_refused_by_both_processes(admin: httpx.Client, second: httpx.Client,
                                                                   user: dict) -> None:
    session = bearer(admin, user["principal_name"])
    token = new_token(admin, session)
    both_use(admin, second, session, token)
    response = second.patch(f"/api/v2/bloodhound-users/{user['id']}", json={"is_disabled": True},
                            headers={"Authorization": admin.headers["Authorization"]})
    assert response.status_code == 200, response.text
    for http in (admin, second):
        assert http.get(SELF, headers=session).status_code == 401
        assert signed_get(http, token, SELF) == 403


def test_a_user_disabled_behind_the_services_back_is_refused_at_once(admin: httpx.Client, second: httpx.Client,
                                                                     user: dict, database: Database) -> None:
    # As `houndgraph user` or an operator's SQL would: no process is told, the database's counter moves.
    session = bearer(admin, user["principal_name"])
    token = new_token(admin, session)
    both_use(admin, second, session, token)
    with database.connect_raw(autocommit=True) as conn:
        conn.execute("UPDATE users SET is_disabled = true WHERE id = %s", (user["id"],))
    for http in (admin, second):
        assert http.get(SELF, headers=session).status_code == 401
        assert signed_get(http, token, SELF) == 403


def test_a_role_taken_away_takes_its_permissions_at_once(admin: httpx.Client, second: httpx.Client,
                                                         user: dict) -> None:
    session = bearer(admin, user["principal_name"])
    token = new_token(admin, session)
    both_use(admin, second, session, token, CONFIG)
    response = admin.patch(f"/api/v2/bloodhound-users/{user['id']}", json={"roles": [ROLE_IDS["Upload-Only"]]})
    assert response.status_code == 200, response.text
    for http in (admin, second):
        assert http.get(CONFIG, headers=session).status_code == 403
        assert signed_get(http, token, CONFIG) == 403
        assert http.get(SELF, headers=session).status_code == 200, "still signed in, with fewer rights"


def test_a_permission_taken_from_a_role_is_refused_at_once(admin: httpx.Client, second: httpx.Client,
                                                           user: dict, database: Database) -> None:
    session = bearer(admin, user["principal_name"])
    token = new_token(admin, session)
    both_use(admin, second, session, token, CONFIG)
    taken = """DELETE FROM roles_permissions WHERE role_id = %s AND permission_id =
               (SELECT id FROM permissions WHERE authority = 'app' AND name = 'ReadAppConfig')"""
    with database.connect_raw(autocommit=True) as conn:
        conn.execute(taken, (ROLE_IDS["User"],))
        try:
            for http in (admin, second):
                assert http.get(CONFIG, headers=session).status_code == 403
                assert signed_get(http, token, CONFIG) == 403
        finally:
            conn.execute("""INSERT INTO roles_permissions (role_id, permission_id)
                            SELECT %s, id FROM permissions WHERE authority = 'app' AND name = 'ReadAppConfig'""",
                         (ROLE_IDS["User"],))
    assert admin.get(CONFIG, headers=session).status_code == 200, "given back, at once too"


def test_api_keys_switched_off_are_refused_at_once(admin: httpx.Client, second: httpx.Client, user: dict,
                                                   database: Database) -> None:
    session = bearer(admin, user["principal_name"])
    token = new_token(admin, session)
    both_use(admin, second, session, token)
    with api_tokens_disabled(database):
        assert signed_get(admin, token, SELF) == 401
        assert signed_get(second, token, SELF) == 401
    assert signed_get(second, token, SELF) == 200


def test_self_shows_a_change_of_the_user_at_once_in_both_processes(admin: httpx.Client, second: httpx.Client,
                                                                   user: dict, database: Database) -> None:
    """`/self` is answered from each process's cache (migration 0023): a change of the user made in one
    process, or behind the service's back, shows in both on the next request."""
    session = bearer(admin, user["principal_name"])
    token = new_token(admin, session)
    both_use(admin, second, session, token)
    response = second.patch(f"/api/v2/bloodhound-users/{user['id']}", headers=admin.headers,
                            json={"first_name": "Renamed", "roles": [ROLE_IDS["User"]]})
    assert response.status_code == 200, response.text
    for http in (admin, second):
        assert http.get(SELF, headers=session).json()["data"]["first_name"] == "Renamed"
        signed = http.get(SELF, headers=signed_headers(token["id"], token["key"], "GET", SELF))
        assert signed.json()["data"]["first_name"] == "Renamed"
    with database.connect_raw(autocommit=True) as conn:
        conn.execute("UPDATE users SET email_address = 'moved@example.test', eula_accepted = true WHERE id = %s",
                     (user["id"],))
    for http in (admin, second):
        shown = http.get(SELF, headers=session).json()["data"]
        assert (shown["email_address"], shown["eula_accepted"]) == ("moved@example.test", True)
    roles = admin.patch(f"/api/v2/bloodhound-users/{user['id']}", json={"roles": [ROLE_IDS["Upload-Only"]]})
    assert roles.status_code == 200, roles.text
    for http in (admin, second):
        assert [role["name"] for role in http.get(SELF, headers=session).json()["data"]["roles"]] == ["Upload-Only"]
