"""Every way a document can be unreadable: each is an IngestError with a message naming the problem,
raised before any batch is produced (so nothing of a bad file reaches the graph)."""

from __future__ import annotations

import io
import json
import time
from pathlib import Path
from typing import Any

import pytest

from houndgraph.ingest import FileFormat, IngestError, IngestFile, read_file, sniff_format, validate_upload
from tests.conftest import DATA
from tests.ingest.helpers import classic, read_path, write_json

USERS = DATA / "sharphound" / "v6-adcs-lab" / "users.json"
META = {"methods": 0, "type": "users", "count": 0, "version": 6}
KNOWN_TYPES = (
    "sessions, users, groups, computers, gpos, ous, domains, deleted, containers, localgroups, aiacas, rootcas, "
    "enterprisecas, ntauthstores, certtemplates, azure, issuancepolicies, sites, siteservers, sitesubnets"
)
MIXED = "request must use either the classic format (meta/data) or the generic format (graph), not both"


def error_of(path: Path) -> str:
    file = IngestFile(name=path.name, parent_name=None, open=lambda: path.open("rb"))
    batches = read_file(file)
    with pytest.raises(IngestError) as caught:
        next(batches)
    return str(caught.value)


def write_bytes(tmp_path: Path, content: bytes) -> Path:
    path = tmp_path / "upload.json"
    path.write_bytes(content)
    return path


@pytest.mark.parametrize(
    ("document", "message"),
    [
        ({}, "no valid meta tag or data tag found"),
        ([1, 2], "no valid meta tag or data tag found: the document is not a JSON object"),
        ({"data": []}, "no valid meta tag found"),
        ({"meta": META}, "no data tag found"),
        ({"meta": META, "data": {"a": 1}}, "invalid data tag found: data must be an array"),
        ({"meta": META, "data": "users"}, "invalid data tag found: data must be an array"),
        ({"meta": 5, "data": []}, "no valid meta tag found: meta must be an object"),
        (
            {"meta": {**META, "type": "printers"}, "data": []},
            "no valid meta tag found: meta.type 'printers' is not one of: " + KNOWN_TYPES,
        ),
        (
            {"meta": {**META, "version": "6"}, "data": []},
            "no valid meta tag found: meta.version and meta.methods must be integers",
        ),
        (
            {"data": [], "meta": {**META, "type": None}},
            "no valid meta tag found: meta.type None is not one of: " + KNOWN_TYPES,
        ),
        ({"meta": META, "data": [], "graph": {"nodes": []}}, MIXED),
        ({"graph": {"nodes": []}, "meta": META}, MIXED),
        ({"data": [], "graph": {"nodes": []}}, MIXED),
        ({"metadata": {"source_kind": "X"}}, "no valid meta tag or data tag found: metadata without a graph tag"),
        ({"graph": {}}, "graph tag is empty. at least one of nodes: [] or edges: [] is required"),
        ({"graph": []}, "graph tag must be an object with nodes and edges arrays"),
        ({"graph": {"nodes": {}}}, "nodes must be an array"),
    ],
)
def test_document_structure_errors(tmp_path: Path, document: object, message: str) -> None:
    assert error_of(write_json(tmp_path, document)) == message


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b"", "not JSON: the file is empty"),
        (b"   \n", "not JSON: the file is empty"),
        (b"PK\x03\x04 not json", "not JSON: lexical error: invalid char in json text."),
        (b"meta: users", "not JSON: lexical error: invalid char in json text."),
        (
            b'{"meta": {"type": "users", "version": 6}, "data": [{"a": 1}',
            "not JSON: the document ends too early (truncated file)",
        ),
        (b'{"data": [{"name": "\xff\xfe"}], "meta": {}}', "not JSON: lexical error: invalid bytes in UTF8 string."),
        (b'{"data": [], "meta": {"type": "users", "version": 6}} trailing', "not JSON: parse error: trailing garbage"),
    ],
)
def test_not_json(tmp_path: Path, content: bytes, message: str) -> None:
    assert error_of(write_bytes(tmp_path, content)) == message


