"""A classic file that ends with its meta tag is read in one pass (`ingest.slices`): it must read exactly as
the two-pass reading of the same records reads them, and refuse a bad file with the full scan's message."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import httpx
import pytest

from houndgraph.db import Database
from houndgraph.ingest import IngestError, IngestFile, read_file, scan_file, slices
from houndgraph.ingest.reading_plan import plan_reading
from houndgraph.ingest.scan import Meta
from tests.file_upload.helpers import completed_tasks, end_job, graph_size, start_job, upload, wait_for_job, zipped
from tests.ingest.helpers import Result, read

META = {"methods": 0, "type": "users", "count": 0, "version": 6}
SID = "S-1-5-21-1-2-3"
# Strings that look like structure, escapes at every position, a backslash ending a string.
TRICKY = ['a"b', "c\\", "[{", "}]", ",", "\\\\\"", "\u00e9\u4e2d", "\\u005b", '"meta": {"type": "groups"}}', "\\"]


def _user(rng: random.Random, index: int) -> dict[str, Any]:
    name = "".join(rng.choice(TRICKY) for _ in range(rng.randrange(4)))
    properties: dict[str, Any] = {"name": f"U{index}{name}", "description": rng.choice(TRICKY),
                                  "pwdlastset": rng.choice([1700000000, 1.5, -1, 2**63 - 1, 1e300])}
    aces = [{"PrincipalSID": f"{SID}-{512 + n}", "PrincipalType": "Group", "RightName": "GenericAll",
             "IsInherited": n % 2 == 0} for n in range(rng.randrange(3))]
    return {"ObjectIdentifier": f"{SID}-{1000 + index}", "Properties": properties, "Aces": aces,
            "PrimaryGroupSID": f"{SID}-513", "IsDeleted": False}


def _records(seed: int, count: int) -> list[Any]:
    rng = random.Random(seed)
    records: list[Any] = [_user(rng, index) for index in range(count)]
    records[count // 2] = "not an object"
    return records


def _write(tmp_path: Path, name: str, text: str) -> IngestFile:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return IngestFile(name=name, parent_name=None, open=lambda: path.open("rb"))


def _meta_last(records: list[Any]) -> str:
    return json.dumps({"data": records, "meta": META}, indent=1)


def _meta_first(records: list[Any]) -> str:
    return json.dumps({"meta": META, "data": records})


def _same(one_pass: Result, two_pass: Result) -> None:
    assert one_pass.nodes == two_pass.nodes
    assert one_pass.edges == two_pass.edges
    assert one_pass.warnings == two_pass.warnings


@pytest.mark.parametrize("chunk", [1, 2, 3, 7, 64, 1 << 20])
def test_one_pass_reads_what_two_passes_read_wherever_the_chunks_end(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                                      chunk: int) -> None:
    monkeypatch.setattr(slices, "CHUNK_BYTES", chunk)
    records = _records(chunk, 60)
    one_pass = _write(tmp_path, "last.json", _meta_last(records))
    two_pass = _write(tmp_path, "first.json", _meta_first(records))
    assert isinstance(plan_reading(one_pass), Meta) and not isinstance(plan_reading(two_pass), Meta)
    result = read(one_pass, batch_size=50)
    assert len(result.nodes) == 59 and any("data[30] is not an object" in line for line in result.warnings)
    _same(result, read(two_pass, batch_size=50))


@pytest.mark.parametrize("number", [2**63, 10**30, -(2**63) - 1])
def test_an_integer_beyond_64_bits_is_refused_as_two_passes_refuse_it(tmp_path: Path, number: int) -> None:
    record = {"ObjectIdentifier": f"{SID}-1000", "Properties": {"big": number}}
    message = "not JSON: parse error: integer overflow"
    assert _error(_write(tmp_path, "last.json", _meta_last([record]))) == message
    assert _error(_write(tmp_path, "first.json", _meta_first([record]))).startswith(message)


def test_every_data_array_and_an_escaped_data_key_are_read(tmp_path: Path) -> None:
    first, second = _records(1, 5), _records(2, 5)
    meta, first_text, second_text = json.dumps(META), json.dumps(first), json.dumps(second)
    text = f'{{"data": {first_text}, "d\\u0061ta": {second_text}, "meta": {meta}}}'
    two_pass = f'{{"meta": {meta}, "data": {first_text}, "data": {second_text}}}'
    _same(read(_write(tmp_path, "two.json", text)), read(_write(tmp_path, "ref.json", two_pass)))


def _error(file: IngestFile) -> str:
    with pytest.raises(IngestError) as caught:
        for _ in read_file(file, batch_size=10):
            pass
    return str(caught.value)


def _late(text: str, old: str, new: str) -> str:
    """`text` with the last `old` replaced: a fault far from both ends of the file."""
    at = text.rindex(old)
    return text[:at] + new + text[at + len(old):]


@pytest.mark.parametrize(
    ("damage", "message"),
    [
        (lambda text: _late(text, '"IsDeleted": false', '"IsDeleted": fals'), None),
        (lambda text: _late(text, "},\n  {", "},,\n  {"), None),
        (lambda text: text[: len(text) // 3] + text[len(text) // 2:], None),  # a piece cut out of the middle
        (lambda text: text.replace("\n ],", ",\n ],", 1), None),  # a comma after the last record
        (lambda text: text.replace('"meta":', '"graph": {"nodes": []}, "meta":', 1), None),  # a generic key
        (lambda text: _late(text, '"not an object"', "[" * 100 + "]" * 100), "the JSON nests deeper than 64 levels"),
    ],
)
def test_a_fault_met_late_in_the_pass_gets_the_full_scan_message(tmp_path: Path, damage: Any,
                                                                  message: str | None) -> None:
    file = _write(tmp_path, "bad.json", damage(_meta_last(_records(5, 400))))
    assert isinstance(plan_reading(file), Meta)
    assert _error(file) == (message or "; ".join(scan_file(file).errors))


def test_a_late_fault_in_an_uploaded_zip_leaves_nothing_in_the_graph(admin: httpx.Client,
                                                                     empty_graph: Database) -> None:
    # More records than the datapipe writes in one batch, so batches are written before the fault is met.
    bad = _late(_meta_last(_records(7, 9000)), '"IsDeleted": false', '"IsDeleted": fals').encode()
    job_id = start_job(admin)["id"]
    upload(admin, job_id, zipped({"users.json": bad}), "application/zip")
    end_job(admin, job_id)
    finished = wait_for_job(admin, job_id)
    [task] = completed_tasks(admin, job_id)
    assert finished["failed_files"] == 1 and task["errors"][0].startswith("not JSON: ")
    with empty_graph.connect_raw() as conn:
        assert graph_size(conn) == (0, 0)
