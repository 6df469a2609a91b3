"""GET /api/v2/features and PUT /api/v2/features/{feature_id}/toggle (reference/behaviour.md §6)."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from houndgraph.db import Database
from houndgraph.feature_flag import service as feature_flag_service
from houndgraph.feature_flag.flag_keys import FeatureFlagKey
from tests.auth.test_login import assert_error
from tests.config.conftest import run_in_session
from tests.openapi import assert_matches_spec

FEATURES = "/api/v2/features"


def flags(http: httpx.Client) -> dict[str, dict[str, Any]]:
    response = http.get(FEATURES)
    assert response.status_code == 200, response.text
    return {flag["key"]: flag for flag in response.json()["data"]}


def test_lists_every_flag(admin: httpx.Client) -> None:
    response = admin.get(FEATURES)
    assert response.status_code == 200
    assert_matches_spec(response, FEATURES)
    listed = flags(admin)
    assert set(listed) == {key.value for key in FeatureFlagKey}
    assert set(listed["adcs"]) == {"id", "created_at", "updated_at", "deleted_at", "key", "name", "description",
                                   "enabled", "user_updatable"}
    assert listed["ntlm_post_processing"]["enabled"] is True
    assert listed["ntlm_post_processing"]["user_updatable"] is False
    for key in ("adcs", "clear_graph_data", "azure_support"):
        assert listed[key]["enabled"] is True
    assert listed["dark_mode"]["user_updatable"] is True


def test_the_flags_of_bloodhound_9_8_with_their_defaults(admin: httpx.Client) -> None:
    listed = flags(admin)
    # (enabled, user_updatable) as the reference's migrations leave them; the UI's File Ingest page needs the first.
    expected = {
        "open_graph_phase_2": (True, False), "opengraph_search": (True, False),
        "opengraph_extension_management": (True, True), "client_bearer_auth": (True, False),
        "api_key_expiration_support": (False, False), "collector_support_bundle": (True, False),
        "artifact_expiration_cleanup": (True, False), "opengraph_entity_panel": (False, True),
        "entra_domain_services": (False, True), "opengraph_data_quality": (False, True),
        "findings_table": (False, False), "alerts": (False, False), "use_raw_object_id": (False, False),
        "openhound_support": (False, False), "managed_openhound_collection": (False, False),
        "scheduled_analysis_configuration": (False, False), "finished_jobs_log_v2": (False, False),
    }
    assert {key: (listed[key]["enabled"], listed[key]["user_updatable"]) for key in expected} == expected


def test_toggle_flips_a_user_updatable_flag(admin: httpx.Client, database: Database) -> None:
    flag = flags(admin)["dark_mode"]
    response = admin.put(f"{FEATURES}/{flag['id']}/toggle")
    assert response.status_code == 200, response.text
    assert response.json() == {"data": {"enabled": not flag["enabled"]}}
    assert flags(admin)["dark_mode"]["enabled"] is (not flag["enabled"])
    assert run_in_session(database, lambda s: feature_flag_service.is_enabled(s, FeatureFlagKey.DARK_MODE)) \
        is (not flag["enabled"])
    assert admin.put(f"{FEATURES}/{flag['id']}/toggle").json() == {"data": {"enabled": flag["enabled"]}}


def test_a_flag_that_is_not_user_updatable_is_403(admin: httpx.Client) -> None:
    flag = flags(admin)["ntlm_post_processing"]
    assert_error(admin.put(f"{FEATURES}/{flag['id']}/toggle"), 403,
                 f"Feature flag ntlm_post_processing({flag['id']}) is not user updatable.")
    assert flags(admin)["ntlm_post_processing"]["enabled"] is True


@pytest.mark.parametrize("feature_id", ["abc", "1.5", "-1", "99999999999"])
def test_a_malformed_id_is_400(admin: httpx.Client, feature_id: str) -> None:
    assert_error(admin.put(f"{FEATURES}/{feature_id}/toggle"), 400, "id is malformed")


def test_an_unknown_flag_is_404(admin: httpx.Client) -> None:
    assert_error(admin.put(f"{FEATURES}/987654/toggle"), 404, "resource not found")


def test_read_only_user_lists_but_cannot_toggle(read_only: httpx.Client) -> None:
    flag = flags(read_only)["dark_mode"]
    assert_error(read_only.put(f"{FEATURES}/{flag['id']}/toggle"), 403, "not authorized")


def test_dog_tags_are_those_of_a_service_without_a_licence(read_only: httpx.Client) -> None:
    response = read_only.get("/api/v2/dog-tags")
    assert response.status_code == 200, response.text
    assert response.json() == {"data": {"privilege_zones.multi_tier_analysis": False, "etac.enabled": False,
                                         "privilege_zones.tier_limit": 1, "privilege_zones.label_limit": 10}}
