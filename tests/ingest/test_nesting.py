"""Deep nesting is refused on the raw bytes, before a parser can spend memory on it (issue #11, defect 1)."""

from __future__ import annotations

import json
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from houndgraph.ingest import IngestError, IngestFile, read_file, validate_upload
from houndgraph.ingest.nesting import MAX_JSON_DEPTH, NestingCounter, nesting_depth, nests_deeper_than

# Under an address-space cap far below what the quadratic path of a 100,000-deep parse needs (tens of GB).
CAPPED_VALIDATION = """
import json, resource, sys
from pathlib import Path
limit = int(sys.argv[2])
resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
from houndgraph.ingest import validate_upload
print(json.dumps(validate_upload(Path(sys.argv[1]))))
"""


def _depth(value: Any) -> int:
    if isinstance(value, dict):
        return 1 + max((_depth(item) for item in value.values()), default=0)
    if isinstance(value, list):
        return 1 + max((_depth(item) for item in value), default=0)
    return 0


def _random_value(rng: random.Random, level: int = 0) -> Any:
    roll = rng.random()
    if level > 8 or roll < 0.3:
        return rng.choice(['a"[{\\\\', '\\"]]]', "[", 'x\\\\"', 1, None, "}{", "\\u005b"])
    if roll < 0.65:
        return [_random_value(rng, level + 1) for _ in range(rng.randrange(3))]
    return {rng.choice(["k", "[", '"\\']): _random_value(rng, level + 1) for _ in range(rng.randrange(3))}


def test_depth_is_counted_outside_strings_and_across_chunk_boundaries() -> None:
    rng = random.Random(11)
    for _ in range(500):
        value = _random_value(rng)
        text = json.dumps(value).encode()
        counter = NestingCounter()
        step = rng.randrange(1, 6)
        for start in range(0, len(text), step):
            counter.feed(text[start:start + step])
        assert counter.deepest == _depth(value) == nesting_depth(text), text


def test_a_text_nests_past_a_limit_as_its_measured_depth_says() -> None:
    # Texts with fewer opening brackets than the limit are not measured; the answer is the same either way.
    rng = random.Random(12)
    for _ in range(300):
        text = json.dumps(_random_value(rng)).encode()
        for limit in range(6):
            assert nests_deeper_than(text, limit) is (nesting_depth(text) > limit), (text, limit)
    assert nests_deeper_than(b"[" * 65 + b"]" * 65, MAX_JSON_DEPTH)
    assert not nests_deeper_than(b"[" * 64 + b"]" * 64, MAX_JSON_DEPTH)
    assert not nests_deeper_than(b'[' + b'"[[[[", ' * 40 + b"1]", 3)  # brackets in strings counted, then measured


def test_a_200_kb_file_of_nested_brackets_is_refused_in_bounded_memory(tmp_path: Path) -> None:
    path = tmp_path / "deep.json"
    path.write_bytes(b'{"meta": {"type": "users", "version": 6}, "data": ' + b"[" * 100_000 + b"]" * 100_000 + b"}")
    capped = subprocess.run([sys.executable, "-c", CAPPED_VALIDATION, str(path), str(2 << 30)],
                            capture_output=True, text=True, timeout=120)
    assert capped.returncode == 0, capped.stderr[-2000:]
    assert json.loads(capped.stdout) == [f"the JSON nests deeper than {MAX_JSON_DEPTH} levels"]


DEEP_PROPERTY = b'{"graph": {"nodes": [{"id": "a", "kinds": ["K"], "properties": {"p": ' + b"[" * 5000 + b"]" * 5000
DEEP_META = b'{"meta": ' + b'{"a": ' * 5000 + b"1" + b"}" * 5000 + b', "data": []}'


@pytest.mark.parametrize("body", [DEEP_PROPERTY + b"}}]}}", DEEP_META])
def test_deep_nesting_anywhere_is_refused_by_every_reader(tmp_path: Path, body: bytes) -> None:
    path = tmp_path / "deep.json"
    path.write_bytes(body)
    assert validate_upload(path) == [f"the JSON nests deeper than {MAX_JSON_DEPTH} levels"]
    with pytest.raises(IngestError, match="nests deeper"):
        list(read_file(IngestFile(name=path.name, parent_name=None, open=lambda: path.open("rb"))))
