"""`houndgraph user create|reset-password|disable`, run against the test database, checked over HTTP."""

from __future__ import annotations

import httpx
import pytest
from typer.testing import CliRunner, Result

from houndgraph.cli.main import app
from houndgraph.db import Database
from tests.auth.signing import signed_headers
from tests.conftest import CHEAP_PASSWORD_HASHING
from tests.factories import PASSWORD, bearer, create_user, unique
from tests.user.helpers import assert_error

NEW_PASSWORD = "Cli-Chosen-Passw0rd!"


@pytest.fixture
def houndgraph(database: Database, tmp_path) -> CliRunner:
    # The CLI runs in this process and sets the process's password hashing: give it the cost the test service
    # uses, as an operator's CLI shares the service's settings.
    cost = {f"HOUNDGRAPH_{name.upper()}": str(value) for name, value in CHEAP_PASSWORD_HASHING.items()}
    return CliRunner(env={"HOUNDGRAPH_DATABASE_URL": database.url, "HOUNDGRAPH_DATA_DIR": str(tmp_path), **cost})


def run(runner: CliRunner, *args: str, input: str | None = None) -> Result:
    return runner.invoke(app, ["user", *args], input=input)


def login(client: httpx.Client, username: str, password: str) -> httpx.Response:
    return client.post("/api/v2/login", json={"login_method": "secret", "username": username, "secret": password})


def test_create_with_a_prompted_password(houndgraph: CliRunner, client: httpx.Client) -> None:
    principal = unique("cli")
    result = run(houndgraph, "create", principal, "--role", "Read-Only", "--email", f"{principal}@example.test",
                 "--first-name", "Cli", input=f"{NEW_PASSWORD}\n{NEW_PASSWORD}\n")
    assert result.exit_code == 0, result.output
    assert NEW_PASSWORD not in result.output  # hidden input is not echoed
    response = login(client, principal, NEW_PASSWORD)
    assert response.status_code == 200 and response.json()["data"]["auth_expired"] is False
    me = client.get("/api/v2/self", headers={"Authorization": f"Bearer {response.json()['data']['session_token']}"})
    data = me.json()["data"]
    assert [role["name"] for role in data["roles"]] == ["Read-Only"]
    assert data["email_address"] == f"{principal}@example.test"
    assert data["first_name"] == "Cli"


def test_create_with_a_generated_password_printed_once(houndgraph: CliRunner, client: httpx.Client) -> None:
    principal = unique("cli")
    result = run(houndgraph, "create", principal, "--generate-password")
    assert result.exit_code == 0, result.output
    password = result.stdout.strip().splitlines()[-1]
    response = login(client, principal, password)
    assert response.status_code == 200
    # A generated password must be changed at first login.
    assert response.json()["data"]["auth_expired"] is True


def test_create_refuses_weak_passwords_and_mismatched_confirmation(houndgraph: CliRunner,
                                                                   admin: httpx.Client) -> None:
    principal = unique("cli")
    result = run(houndgraph, "create", principal, input="short\nshort\n")
    assert result.exit_code == 1
    assert "password must be at least 12 characters long" in result.output
    result = run(houndgraph, "create", principal, input=f"{NEW_PASSWORD}\nsomething-else\n")
    assert result.exit_code != 0
    listed = admin.get("/api/v2/bloodhound-users", params={"principal_name": f"eq:{principal}"})
    assert listed.json()["data"]["users"] == []


def test_create_refuses_duplicates_and_unknown_roles(houndgraph: CliRunner, admin: httpx.Client) -> None:
    existing = create_user(admin)
    result = run(houndgraph, "create", existing["principal_name"].upper(), input=f"{NEW_PASSWORD}\n{NEW_PASSWORD}\n")
    assert result.exit_code == 1 and "principal name must be unique" in result.output
    result = run(houndgraph, "create", unique("cli"), "--email", existing["email_address"],
                 input=f"{NEW_PASSWORD}\n{NEW_PASSWORD}\n")
    assert result.exit_code == 1 and "email must be unique" in result.output
    result = run(houndgraph, "create", unique("cli"), "--role", "Overlord", input=f"{NEW_PASSWORD}\n{NEW_PASSWORD}\n")
    assert result.exit_code == 1 and "no role named 'Overlord'" in result.output


def test_reset_password(houndgraph: CliRunner, admin: httpx.Client) -> None:
    user = create_user(admin)
    result = run(houndgraph, "reset-password", user["principal_name"], input=f"{NEW_PASSWORD}\n{NEW_PASSWORD}\n")
    assert result.exit_code == 0, result.output
    assert login(admin, user["principal_name"], NEW_PASSWORD).status_code == 200
    assert_error(login(admin, user["principal_name"], PASSWORD), 401)

    result = run(houndgraph, "reset-password", user["principal_name"], "--generate-password")
    assert result.exit_code == 0, result.output
    generated = result.stdout.strip().splitlines()[-1]
    assert login(admin, user["principal_name"], generated).json()["data"]["auth_expired"] is True


def test_reset_password_of_an_unknown_user(houndgraph: CliRunner) -> None:
    result = run(houndgraph, "reset-password", unique("nobody"), input=f"{NEW_PASSWORD}\n{NEW_PASSWORD}\n")
    assert result.exit_code == 1 and "no user named" in result.output


def test_disable_ends_sessions_and_tokens_at_once(houndgraph: CliRunner, admin: httpx.Client) -> None:
    user = create_user(admin)
    headers = bearer(admin, user["principal_name"])
    token = admin.post("/api/v2/tokens", json={"token_name": "cli"}, headers=headers).json()["data"]

    result = run(houndgraph, "disable", user["principal_name"])
    assert result.exit_code == 0, result.output
    assert_error(admin.get("/api/v2/self", headers=headers), 401)
    assert_error(login(admin, user["principal_name"], PASSWORD), 401)
    signed = signed_headers(token["id"], token["key"], "GET", "/api/v2/self")
    assert_error(admin.get("/api/v2/self", headers=signed), 403,
                 "unable to validate request signature for client: user disabled")
    assert run(houndgraph, "disable", unique("nobody")).exit_code == 1
