"""Each field of a zone, selector and history record as the reference's Go type writes it (model/assetgrouptags.go,
assetgrouphistory.go): `time.Time` as a timestamp, never null; `null.Time`, `null.String`, `null.Int32` and
`null.Bool` as the plain value or null, never a `{value, valid}` object. houndgraph's own OpenAPI document says
the same."""

from __future__ import annotations

from datetime import datetime
from typing import Any

import httpx

from houndgraph.db import Database
from tests.asset_group_tag.conftest import TAGS

TIME, NULL_TIME, NULL_STRING, NULL_INT, NULL_BOOL = "time", "null time", "null string", "null int", "null bool"
TAG = {"id": int, "type": int, "kind_id": int, "name": str, "description": str, "created_at": TIME,
       "created_by": str, "updated_at": TIME, "updated_by": str, "deleted_at": NULL_TIME, "deleted_by": NULL_STRING,
       "position": NULL_INT, "require_certify": NULL_BOOL, "analysis_enabled": NULL_BOOL, "glyph": NULL_STRING}
SELECTOR = {"id": int, "asset_group_tag_id": int, "created_at": TIME, "created_by": str, "updated_at": TIME,
            "updated_by": str, "disabled_at": NULL_TIME, "disabled_by": NULL_STRING, "name": str, "description": str,
            "auto_certify": int, "is_default": bool, "allow_disable": bool, "seeds": list}
HISTORY = {"id": int, "created_at": TIME, "actor": str, "email": NULL_STRING, "action": str, "target": str,
           "asset_group_tag_id": int, "environment_id": NULL_STRING, "note": NULL_STRING}
PLAIN = {NULL_TIME: str, NULL_STRING: str, NULL_INT: int, NULL_BOOL: bool}


def assert_typed(value: dict[str, Any], types: dict[str, Any]) -> None:
    assert set(value) - {"counts"} == set(types)
    for key, kind in types.items():
        field = value[key]
        if kind == TIME:
            assert isinstance(field, str) and datetime.fromisoformat(field), (key, field)
        elif kind in PLAIN:
            assert field is None or type(field) is PLAIN[kind], (key, field)
        else:
            assert type(field) is kind, (key, field)


def test_zones_selectors_and_history_send_the_reference_types(admin: httpx.Client, zones: Database) -> None:
    tag = admin.post(TAGS, json={"name": "Wire Types", "type": 2}).json()["data"]
    assert_typed(tag, TAG)
    assert tag["position"] is None and tag["require_certify"] is None and tag["glyph"] is None
    zone = admin.post(TAGS, json={"name": "Wire Zone", "type": 1, "glyph": "star", "require_certify": True})
    assert_typed(zone.json()["data"], TAG)
    assert zone.json()["data"]["glyph"] == "star" and zone.json()["data"]["require_certify"] is True
    assert type(zone.json()["data"]["position"]) is int
    for listed in admin.get(TAGS, params={"counts": "true"}).json()["data"]["tags"]:
        assert_typed(listed, TAG)

    selectors = f"{TAGS}/{tag['id']}/selectors"
    selector = admin.post(selectors, json={"name": "seeded", "seeds": [{"type": 1, "value": "S-1-5-21-1-500"}]})
    assert_typed(selector.json()["data"], SELECTOR)
    disabled = admin.patch(f"{selectors}/{selector.json()['data']['id']}", json={"disabled": True}).json()["data"]
    assert_typed(disabled, SELECTOR)
    assert isinstance(disabled["disabled_at"], str) and disabled["disabled_by"]
    for listed in admin.get(f"{TAGS}/1/selectors").json()["data"]["selectors"]:
        assert_typed(listed, SELECTOR)

    records = admin.get("/api/v2/asset-group-tags-history").json()["data"]["records"]
    assert records
    for record in records:
        assert_typed(record, HISTORY)


def test_the_served_openapi_document_agrees(client: httpx.Client) -> None:
    schemas = client.get("/api/openapi.json").json()["components"]["schemas"]
    basic = {"created_at": TIME, "updated_at": TIME}  # the legacy asset groups' model.Basic
    for name, types in (("TagView", TAG), ("SelectorView", SELECTOR), ("HistoryView", HISTORY),
                        ("AssetGroupView", basic), ("LegacySelector", basic)):
        properties = schemas[name]["properties"]
        for key, kind in types.items():
            nullable = any(option.get("type") == "null" for option in properties[key].get("anyOf", []))
            assert nullable == (kind in PLAIN), (name, key)
