"""Helpers for SSO provider tests: the multipart form of provider creation and role ids."""

from __future__ import annotations

import uuid

import httpx
import pytest
from sqlalchemy import select
from sqlalchemy.orm import Session

from houndgraph.db import Database
from houndgraph.models import Role

CREATE = "/api/v2/sso-providers/saml"
PROVIDERS = "/api/v2/sso-providers"


def unique_name(prefix: str = "idp") -> str:
    return f"{prefix}-{uuid.uuid4().hex[:10]}"


def form(name: str | None, *, enabled: str | None = "false", role: str | None = "3",
         role_provision: str | None = "false") -> dict[str, str]:
    fields = {"name": name, "config.auto_provision.enabled": enabled, "config.auto_provision.default_role_id": role,
              "config.auto_provision.role_provision": role_provision}
    return {key: value for key, value in fields.items() if value is not None}


def create(http: httpx.Client, name: str, metadata: bytes | None, **fields: str | None) -> httpx.Response:
    files = {"metadata": ("idp-metadata.xml", metadata, "application/xml")} if metadata is not None else None
    return http.post(CREATE, data=form(name, **fields), files=files)


def assert_error(response: httpx.Response, status: int, message: str | None = None) -> dict:
    assert response.status_code == status, response.text
    body = response.json()
    assert body["http_status"] == status
    if message is not None:
        assert body["errors"][0]["message"] == message, body
    return body


def provider_names(http: httpx.Client) -> set[str]:
    return {provider["name"] for provider in http.get(PROVIDERS).json()["data"]}


@pytest.fixture(scope="session")
def role_ids(database: Database) -> dict[str, int]:
    with Session(database.sync_engine) as session:
        return {role.name: role.id for role in session.scalars(select(Role))}
