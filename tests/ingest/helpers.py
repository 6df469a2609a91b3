"""Small helpers for reader tests: run a reader to the end and look records up; the domain SID of hand-made
SharpHound records."""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from houndgraph.graph.records import EdgeRecord, NodeRecord
from houndgraph.ingest import IngestFile, expand_upload, read_file

D = "S-1-5-21-1-2-3"


@dataclass
class Result:
    nodes: list[NodeRecord] = field(default_factory=list)
    edges: list[EdgeRecord] = field(default_factory=list)
    deletions: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    batch_sizes: list[int] = field(default_factory=list)

    def node_kinds(self) -> Counter[str]:
        return Counter(node.kinds[0] for node in self.nodes)

    def edge_kinds(self) -> Counter[str]:
        return Counter(edge.kind for edge in self.edges)

    def node(self, objectid: str) -> NodeRecord:
        matches = [node for node in self.nodes if node.objectid == objectid]
        assert len(matches) == 1, f"{len(matches)} node records for {objectid}"
        return matches[0]

    def edges_of(self, kind: str, start: str | None = None, end: str | None = None) -> list[EdgeRecord]:
        return [
            edge
            for edge in self.edges
            if edge.kind == kind
            and (start is None or edge.start.value == start)
            and (end is None or edge.end.value == end)
        ]

    def edge(self, kind: str, start: str, end: str) -> EdgeRecord:
        matches = self.edges_of(kind, start, end)
        assert matches, f"no {kind} edge {start} -> {end}"
        return matches[0]

    def triples(self, kind: str | None = None) -> set[tuple[str, str, str]]:
        return {(e.start.value, e.kind, e.end.value) for e in self.edges if kind is None or e.kind == kind}


def read(file: IngestFile, batch_size: int = 5000) -> Result:
    result = Result()
    for batch in read_file(file, batch_size=batch_size, warnings=result.warnings):
        result.nodes.extend(batch.nodes)
        result.edges.extend(batch.edges)
        result.deletions.extend(batch.deletions)
        result.batch_sizes.append(len(batch))
    return result


def read_path(path: Path, batch_size: int = 5000) -> Result:
    files = list(expand_upload(path, max_unzipped_bytes=1 << 30, max_ratio=1000))
    assert len(files) == 1
    return read(files[0], batch_size)


def write_json(tmp_path: Path, document: Any, name: str = "data.json") -> Path:
    path = tmp_path / name
    path.write_text(json.dumps(document), encoding="utf-8")
    return path


def classic(data_type: str, records: list[Any], version: int = 6) -> dict[str, Any]:
    return {"data": records, "meta": {"methods": 0, "type": data_type, "count": len(records), "version": version}}


def read_records(tmp_path: Path, data_type: str, records: list[Any]) -> Result:
    return read_path(write_json(tmp_path, classic(data_type, records)))
