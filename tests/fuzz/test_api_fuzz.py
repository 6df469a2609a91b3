"""Response conformance: schemathesis against the service's own OpenAPI document, over every operation, with
and without credentials, seeded, on a database of its own holding the two SharpHound labs (analysed). No
answer may be a 5xx or hang, and every body must match the schema its operation declares for its status
(success bodies and the error body alike).

Two kinds of request per operation: the known-good ones of `good_requests` (real object ids of the labs, a
path that exists, a Cypher query with a result), which must answer 2xx, so that the graph answers (Cypher,
path finding, search, every AD entity panel and list) are checked against their schemas; and FUZZ_EXAMPLES
generated ones (valid and invalid inputs) sent as the administrator, the first also without credentials.
Bounded by its request count (about 1,100); set HOUNDGRAPH_FUZZ_EXAMPLES higher for a longer hunt."""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pytest
import schemathesis
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st
from schemathesis import GenerationMode
from schemathesis.specs.openapi.checks import response_schema_conformance

from houndgraph.db import Database
from houndgraph.entity.ad_panels import ENTITIES
from houndgraph.settings import Settings
from tests.conftest import ADMIN_PASSWORD, CHEAP_PASSWORD_HASHING, TLS, LiveServer, _free_port, login, scratch_database
from tests.labs import load_labs

FUZZ_EXAMPLES = int(os.environ.get("HOUNDGRAPH_FUZZ_EXAMPLES", "3"))
REQUEST_TIMEOUT = 60
# The routes the contract matters most for: each must answer a known-good request with a conforming 2xx.
GRAPH_OPERATIONS = ("POST /api/v2/graphs/cypher", "GET /api/v2/graphs/shortest-path", "GET /api/v2/pathfinding",
                    "GET /api/v2/graphs/relay-targets", "GET /api/v2/graphs/edge-composition",
                    "GET /api/v2/search", "GET /api/v2/graph-search", "GET /api/v2/available-domains")


