"""The zone and label the reference seeds since BloodHound 9.x, on a database fresh from the migrations (the
other zone tests reset the tags to Tier Zero and Owned): the Management Plane zone with a rule per Entra ID
management role, and the Decoy label."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from houndgraph.db import Database
from houndgraph.settings import Settings
from tests.conftest import CHEAP_PASSWORD_HASHING, LiveServer, _free_port, login, scratch_database

ADMIN_PASSWORD = "Scratch-Admin-Passw0rd!"


@pytest.fixture(scope="module")
def fresh(database: Database, tmp_path_factory: pytest.TempPathFactory) -> Iterator[httpx.Client]:
    settings = Settings(data_dir=Path(tmp_path_factory.mktemp("zones")), port=_free_port(),
                        admin_password=ADMIN_PASSWORD, secret_key="z" * 48, **CHEAP_PASSWORD_HASHING)
    with scratch_database(database, "hg_zones") as scratch:
        server = LiveServer(settings, scratch)
        server.start()
        try:
            with httpx.Client(base_url=server.base_url, timeout=60) as http:
                http.headers["Authorization"] = f"Bearer {login(http, 'admin', ADMIN_PASSWORD)}"
                yield http
        finally:
            server.stop()


def tags(http: httpx.Client) -> dict[str, dict]:
    response = http.get("/api/v2/asset-group-tags")
    assert response.status_code == 200, response.text
    return {tag["name"]: tag for tag in response.json()["data"]["tags"]}


def test_the_management_plane_zone_follows_tier_zero(fresh: httpx.Client) -> None:
    zone = tags(fresh)["Management Plane"]
    assert (zone["type"], zone["position"], zone["require_certify"], zone["analysis_enabled"]) == (1, 2, False, False)
    assert tags(fresh)["Tier Zero"]["position"] == 1
    selectors = fresh.get(f"/api/v2/asset-group-tags/{zone['id']}/selectors", params={"limit": 100}).json()["data"]
    rules = {selector["name"]: selector for selector in selectors["selectors"]}
    assert len(rules) == 36 and all(rule["is_default"] for rule in rules.values())
    seed = rules["Intune Administrator"]["seeds"][0]
    assert seed["type"] == 2
    assert seed["value"] == ("MATCH (n:AZRole) \nWHERE n.objectid STARTS WITH '3A2C62DB-5318-420D-8D74-23AFFEE5D9D5@'"
                             "\nRETURN n;")


def test_a_new_zone_comes_after_the_management_plane(fresh: httpx.Client) -> None:
    response = fresh.post("/api/v2/asset-group-tags", json={"name": "Servers", "description": "", "type": 1})
    assert response.status_code == 201, response.text
    assert response.json()["data"]["position"] == 3


def test_the_decoy_label(fresh: httpx.Client) -> None:
    decoy = tags(fresh)["Decoy"]
    assert (decoy["type"], decoy["glyph"], decoy["description"]) == (
        4, "mask", "Accounts that should be excluded from predefined attack path queries.")


def test_tier_zero_holds_the_site_rules(fresh: httpx.Client) -> None:
    zone = tags(fresh)["Tier Zero"]
    selectors = fresh.get(f"/api/v2/asset-group-tags/{zone['id']}/selectors", params={"limit": 100}).json()["data"]
    rules = {selector["name"]: selector for selector in selectors["selectors"]}
    sites, servers = rules["Sites"], rules["Domain Controller Site Servers"]
    assert [(seed["type"], seed["value"]) for seed in sites["seeds"]] == [(2, "MATCH (n:Site) \nRETURN n;")]
    assert [(seed["type"], seed["value"]) for seed in servers["seeds"]] == [
        (2, "MATCH (n:SiteServer)-[:ServerIs]->(:Computer)-[:DCFor]->(:Domain)\nRETURN n;")]
    for rule, may_turn_off in ((sites, True), (servers, False)):
        assert (rule["is_default"], rule["allow_disable"], rule["auto_certify"], rule["disabled_at"]) == (
            True, may_turn_off, 2, None)
