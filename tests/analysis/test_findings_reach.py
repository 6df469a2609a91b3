"""Reachability for findings: one reverse search and the bit propagation over strongly connected components,
against a walk from every node."""

from __future__ import annotations

import random

import numpy as np
import pytest

from houndgraph.analysis.findings import reach
from houndgraph.analysis.findings.reach import Reach, unpack


def _descendants(adjacency: dict[int, set[int]], start: int) -> set[int]:
    seen, stack = {start}, [start]
    while stack:
        for following in adjacency[stack.pop()] - seen:
            seen.add(following)
            stack.append(following)
    return seen


@pytest.mark.parametrize("spacing", [7, 1])  # ids numbered by sorting, then by table (dense)
@pytest.mark.parametrize(("seed", "edges"), [(1, 160), (2, 90), (3, 60)])  # a giant component, then sparser
def test_counts_match_a_walk_from_every_node(seed: int, edges: int, spacing: int,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(reach, "CHUNK", 5)  # several chunks
    rng = random.Random(seed)
    size = 80
    pairs = [(rng.randrange(size), rng.randrange(size)) for _ in range(edges)]  # cycles included
    adjacency: dict[int, set[int]] = {node: set() for node in range(size)}
    for start, end in pairs:
        adjacency[start].add(end)
    ids = np.arange(size, dtype=np.int64) * spacing + 100
    snapshot = Reach(ids[[start for start, _ in pairs]], ids[[end for _, end in pairs]], ids)
    principals = sorted(rng.sample(range(size), 17))
    eligible = list(range(0, size, 3))
    eligible_components = snapshot.components[snapshot.index(ids[eligible])]
    seen = set()
    for chunk, bits in snapshot.reaching(snapshot.components[snapshot.index(ids[principals])]):
        matrix = unpack(bits[eligible_components], len(chunk))
        for principal in principals:
            component = snapshot.components[snapshot.index(ids[[principal]])[0]]
            if component not in chunk:
                continue
            column = int(np.flatnonzero(chunk == component)[0])
            expected = [principal in _descendants(adjacency, node) for node in eligible]
            assert matrix[:, column].astype(bool).tolist() == expected
            seen.add(principal)
    assert seen == set(principals)
    targets = principals[:3]
    mask = snapshot.ancestors(snapshot.index(ids[targets]))
    expected_nodes = {node for node in range(size) if _descendants(adjacency, node) & set(targets)}
    assert {int((snapshot.ids[i] - 100) // spacing) for i in np.flatnonzero(mask)} == expected_nodes


@pytest.mark.parametrize("size", [0, 1, 7, 5000])
def test_distinct_equals_numpy_unique(size: int) -> None:
    values = np.random.default_rng(size).integers(-50, 2000, size, dtype=np.int64)
    found = reach.distinct(values)
    assert found.dtype == np.int64 and found.tolist() == np.unique(values).tolist()