@pytest.fixture(scope="module")
def fuzz_server(database: Database, tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    """The app on a scratch database with the labs: what the fuzzer creates, changes or deletes stays there."""
    data_dir = Path(tmp_path_factory.mktemp("fuzz"))
    settings = Settings(data_dir=data_dir, port=_free_port(), admin_password=ADMIN_PASSWORD, secret_key="f" * 48,
                        datapipe_interval=0.5, login_max_failures_per_address=1_000_000, **CHEAP_PASSWORD_HASHING)
    with scratch_database(database, "hg_fuzz") as scratch:
        load_labs(scratch)
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


def _admin_token(server: LiveServer) -> str:
    with httpx.Client(base_url=server.base_url, timeout=REQUEST_TIMEOUT) as http:
        return login(http, "admin", ADMIN_PASSWORD)


@pytest.fixture(scope="module")
def fuzz_token(fuzz_server: LiveServer) -> str:
    return _admin_token(fuzz_server)


def _cypher(http: httpx.Client, query: str) -> dict[str, Any]:
    response = http.post("/api/v2/graphs/cypher", json={"query": query, "include_properties": True})
    if response.status_code == 404:  # no result
        return {"nodes": {}, "edges": []}
    graph: dict[str, Any] = response.raise_for_status().json()["data"]
    return graph


def _cypher_nodes(http: httpx.Client, query: str) -> list[dict[str, Any]]:
    return [{"id": node_id, **node} for node_id, node in _cypher(http, query)["nodes"].items()]


@dataclass
class Lab:
    """What the labs hold, read through the API: object ids by entity slug, a member and its group, a domain,
    and a composite edge (its kind and its ends' graph ids)."""

    object_ids: dict[str, str] = field(default_factory=dict)
    edge: dict[str, str] = field(default_factory=dict)
    member: str = ""
    group: str = ""
    domain: str = ""
    name: str = ""


@pytest.fixture(scope="module")
def lab(fuzz_server: LiveServer, fuzz_token: str) -> Lab:
    found = Lab()
    with httpx.Client(base_url=fuzz_server.base_url, timeout=REQUEST_TIMEOUT,
                      headers={"Authorization": f"Bearer {fuzz_token}"}) as http:
        for slug, entity in ENTITIES.items():
            nodes = _cypher_nodes(http, f"MATCH (n:{entity.kind}) RETURN n ORDER BY n.objectid LIMIT 1")
            if nodes:
                found.object_ids[slug] = nodes[0]["objectId"]
        pair = _cypher_nodes(http, "MATCH (u:User)-[:MemberOf]->(g:Group) RETURN u, g ORDER BY u.objectid LIMIT 1")
        member, group = sorted(pair, key=lambda node: node["kind"] != "User")
        found.member, found.group = member["objectId"], group["objectId"]
        found.name = str(member["label"])
        composite = _cypher(http, "MATCH (a)-[r:ADCSESC1|GoldenCert]->(b) RETURN a, r, b LIMIT 1")["edges"]
        found.edge = {"edge_type": composite[0]["kind"], "source_node": composite[0]["source"],
                      "target_node": composite[0]["target"]}
    found.domain = found.object_ids["domains"]
    return found


def good_requests(label: str, lab: Lab) -> list[dict[str, Any]]:
    """`Case` arguments for requests that must succeed on the labs, by operation label."""
    method, path = label.split(" ", 1)
    parts = path.split("/")
    if method == "GET" and len(parts) >= 5 and parts[4] == "{object_id}" and parts[3] in lab.object_ids:
        ids = {"object_id": lab.object_ids[parts[3]]}
        if len(parts) == 5:  # the panel, with and without counts
            return [{"path_parameters": ids}, {"path_parameters": ids, "query": {"counts": "false"}}]
        # Every list as a page; the first of each entity also as the legacy graph map (the same code for all).
        first = parts[5] == ENTITIES[parts[3]].list_slugs[0]
        return [{"path_parameters": ids}, *([{"path_parameters": ids, "query": {"type": "graph"}}] if first else [])]
    ends = {"start_node": lab.member, "end_node": lab.group}
    domain = {"domain_id": lab.domain}
    return {
        "POST /api/v2/graphs/cypher": [
            {"body": {"query": "MATCH p = (:User)-[:MemberOf]->(:Group) RETURN p LIMIT 5", "include_properties": True}},
            {"body": {"query": "MATCH (n:Domain) RETURN n.name, count(n) LIMIT 5"}},
        ],
        "GET /api/v2/graphs/shortest-path": [{"query": ends}],
        "GET /api/v2/pathfinding": [{"query": ends}],
        "GET /api/v2/search": [{"query": {"q": lab.name[:3]}}],
        "GET /api/v2/graph-search": [{"query": {"query": lab.name[:3]}}],
        "GET /api/v2/available-domains": [{}],
        "GET /api/v2/graphs/relay-targets": [{"query": lab.edge}],
        "GET /api/v2/graphs/edge-composition": [{"query": lab.edge}],
        "PATCH /api/v2/domains/{object_id}": [{"path_parameters": {"object_id": lab.domain},
                                               "body": {"collected": True}}],
        "GET /api/v2/meta-nodes/{domain_id}": [{"path_parameters": domain}],
        "GET /api/v2/meta-trees/{domain_id}": [{"path_parameters": domain}],
        "GET /api/v2/domains/{domain_id}/attack-path-findings": [{"path_parameters": domain}],
        "GET /api/v2/domains/{domain_id}/available-types": [{"path_parameters": domain}],
        "GET /api/v2/ad-domains/{domain_id}/data-quality-stats": [{"path_parameters": domain}],
    }.get(label, [])


@dataclass
class Tally:
    requests: int = 0
    succeeded: Counter[str] = field(default_factory=Counter)
    problems: list[str] = field(default_factory=list)


def _send(case: schemathesis.Case, base_url: str, headers: dict[str, str], tally: Tally) -> int | None:
    label = case.operation.label
    try:
        # Redirects are answers of their own (the SSO steps): checked as sent, not followed.
        response = case.call(base_url=base_url, headers=headers, timeout=REQUEST_TIMEOUT, allow_redirects=False)
    except Exception as error:  # a dropped connection or a timeout: the service hung or crashed
        tally.problems.append(f"{label}: {type(error).__name__}: {error}\n  {case.as_curl_command(headers)}")
        return None
    tally.requests += 1
    if response.status_code >= 500:
        tally.problems.append(f"{label} -> {response.status_code}: {response.text[:300]}\n"
                              f"  {case.as_curl_command(headers)}")
        return response.status_code
    try:  # the body must match the schema the operation declares for the status
        case.validate_response(response, checks=[response_schema_conformance])
    except BaseExceptionGroup as error:  # schemathesis' FailureGroup: the checks that failed
        tally.problems.append(f"{label} -> {response.status_code}: {str(error)[:400]}\n"
                              f"  {case.as_curl_command(headers)}")
        return response.status_code
    if response.status_code < 300:
        tally.succeeded[label] += 1
    return response.status_code


def _signed_out(server: LiveServer, admin: dict[str, str]) -> bool:
    with httpx.Client(base_url=server.base_url, timeout=REQUEST_TIMEOUT, headers=admin, verify=TLS) as http:
        return http.get("/api/v2/self").status_code == 401


def _check_good_requests(operation: schemathesis.APIOperation, server: LiveServer, token: str, lab: Lab,
                         tally: Tally) -> None:
    for arguments in good_requests(operation.label, lab):
        status = _send(operation.Case(**arguments), server.base_url, {"Authorization": f"Bearer {token}"}, tally)
        if status is not None and not 200 <= status < 300:
            tally.problems.append(f"{operation.label}: a known-good request answered {status}: {arguments}")


def _fuzz_operation(operation: schemathesis.APIOperation, server: LiveServer, admin: dict[str, str],
                    tally: Tally) -> None:
    strategy = st.one_of(operation.as_strategy(GenerationMode.POSITIVE), operation.as_strategy(GenerationMode.NEGATIVE))

    anonymous: list[dict[str, str]] = [{}]  # once per operation: a missing credential is checked first

    @settings(max_examples=FUZZ_EXAMPLES, deadline=None, derandomize=True, database=None,
              phases=[Phase.generate], suppress_health_check=list(HealthCheck))
    @given(case=strategy)
    def run(case: schemathesis.Case) -> None:
        for headers in (*anonymous, admin):
            _send(case, server.base_url, headers, tally)
        anonymous.clear()

    run()


@pytest.mark.timeout(900)  # bounded by its request count; a loaded machine may take minutes
def test_every_answer_conforms_to_the_document(api_schema: schemathesis.BaseSchema, fuzz_server: LiveServer,
                                               fuzz_token: str, lab: Lab) -> None:
    operations = [result.ok() for result in api_schema.get_all_operations()]
    assert len(operations) > 250, "every operation of the OpenAPI document is fuzzed"
    tally = Tally()
    # The known-good requests first, while the labs are whole (a fuzzed request may clear the graph).
    for operation in operations:
        _check_good_requests(operation, fuzz_server, fuzz_token, lab, tally)
    admin = {"Authorization": f"Bearer {fuzz_token}"}
    for operation in operations:
        _fuzz_operation(operation, fuzz_server, admin, tally)
        if operation.method.upper() != "GET" and _signed_out(fuzz_server, admin):
            # The operation ended the administrator's session (logout, a changed secret): sign in again.
            admin["Authorization"] = f"Bearer {_admin_token(fuzz_server)}"
    print(f"\nfuzzed {len(operations)} operations with {tally.requests} requests; {len(tally.succeeded)} operations "
          f"answered a conforming 2xx; {len(tally.problems)} problems")
    assert not tally.problems, "\n".join(tally.problems[:20])
    panels = [f"GET /api/v2/{slug}/{{object_id}}{list_path}" for slug in lab.object_ids
              for list_path in ("", *(f"/{name}" for name in ENTITIES[slug].list_slugs))]
    unchecked = [label for label in (*GRAPH_OPERATIONS, *panels) if not tally.succeeded[label]]
    assert not unchecked, f"no conforming 2xx checked for: {unchecked}"
