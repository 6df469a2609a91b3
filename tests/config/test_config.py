"""GET/PUT /api/v2/config over HTTP (reference/behaviour.md §6, seed operation 11)."""

from __future__ import annotations

import base64
import json
from datetime import timedelta
from typing import Any

import httpx
import pytest

from houndgraph.config import service as config_service
from houndgraph.config.parameters import DEFAULTS, USER_UPDATABLE, ParameterKey
from houndgraph.db import Database
from tests.auth.test_login import assert_error
from tests.config.conftest import run_in_session
from tests.conftest import ADMIN_PASSWORD, login
from tests.openapi import assert_matches_spec

CONFIG = "/api/v2/config"


def put(http: httpx.Client, key: str, value: Any) -> httpx.Response:
    return http.put(CONFIG, json={"key": key, "value": value})


def stored(http: httpx.Client, key: str) -> dict[str, Any]:
    response = http.get(CONFIG, params={"parameter": f"eq:{key}"})
    assert response.status_code == 200, response.text
    return response.json()["data"][0]["value"]


# --- GET -----------------------------------------------------------------------------------------


def test_lists_every_parameter_with_its_default(admin: httpx.Client) -> None:
    response = admin.get(CONFIG)
    assert response.status_code == 200, response.text
    assert_matches_spec(response, CONFIG)
    parameters = {item["key"]: item for item in response.json()["data"]}
    assert set(parameters) == {key.value for key in ParameterKey}
    assert parameters["auth.session_ttl_hours"]["value"] == {"hours": 8}
    assert parameters["auth.api_tokens"]["value"] == {"enabled": True}
    assert parameters["prune.ttl"]["value"] == {"base_ttl": "P7D", "has_session_edge_ttl": "P3D"}
    assert parameters["analysis.scheduled"]["value"] == {"enabled": False, "rrule": ""}
    first = parameters["auth.password_expiration_window"]
    assert set(first) == {"key", "name", "description", "value", "id", "created_at", "updated_at", "deleted_at"}
    assert first["name"] == "Local Auth Password Expiry Window" and first["description"]


def test_filter_by_key_returns_that_parameter(admin: httpx.Client) -> None:
    response = admin.get(CONFIG, params={"parameter": "eq:prune.ttl"})
    assert response.status_code == 200, response.text
    assert_matches_spec(response, CONFIG)
    assert [item["key"] for item in response.json()["data"]] == ["prune.ttl"]


@pytest.mark.parametrize("predicate", ["neq", "~eq", "gt"])
def test_filter_with_another_predicate_is_400(admin: httpx.Client, predicate: str) -> None:
    response = admin.get(CONFIG, params={"parameter": f"{predicate}:prune.ttl"})
    assert_error(response, 400,
                 f"the specified filter predicate is not supported for this column: parameter {predicate}")
    assert_matches_spec(response, CONFIG)


@pytest.mark.parametrize("key", ["no.such.key", "auth.api_tokens", "http.trusted_proxies"])
def test_filter_on_an_unknown_or_protected_key_is_400(admin: httpx.Client, key: str) -> None:
    assert_error(admin.get(CONFIG, params={"parameter": f"eq:{key}"}), 400,
                 f"Configuration parameter {key} is not valid.")


# --- PUT: success and effect ------------------------------------------------------------------------

VALID_VALUES = [
    ("auth.password_expiration_window", {"duration": "P30D"}),
    ("neo4j.configuration", {"write_flush_size": 5000, "batch_write_size": 1000}),
    ("analysis.citrix_rdp_support", {"enabled": True}),
    ("prune.ttl", {"base_ttl": "P30D", "has_session_edge_ttl": "P2D"}),
    ("analysis.reconciliation", {"enabled": False}),
    ("analysis.scheduled", {"enabled": True, "rrule": "DTSTART:20240101T020000Z\nRRULE:FREQ=DAILY;INTERVAL=1"}),
    ("analysis.scheduled", {"enabled": False, "rrule": "FREQ=WEEKLY;BYDAY=MO,FR"}),
    ("auth.session_ttl_hours", {"hours": 24}),
]


