"""Hypothesis mutates the real collector files of ../shared/data and feeds them to every reader (issue #11):
the first pass that validates uploads, the readers of each SharpHound file type, and the zip expansion.
A mutated file may be refused (IngestError) or read with warnings; nothing else may escape, hang or crash.

Seeded (derandomized) and bounded: READER_EXAMPLES per mutation kind."""

from __future__ import annotations

import io
import json
import os
import zipfile
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from houndgraph.ingest import IngestError, IngestFile, expand_upload, read_file, validate_upload
from tests.conftest import DATA

READER_EXAMPLES = int(os.environ.get("HOUNDGRAPH_READER_FUZZ_EXAMPLES", "400"))
FILES = sorted(path for path in (DATA / "sharphound").rglob("*.json") if path.stat().st_size < 150_000)
ORIGINALS = {path.name + path.parent.name: path.read_bytes() for path in FILES}
FUZZ = settings(max_examples=READER_EXAMPLES, deadline=None, derandomize=True, database=None,
                suppress_health_check=list(HealthCheck))

originals = st.sampled_from(sorted(ORIGINALS))
SPECIAL_BYTES = [b"[", b"]", b"{", b"}", b'"', b"\\", b"\x00", b"\xff", b",", b":", b"\\u0000", b"1e999",
                 b"99999999999999999999999", b"[" * 200, b"null"]
json_values = st.recursive(
    st.none() | st.booleans() | st.integers(min_value=-(2**70), max_value=2**70)
    | st.floats(allow_nan=False) | st.text(max_size=20) | st.sampled_from(["\x00", "S-1-5-21-1-2-3-500", ""]),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(
        st.sampled_from(["ObjectIdentifier", "Properties", "Aces", "Members", "name", "x", "PrincipalSID",
                         "RightName", "ObjectType", "Sessions", "LocalGroups", "Results", "type", "data"]),
        children, max_size=4),
    max_leaves=12)


def read_everything(tmp_path: Path, content: bytes) -> None:
    """Every reader over `content`: only IngestError may come out of them."""
    path = tmp_path / "mutated.json"
    path.write_bytes(content)
    validate_upload(path)
    warnings: list[str] = []
    try:
        for batch in read_file(IngestFile(name=path.name, parent_name=None, open=lambda: path.open("rb")),
                               batch_size=50, warnings=warnings):
            assert len(batch) <= 50 + 10  # a record may add a few edges beyond the batch boundary
    except IngestError:
        pass
    archive = tmp_path / "mutated.zip"
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as out:
        out.writestr("mutated.json", content)
    archive.write_bytes(buffer.getvalue())
    try:
        for member in expand_upload(archive, max_unzipped_bytes=1 << 30, max_ratio=1000, expect_zip=True):
            for _ in read_file(member, batch_size=50):
                pass
    except IngestError:
        pass


@FUZZ
@given(name=originals, data=st.data())
def test_byte_mutations(tmp_path_factory: Any, name: str, data: st.DataObject) -> None:
    content = bytearray(ORIGINALS[name])
    for _ in range(data.draw(st.integers(1, 4), label="edits")):
        position = data.draw(st.integers(0, len(content)), label="position")
        kind = data.draw(st.sampled_from(["insert", "replace", "delete", "truncate"]), label="kind")
        piece = data.draw(st.sampled_from(SPECIAL_BYTES) | st.binary(min_size=1, max_size=8), label="bytes")
        if kind == "insert":
            content[position:position] = piece
        elif kind == "replace":
            content[position:position + len(piece)] = piece
        elif kind == "delete":
            del content[position:position + data.draw(st.integers(1, 64), label="length")]
        else:
            del content[position:]
    read_everything(tmp_path_factory.mktemp("bytes"), bytes(content))


def _replace_somewhere(document: Any, data: st.DataObject) -> Any:
    """`document` with one value, chosen by walking down from the top, replaced or removed."""
    if not isinstance(document, (dict, list)) or not document or data.draw(st.integers(0, 3), label="stop") == 0:
        return data.draw(json_values, label="value")
    if isinstance(document, dict):
        key = data.draw(st.sampled_from(sorted(document)), label="key")
        if data.draw(st.integers(0, 9), label="drop") == 0:
            return {k: v for k, v in document.items() if k != key}
        return {**document, key: _replace_somewhere(document[key], data)}
    index = data.draw(st.integers(0, len(document) - 1), label="index")
    return [*document[:index], _replace_somewhere(document[index], data), *document[index + 1:]]


@FUZZ
@given(name=originals, data=st.data())
def test_structure_mutations(tmp_path_factory: Any, name: str, data: st.DataObject) -> None:
    document = json.loads(ORIGINALS[name])
    for _ in range(data.draw(st.integers(1, 3), label="edits")):
        document = _replace_somewhere(document, data)
    read_everything(tmp_path_factory.mktemp("structure"), json.dumps(document).encode())
