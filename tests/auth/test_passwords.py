"""The argon2id cost of password digests: the real cost unless configured, and the configured one in use."""

from __future__ import annotations

import uuid
from pathlib import Path

import httpx
import pytest
from argon2 import extract_parameters, profiles
from sqlalchemy import select
from sqlalchemy.orm import Session

from houndgraph.auth import passwords
from houndgraph.cli.openapi import openapi_document
from houndgraph.db import Database
from houndgraph.models import AuthSecret
from houndgraph.settings import Settings
from tests.conftest import LiveServer
from tests.factories import create_user


def test_the_default_cost_is_argon2s_recommended_profile(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("TIME_COST", "MEMORY_KIB", "PARALLELISM"):
        monkeypatch.delenv(f"HOUNDGRAPH_PASSWORD_HASH_{name}", raising=False)
    digest = passwords.hasher_for(Settings(data_dir=tmp_path)).hash("Quite-Str0ng-Secret!")
    assert digest.startswith("$argon2id$v=19$m=65536,t=3,p=4$")
    assert extract_parameters(digest) == profiles.RFC_9106_LOW_MEMORY


def test_the_service_hashes_with_the_configured_cost(admin: httpx.Client, live_server: LiveServer,
                                                      database: Database) -> None:
    user = create_user(admin)
    with Session(database.sync_engine) as session:
        digest = session.scalar(select(AuthSecret.digest).where(AuthSecret.user_id == uuid.UUID(user["id"])))
    assert digest is not None
    parameters = extract_parameters(digest)
    settings = live_server.settings
    assert (parameters.time_cost, parameters.memory_cost, parameters.parallelism) == (
        settings.password_hash_time_cost, settings.password_hash_memory_kib, settings.password_hash_parallelism)


def test_describing_the_app_leaves_the_running_services_cost(admin: httpx.Client, live_server: LiveServer,
                                                             database: Database) -> None:
    # `houndgraph openapi` (and the bundle's test of the document) makes an app with the default settings and never
    # starts it: making it set the process's hashing to the full cost, and the test service in that process hashed
    # every password after it so (this module's other test failed when it ran later on the same worker).
    openapi_document()
    test_the_service_hashes_with_the_configured_cost(admin, live_server, database)