@pytest.mark.parametrize(("key", "value"), VALID_VALUES)
def test_put_echoes_and_persists(admin: httpx.Client, key: str, value: dict[str, Any]) -> None:
    response = put(admin, key, value)
    assert response.status_code == 200, response.text
    assert_matches_spec(response, CONFIG)
    assert response.json() == {"data": {"key": key, "value": value}}
    assert stored(admin, key) == value


def test_every_settable_key_is_covered() -> None:
    # auth.api_token_expiration is settable only under its feature flag: tests/token/test_token_expiry.py.
    assert {key for key, _ in VALID_VALUES} | {"auth.api_token_expiration"} == USER_UPDATABLE


def test_put_restores_a_removed_row(admin: httpx.Client, database: Database) -> None:
    with database.connect_raw() as conn:
        conn.execute("DELETE FROM parameters WHERE key = 'analysis.reconciliation'")
    assert put(admin, "analysis.reconciliation", {"enabled": False}).status_code == 200
    listed = {item["key"]: item for item in admin.get(CONFIG).json()["data"]}
    assert listed["analysis.reconciliation"]["value"] == {"enabled": False}
    assert listed["analysis.reconciliation"]["name"] == "Reconciliation"


def test_the_list_follows_a_change_made_by_another_writer(admin: httpx.Client, database: Database) -> None:
    # Lists are kept per cache generation; a change written straight to the table (another process, the CLI)
    # moves it all the same.
    key = "analysis.reconciliation"
    assert put(admin, key, {"enabled": True}).status_code == 200
    assert stored(admin, key) == {"enabled": True}
    listed = {item["key"]: item["value"] for item in admin.get(CONFIG).json()["data"]}
    assert listed[key] == {"enabled": True}
    with database.connect_raw() as conn:
        conn.execute("UPDATE parameters SET value = '{\"enabled\": false}' WHERE key = %s", (key,))
        conn.commit()
    try:
        assert stored(admin, key) == {"enabled": False}
        listed = {item["key"]: item["value"] for item in admin.get(CONFIG).json()["data"]}
        assert listed[key] == {"enabled": False}
    finally:
        assert put(admin, key, {"enabled": True}).status_code == 200


def _jwt_claims(token: str) -> dict[str, Any]:
    payload = token.split(".")[1]
    return json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))


def test_session_ttl_sets_the_lifetime_of_new_sessions(admin: httpx.Client, client: httpx.Client) -> None:
    assert put(admin, "auth.session_ttl_hours", {"hours": 2}).status_code == 200
    claims = _jwt_claims(login(client, "admin", ADMIN_PASSWORD))
    assert claims["exp"] - claims["iat"] == 2 * 3600
    assert put(admin, "auth.session_ttl_hours", {"hours": 720}).status_code == 200
    claims = _jwt_claims(login(client, "admin", ADMIN_PASSWORD))
    assert claims["exp"] - claims["iat"] == 720 * 3600


def test_password_expiration_window_is_what_the_service_reads(admin: httpx.Client, database: Database) -> None:
    assert run_in_session(database, config_service.password_expiration_window) == timedelta(days=90)
    assert put(admin, "auth.password_expiration_window", {"duration": "PT36H"}).status_code == 200
    assert run_in_session(database, config_service.password_expiration_window) == timedelta(hours=36)


def test_citrix_support_is_what_the_service_reads(admin: httpx.Client, database: Database) -> None:
    # Analysis reads it in the datapipe, on a psycopg connection of its own.
    with database.connect_raw() as conn:
        assert config_service.citrix_rdp_support(conn) is False
    assert put(admin, "analysis.citrix_rdp_support", {"enabled": True}).status_code == 200
    value = run_in_session(database, lambda s: config_service.get_value(s, ParameterKey.CITRIX_RDP_SUPPORT))
    assert value == {"enabled": True}
    with database.connect_raw() as conn:
        assert config_service.citrix_rdp_support(conn) is True


# --- PUT: validation, in the reference's order ---------------------------------------------------------


