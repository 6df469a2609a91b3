"""Reachability for findings: one reverse search and the bit propagation, against a walk per node."""

from __future__ import annotations

import random

import numpy as np
import pytest

from houndgraph.analysis.findings import reach
from houndgraph.analysis.findings.reach import Reach


def _descendants(adjacency: dict[int, set[int]], start: int) -> set[int]:
    seen, stack = {start}, [start]
    while stack:
        for following in adjacency[stack.pop()] - seen:
            seen.add(following)
            stack.append(following)
    return seen


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_counts_match_a_walk_from_every_node(seed: int, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(reach, "CHUNK", 5)  # several chunks, and principals sharing none
    rng = random.Random(seed)
    size = 80
    pairs = [(rng.randrange(size), rng.randrange(size)) for _ in range(160)]  # cycles included
    adjacency: dict[int, set[int]] = {node: set() for node in range(size)}
    for start, end in pairs:
        adjacency[start].add(end)
    ids = np.arange(size, dtype=np.int64) * 7 + 100  # graph ids are not dense
    snapshot = Reach(ids[[start for start, _ in pairs]], ids[[end for _, end in pairs]], ids)
    principals = sorted(rng.sample(range(size), 17))
    eligible = list(range(0, size, 3))
    seen = 0
    for chunk, matrix in snapshot.reaching(snapshot.index(ids[principals]), snapshot.index(ids[eligible])):
        for column, index in enumerate(chunk.tolist()):
            principal = int((snapshot.ids[index] - 100) // 7)
            expected = [principal in _descendants(adjacency, node) for node in eligible]
            assert matrix[:, column].astype(bool).tolist() == expected
            seen += 1
    assert seen == len(principals)
    targets = principals[:3]
    mask = snapshot.ancestors(snapshot.index(ids[targets]))
    expected_nodes = {node for node in range(size) if _descendants(adjacency, node) & set(targets)}
    assert {int((snapshot.ids[i] - 100) // 7) for i in np.flatnonzero(mask)} == expected_nodes
