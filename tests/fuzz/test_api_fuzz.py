"""Schemathesis against the service's own OpenAPI document (issue #11): every operation, with and without
credentials, seeded, on a database of its own; no answer may be a 5xx, none may hang, and a body must
match the response schema its operation declares.

Bounded to about a minute: FUZZ_EXAMPLES examples per operation, each sent twice (anonymous, administrator).
Set HOUNDGRAPH_FUZZ_EXAMPLES higher for a longer hunt."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
import schemathesis
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st
from schemathesis import GenerationMode
from schemathesis.specs.openapi.checks import response_schema_conformance

from houndgraph.db import Database
from houndgraph.settings import Settings
from tests.conftest import ADMIN_PASSWORD, CHEAP_PASSWORD_HASHING, LiveServer, _free_port, login, scratch_database

FUZZ_EXAMPLES = int(os.environ.get("HOUNDGRAPH_FUZZ_EXAMPLES", "6"))
REQUEST_TIMEOUT = 60


@pytest.fixture(scope="module")
def fuzz_server(database: Database, tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    """The app on a scratch database: what the fuzzer creates, changes or deletes stays there."""
    data_dir = Path(tmp_path_factory.mktemp("fuzz"))
    settings = Settings(data_dir=data_dir, port=_free_port(), admin_password=ADMIN_PASSWORD, secret_key="f" * 48,
                        datapipe_interval=0.5, login_max_failures_per_address=1_000_000, **CHEAP_PASSWORD_HASHING)
    with scratch_database(database, "hg_fuzz") as scratch:
        server = LiveServer(settings, scratch)
        server.start()
        try:
            yield server
        finally:
            server.stop()


@pytest.fixture(scope="module")
def api_schema(fuzz_server: LiveServer) -> schemathesis.BaseSchema:
    # Fetched here with the fuzzer's own patience: the first build of the document is slow on a loaded machine.
    with httpx.Client(base_url=fuzz_server.base_url, timeout=REQUEST_TIMEOUT) as http:
        document = http.get("/api/openapi.json").raise_for_status().json()
    return schemathesis.openapi.from_dict(document)


@pytest.fixture(scope="module")
def fuzz_token(fuzz_server: LiveServer) -> str:
    with httpx.Client(base_url=fuzz_server.base_url, timeout=REQUEST_TIMEOUT) as http:
        return login(http, "admin", ADMIN_PASSWORD)


def _fuzz_operation(operation: schemathesis.APIOperation, base_url: str, token: str) -> list[str]:
    """Problems found in one operation: valid and invalid inputs, each sent without and with credentials."""
    problems: list[str] = []
    strategy = st.one_of(operation.as_strategy(GenerationMode.POSITIVE), operation.as_strategy(GenerationMode.NEGATIVE))

    @settings(max_examples=FUZZ_EXAMPLES, deadline=None, derandomize=True, database=None,
              phases=[Phase.explicit, Phase.generate], suppress_health_check=list(HealthCheck))
    @given(case=strategy)
    def run(case: schemathesis.Case) -> None:
        for headers in ({}, {"Authorization": f"Bearer {token}"}):
            try:
                response = case.call(base_url=base_url, headers=headers, timeout=REQUEST_TIMEOUT)
            except Exception as error:  # a dropped connection or a timeout: the service hung or crashed
                problems.append(f"{operation.label}: {type(error).__name__}: {error}\n"
                                f"  {case.as_curl_command(headers)}")
                continue
            SENT[0] += 1
            if response.status_code >= 500:
                problems.append(f"{operation.label} -> {response.status_code}: {response.text[:300]}\n"
                                f"  {case.as_curl_command(headers)}")
                continue
            try:  # where the operation declares its response schema, the body must match it
                case.validate_response(response, checks=[response_schema_conformance])
            except Exception as error:
                problems.append(f"{operation.label} -> {response.status_code}: {str(error)[:300]}\n"
                                f"  {case.as_curl_command(headers)}")

    run()
    return problems


SENT = [0]


def test_no_operation_answers_5xx_or_hangs(api_schema: schemathesis.BaseSchema, fuzz_server: LiveServer,
                                          fuzz_token: str) -> None:
    operations = [result.ok() for result in api_schema.get_all_operations()]
    assert len(operations) > 100, "every operation of the OpenAPI document is fuzzed"
    problems = [problem for operation in operations
                for problem in _fuzz_operation(operation, fuzz_server.base_url, fuzz_token)]
    print(f"\nfuzzed {len(operations)} operations with {SENT[0]} requests: {len(problems)} problems")
    assert not problems, "\n".join(problems[:20])