@pytest.mark.parametrize("body", [b"{not json", b"[1, 2]", b"\"text\"", b""])
def test_undecodable_body_is_400(admin: httpx.Client, body: bytes) -> None:
    response = admin.put(CONFIG, content=body, headers={"Content-Type": "application/json"})
    assert_error(response, 400, "error unmarshalling JSON payload")


def test_a_body_that_is_not_json_is_400(admin: httpx.Client) -> None:
    response = admin.put(CONFIG, content=b"key=prune.ttl", headers={"Content-Type": "text/plain"})
    assert_error(response, 400, "error unmarshalling JSON payload")


@pytest.mark.parametrize("key", ["no.such.key", "auth.api_tokens", "http.trusted_proxies", "analysis.tagging", ""])
def test_unknown_or_protected_key_is_400(admin: httpx.Client, key: str) -> None:
    response = put(admin, key, {"enabled": False})
    assert_error(response, 400, f"Configuration parameter {key} is not valid.")
    assert_matches_spec(response, CONFIG)


def test_key_is_checked_before_the_value(admin: httpx.Client) -> None:
    assert_error(put(admin, "auth.api_tokens", None), 400, "Configuration parameter auth.api_tokens is not valid.")


@pytest.mark.parametrize("value", [None, {}, [], "P7D", 5, True])
def test_value_must_be_a_non_empty_object(admin: httpx.Client, value: Any) -> None:
    assert_error(put(admin, "analysis.reconciliation", value), 400, "missing or invalid property: value")


def test_missing_value_is_400(admin: httpx.Client) -> None:
    response = admin.put(CONFIG, json={"key": "analysis.reconciliation"})
    assert_error(response, 400, "missing or invalid property: value")


@pytest.mark.parametrize(("key", "value"), [
    ("analysis.reconciliation", {"enabled": True, "extra": 1}),
    ("analysis.reconciliation", {"enable": True}),
    ("prune.ttl", {"base_ttl": "P7D"}),
    ("prune.ttl", {"base_ttl": "P7D", "session_ttl": "P3D"}),
    ("analysis.scheduled", {"enabled": False}),
])
def test_value_must_have_exactly_the_schema_fields(admin: httpx.Client, key: str, value: dict[str, Any]) -> None:
    assert_error(put(admin, key, value), 400, "value property contains an invalid field")


@pytest.mark.parametrize(("key", "value", "message"), [
    ("analysis.reconciliation", {"enabled": "true"},
     "invalid type for value property enabled: expected a boolean"),
    ("analysis.citrix_rdp_support", {"enabled": 1}, "invalid type for value property enabled: expected a boolean"),
    ("neo4j.configuration", {"write_flush_size": "100", "batch_write_size": 10},
     "invalid type for value property write_flush_size: expected an integer"),
    ("neo4j.configuration", {"write_flush_size": 10, "batch_write_size": 1.5},
     "invalid type for value property batch_write_size: expected an integer"),
    ("neo4j.configuration", {"write_flush_size": True, "batch_write_size": 10},
     "invalid type for value property write_flush_size: expected an integer"),
    ("neo4j.configuration", {"write_flush_size": 0, "batch_write_size": 10}, "write_flush_size must be at least 1"),
    ("auth.session_ttl_hours", {"hours": "8"}, "invalid type for value property hours: expected an integer"),
    ("auth.session_ttl_hours", {"hours": 0}, "hours must be between 1 and 720"),
    ("auth.session_ttl_hours", {"hours": 721}, "hours must be between 1 and 720"),
    ("analysis.scheduled", {"enabled": "yes", "rrule": ""},
     "invalid type for value property enabled: expected a boolean"),
    ("analysis.scheduled", {"enabled": False, "rrule": 7}, "invalid type for value property rrule: expected a string"),
])
def test_value_fields_must_have_the_right_type(admin: httpx.Client, key: str, value: dict[str, Any],
                                               message: str) -> None:
    assert_error(put(admin, key, value), 400, message)


