"""The code-side catalogue and the rows migrations 0004 and 0029 seed must agree."""

from __future__ import annotations

from typing import Any

import pytest

from houndgraph.config.parameters import PARAMETERS, USER_UPDATABLE, ParameterKey
from houndgraph.config.validation import validate_value
from houndgraph.db import Database
from houndgraph.errors import BadRequest
from houndgraph.feature_flag.flag_keys import FeatureFlagKey


def test_migration_seeds_the_catalogue(database: Database) -> None:
    with database.connect_raw() as conn:
        rows = {key: (name, description) for key, name, description in
                conn.execute("SELECT key, name, description FROM parameters")}
        # Values may have been changed by another test's server; the defaults are checked below.
        flag_keys = {key for (key,) in conn.execute("SELECT key FROM feature_flags")}
    assert set(rows) == {key.value for key in ParameterKey}
    for key, spec in PARAMETERS.items():
        assert rows[key] == (spec.name, spec.description), key
    assert flag_keys == {key.value for key in FeatureFlagKey}


def test_migration_defaults_are_the_catalogue_defaults() -> None:
    import importlib.util
    from pathlib import Path

    def migration(file_name: str) -> Any:
        path = Path(__file__).resolve().parents[2] / "migrations" / "versions" / file_name
        spec = importlib.util.spec_from_file_location(path.stem, path)
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        return module

    seeded = [*migration("0004_configuration_defaults.py").PARAMETERS,
              migration("0029_reference_roles_flags_and_secret_cache.py").API_TOKEN_EXPIRATION]
    frozen = {key: (name, description, value) for key, name, description, value in seeded}
    assert frozen == {key.value: (s.name, s.description, dict(s.default)) for key, s in PARAMETERS.items()}


@pytest.mark.parametrize("key", list(ParameterKey))
def test_every_default_satisfies_its_schema(key: ParameterKey) -> None:
    spec = PARAMETERS[key]
    try:
        validate_value(spec, dict(spec.default))
    except BadRequest as error:  # pragma: no cover - the assertion below reports it
        pytest.fail(f"{key}: {error}")


def test_protected_keys_stay_protected() -> None:
    assert "auth.api_tokens" not in USER_UPDATABLE
    assert "http.trusted_proxies" not in USER_UPDATABLE
    assert "auth.session_ttl_hours" in USER_UPDATABLE  # issue #2: the operator sets session lifetimes