def test_every_truncation_of_a_real_file_is_refused_before_any_batch(tmp_path: Path) -> None:
    content = USERS.read_bytes()
    for cut in range(1, len(content) - 1, len(content) // 40):
        message = error_of(write_bytes(tmp_path, content[:cut]))
        assert message.startswith("not JSON: "), (cut, message)


def test_meta_tag_at_the_end_of_a_large_data_array(tmp_path: Path) -> None:
    records = [{"ObjectIdentifier": f"S-1-5-21-1-{i}", "Properties": {"name": f"U{i}"}} for i in range(3000)]
    result = read_path(write_json(tmp_path, classic("users", records)))
    assert len(result.nodes) == 3000
    # The same file with a generic key after the data array is refused, however far from the start it is.
    mixed = {"data": records, "meta": META, "graph": {"nodes": []}}
    assert error_of(write_json(tmp_path, mixed, "mixed.json")) == MIXED


def test_an_invalid_meta_tag_followed_by_a_valid_one_is_read(tmp_path: Path) -> None:
    path = write_bytes(tmp_path, b'{"meta": 0, "data": [], "meta": {"type": "users", "version": 6, "methods": 0}}')
    assert read_path(path).nodes == []


def test_utf8_byte_order_mark_is_tolerated(tmp_path: Path) -> None:
    content = "\ufeff" + json.dumps(classic("users", [{"ObjectIdentifier": "S-1-5-21-1-500"}]))
    result = read_path(write_bytes(tmp_path, content.encode("utf-8")))
    assert [node.objectid for node in result.nodes] == ["S-1-5-21-1-500"]


def test_a_vanished_file_is_an_ingest_error(tmp_path: Path) -> None:
    missing = tmp_path / "gone.json"
    assert error_of(missing).startswith("gone.json: cannot be read")


def test_sniff_format() -> None:
    assert sniff_format(io.BytesIO(USERS.read_bytes())) is FileFormat.CLASSIC
    generic = json.dumps({"graph": {"nodes": [{"id": "a", "kinds": ["K"]}]}}).encode()
    assert sniff_format(io.BytesIO(generic)) is FileFormat.GENERIC
    with pytest.raises(IngestError, match="^no data tag found$"):
        sniff_format(io.BytesIO(json.dumps({"meta": META}).encode()))


def test_validate_upload(tmp_path: Path) -> None:
    assert validate_upload(USERS) == []
    assert validate_upload(DATA / "sharphound" / "v6-adcs-lab" / "adcs.zip") == []
    assert validate_upload(write_json(tmp_path, {"data": []})) == ["no valid meta tag found"]
    assert validate_upload(write_bytes(tmp_path, b"PK\x01\x02garbage")) == ["failed to find zip file header"]
    bad_nodes = {"graph": {"nodes": [{"id": "a"}, {"kinds": ["K"]}]}}
    assert validate_upload(write_json(tmp_path, bad_nodes, "g.json")) == [
        "nodes[0] schema validation failed with 1 error(s): [missing property 'kinds']",
        "nodes[1] schema validation failed with 1 error(s): [missing property 'id']",
    ]


def test_a_huge_string_is_refused_early_naming_why(tmp_path: Path) -> None:
    # One 150 MB string kept the datapipe busy for 12.5 minutes, read three times, then failed as an
    # "interrupted service". It is refused from the first megabytes past the limit.
    from houndgraph.ingest.nesting import MAX_STRING_BYTES

    huge = "A" * (40 << 20)
    record = {"ObjectIdentifier": "S-1-5-21-1-2-3-1105", "Properties": {"name": huge, "domain": "LAB.LOCAL"}}
    path = write_bytes(tmp_path, json.dumps({"data": [record], "meta": META}).encode())
    read = 0

    class Counted(io.FileIO):
        def readinto(self, buffer: Any) -> int | None:
            nonlocal read
            got = super().readinto(buffer)
            read += got or 0
            return got

    file = IngestFile(name=path.name, parent_name=None, open=lambda: io.BufferedReader(Counted(path, "rb")))
    started = time.monotonic()
    with pytest.raises(IngestError) as caught:
        list(read_file(file))
    assert str(caught.value) == f"the file holds a string longer than {MAX_STRING_BYTES >> 20} MiB"
    assert time.monotonic() - started < 10
    # Its meta tag read from the end, then its first megabytes once: not the 40 MB, let alone three times.
    assert read < 2 * MAX_STRING_BYTES, read


def test_a_huge_string_in_an_opengraph_file_is_refused_early_too(tmp_path: Path) -> None:
    # The generic reader had no string limit: the value was parsed (twice: scan, then nodes) before anything
    # refused it.
    huge = "A" * (40 << 20)
    document = {"graph": {"nodes": [{"id": "N1", "kinds": ["Widget"], "properties": {"blob": huge}}], "edges": []}}
    path = write_bytes(tmp_path, json.dumps(document).encode())
    started = time.monotonic()
    with pytest.raises(IngestError) as caught:
        list(read_file(IngestFile(name=path.name, parent_name=None, open=lambda: path.open("rb"))))
    assert str(caught.value) == "the file holds a string longer than 4 MiB"
    assert time.monotonic() - started < 10


@pytest.mark.parametrize("where", ["objectid", "name", "edge end", "opengraph kind"])
def test_values_too_long_for_an_index_are_refused_by_every_reader(tmp_path: Path, where: str) -> None:
    long = "X" * 2049
    if where == "opengraph kind":
        document: dict[str, Any] = {"graph": {"nodes": [{"id": "N1", "kinds": [long]}], "edges": []}}
        what = "a kind"
    else:
        record: dict[str, Any] = {"ObjectIdentifier": "S-1-5-21-1-2-3-1105",
                                  "Properties": {"name": "ALICE@LAB.LOCAL", "domain": "LAB.LOCAL"},
                                  "PrimaryGroupSID": "S-1-5-21-1-2-3-513"}
        if where == "objectid":
            record["ObjectIdentifier"] = long
        elif where == "name":
            record["Properties"]["name"] = long
        else:
            record["PrimaryGroupSID"] = long
        document = {"data": [record], "meta": META}
        what = {"objectid": "an object id", "name": "a name", "edge end": "an edge end"}[where]
    path = write_bytes(tmp_path, json.dumps(document).encode())
    with pytest.raises(IngestError) as caught:
        list(read_file(IngestFile(name=path.name, parent_name=None, open=lambda: path.open("rb"))))
    assert str(caught.value).startswith(f"the file holds {what} of 2049 bytes (it begins 'XXXX")
    assert str(caught.value).endswith("; object ids, names and kinds may be at most 2048 bytes")