@pytest.mark.parametrize(("value", "message"), [
    ({"base_ttl": "seven days", "has_session_edge_ttl": "P3D"}, "missing or invalid base_ttl"),
    ({"base_ttl": 7, "has_session_edge_ttl": "P3D"}, "missing or invalid base_ttl"),
    ({"base_ttl": "P7D", "has_session_edge_ttl": "3d"}, "missing or invalid has_session_edge_ttl"),
    ({"base_ttl": "P7D", "has_session_edge_ttl": None}, "missing or invalid has_session_edge_ttl"),
    ({"base_ttl": "P3DT23H", "has_session_edge_ttl": "P3D"}, "base_ttl must be between P4D and P30D"),
    ({"base_ttl": "P31D", "has_session_edge_ttl": "P3D"}, "base_ttl must be between P4D and P30D"),
    ({"base_ttl": "P7D", "has_session_edge_ttl": "P1D"}, "has_session_edge_ttl must be between P2D and P7D"),
    ({"base_ttl": "P7D", "has_session_edge_ttl": "P8D"}, "has_session_edge_ttl must be between P2D and P7D"),
    ({"base_ttl": "P1Y", "has_session_edge_ttl": "P2W"},
     "base_ttl must be between P4D and P30D; has_session_edge_ttl must be between P2D and P7D"),
])
def test_prune_ttl_bounds(admin: httpx.Client, value: dict[str, Any], message: str) -> None:
    assert_error(put(admin, "prune.ttl", value), 400, message)


def test_prune_ttl_accepts_the_bounds_themselves(admin: httpx.Client) -> None:
    for value in ({"base_ttl": "P4D", "has_session_edge_ttl": "P7D"},
                  {"base_ttl": "PT720H", "has_session_edge_ttl": "P2D"}):
        assert put(admin, "prune.ttl", value).status_code == 200


@pytest.mark.parametrize(("duration", "message"), [
    ("90 days", "missing or invalid duration"),
    ("", "missing or invalid duration"),
    ("P", "missing or invalid duration"),
    (90, "missing or invalid duration"),
    ("PT1H", "duration must be between P1D and P3650D"),
    ("-P90D", "duration must be between P1D and P3650D"),
    # A Power User set P100000D: a password that never expires, and far enough out a date overflow.
    ("P100000D", "duration must be between P1D and P3650D"),
    ("P99999999D", "duration must be between P1D and P3650D"),
])
def test_password_expiration_window_must_be_a_positive_iso_duration(admin: httpx.Client, duration: object,
                                                                    message: str) -> None:
    assert_error(put(admin, "auth.password_expiration_window", {"duration": duration}), 400, message)


@pytest.mark.parametrize("rrule", ["FREQ=SOMETIMES", "every day", "FREQ=DAILY;BYHOUR=25", "EXDATE:20240101T000000Z",
                                   "DTSTART:yesterday\nRRULE:FREQ=DAILY"])
def test_scheduled_analysis_needs_a_valid_rrule(admin: httpx.Client, rrule: str) -> None:
    for enabled in (True, False):
        assert_error(put(admin, "analysis.scheduled", {"enabled": enabled, "rrule": rrule}), 400,
                     "invalid rrule specified")


def test_enabled_scheduled_analysis_needs_an_rrule(admin: httpx.Client) -> None:
    assert_error(put(admin, "analysis.scheduled", {"enabled": True, "rrule": ""}), 400,
                 "rrule is required when scheduled analysis is enabled")


def test_a_rejected_value_leaves_the_stored_one(admin: httpx.Client) -> None:
    assert put(admin, "prune.ttl", {"base_ttl": "P99D", "has_session_edge_ttl": "P3D"}).status_code == 400
    assert stored(admin, "prune.ttl") == DEFAULTS[ParameterKey.PRUNE_TTL]


# --- permissions -----------------------------------------------------------------------------------


def test_read_only_user_reads_but_cannot_write(read_only: httpx.Client) -> None:
    assert read_only.get(CONFIG).status_code == 200
    assert_error(put(read_only, "analysis.reconciliation", {"enabled": False}), 403, "not authorized")
    assert stored(read_only, "analysis.reconciliation") == {"enabled": True}


def test_anonymous_caller_is_401(client: httpx.Client) -> None:
    assert_error(client.get(CONFIG), 401, "not authenticated")
    assert_error(put(client, "analysis.reconciliation", {"enabled": False}), 401, "not authenticated")
