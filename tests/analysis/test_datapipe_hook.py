"""The datapipe's analysis hook: the full analysis, with Citrix support read from the configuration."""

from __future__ import annotations

import json

import pytest

from houndgraph.graph.kinds import ADEdge
from houndgraph.worker.loop import analyse
from tests.analysis.graphs import Graph
from tests.analysis.test_computer_rules import citrix_computer


@pytest.mark.parametrize(("enabled", "expected"), [
    (True, {("Alice", "PC")}),
    (False, {("Alice", "PC"), ("Bob", "PC")}),
])
def test_hook_reads_citrix_rdp_support(graph: Graph, enabled: bool, expected: set[tuple[str, str]]) -> None:
    citrix_computer(graph)
    graph.load()
    updated = graph.conn.execute("UPDATE parameters SET value = %s::jsonb WHERE key = 'analysis.citrix_rdp_support'",
                                 (json.dumps({"enabled": enabled}),)).rowcount
    assert updated == 1
    analyse(graph.conn)
    assert graph.derived(ADEdge.CanRDP) == expected
