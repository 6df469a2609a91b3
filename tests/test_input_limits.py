"""Input limits at the edge (issue #11, defects 1 and 6): deep nesting, integers past 64 bits and NUL
characters answer 400 with a message of ours, a missing credential is named before a bad body, and a
500 leaves the kept-alive connection usable."""

from __future__ import annotations

import httpx
import pytest

from houndgraph.db import Database
from houndgraph.routing import PUBLIC, Route
from houndgraph.settings import Settings
from tests.conftest import another_server
from tests.file_upload.helpers import error_messages, start_job, upload
from tests.user.helpers import assert_error

NUL_REFUSED = "NUL characters (\\u0000) are not accepted"
TOO_DEEP = "query nests brackets deeper than 40 levels"
TOO_DEEP_SYNTAX = "query nests expressions deeper than 200 levels"


def test_a_deeply_nested_upload_is_refused_with_a_clear_400(admin: httpx.Client) -> None:
    job_id = start_job(admin)["id"]
    body = b'{"meta": {"type": "users", "version": 6}, "data": ' + b"[" * 100_000 + b"]" * 100_000 + b"}"
    response = upload(admin, job_id, body)
    assert error_messages(response, 400) == ["the JSON nests deeper than 64 levels"]


@pytest.mark.parametrize(("query", "message"), [
    ("RETURN " + "(" * 5000 + "1" + ")" * 5000, TOO_DEEP),
    ("RETURN " + "[" * 10000 + "]" * 10000, TOO_DEEP),
    ("RETURN " + "{a: " * 100 + "1" + "}" * 100, TOO_DEEP),
    # Operators chain without brackets: the translation recursed through a 3,000-term sum and answered 500.
    ("RETURN " + " + ".join(["1"] * 3000) + " AS s", TOO_DEEP_SYNTAX),
    ("RETURN " + "NOT " * 3000 + "true AS b", TOO_DEEP_SYNTAX),
    ("MATCH (n) WHERE " + " OR ".join(["n.name = 'a'"] * 500) + " RETURN n", TOO_DEEP_SYNTAX),
    ("RETURN 99999999999999999999999999999999",
     "integer is too large: 99999999999999999999999999999999 (the largest is 9223372036854775807) "
     "(IntegerOverflow)"),
    ("MATCH (n) WHERE n.name = 'a\\u0000b' RETURN n", "a string cannot hold the NUL character (\\u0000)"),
])
def test_cypher_literals_past_the_limits_are_a_400(admin: httpx.Client, query: str, message: str) -> None:
    assert_error(admin.post("/api/v2/graphs/cypher", json={"query": query}), 400, message)


def test_brackets_in_strings_and_comments_do_not_count(admin: httpx.Client) -> None:
    query = "RETURN '" + "(" * 100 + "' AS a // " + "[" * 100
    response = admin.post("/api/v2/graphs/cypher", json={"query": query})
    assert response.status_code == 200, response.text


def test_a_deeply_nested_request_body_is_a_400(admin: httpx.Client) -> None:
    response = admin.post("/api/v2/saved-queries", content=b"[" * 100_000,
                          headers={"Content-Type": "application/json"})
    assert_error(response, 400, "the JSON nests deeper than 64 levels")


@pytest.mark.parametrize(("method", "path", "kwargs"), [
    ("POST", "/api/v2/graphs/cypher", {"json": {"query": "MATCH (n) WHERE n.name = 'a\u0000b' RETURN n"}}),
    ("POST", "/api/v2/saved-queries", {"json": {"name": "a\u0000", "query": "MATCH (n) RETURN n"}}),
    ("GET", "/api/v2/search", {"params": {"q": "a\u0000b"}}),
    ("GET", "/api/v2/meta/a%00b", {}),
])
def test_nul_characters_are_refused_without_the_drivers_message(admin: httpx.Client, method: str, path: str,
                                                                kwargs: dict) -> None:
    assert_error(admin.request(method, path, **kwargs), 400, NUL_REFUSED)


def test_an_escaped_backslash_before_u0000_is_not_a_nul(admin: httpx.Client) -> None:
    # JSON `\\\\u0000` is Cypher `\\u0000`: the six characters `\u0000`, no NUL.
    response = admin.post("/api/v2/graphs/cypher", content=b'{"query": "RETURN \'\\\\\\\\u0000\' AS a"}',
                          headers={"Content-Type": "application/json"})
    assert response.status_code == 200, response.text


def test_a_value_the_database_cannot_take_is_a_400(admin: httpx.Client) -> None:
    response = admin.post("/api/v2/graphs/cypher", json={"query": "RETURN 2 ^ 5000 AS a"})
    assert_error(response, 400, "the request holds a value the database cannot take (numeric value out of range)")


def test_a_result_past_64_bits_is_still_written(admin: httpx.Client) -> None:
    response = admin.post("/api/v2/graphs/cypher", json={"query": "RETURN toInteger('99999999999999999999') AS a"})
    assert response.status_code == 200, response.text
    assert response.json()["data"]["literals"] == [{"key": "a", "value": 99999999999999999999}]


def test_a_missing_credential_is_named_before_a_malformed_body(client: httpx.Client) -> None:
    response = client.post("/api/v2/saved-queries", content=b"{not json",
                           headers={"Content-Type": "application/json"})
    assert_error(response, 401, "not authenticated")


async def _fails() -> None:
    raise RuntimeError("a bug")


def test_after_a_500_the_kept_alive_connection_still_serves(server_settings: Settings, database: Database) -> None:
    with another_server(server_settings, database, routes=[Route("GET", "/api/v2/fails", _fails, PUBLIC)]) as server:
        with httpx.Client(base_url=server.base_url, timeout=60) as http:
            assert_error(http.get("/api/v2/fails"), 500)
            assert http.get("/api/version").status_code == 200
            assert_error(http.get("/api/v2/fails"), 500)
            assert http.get("/api/version").status_code == 200
