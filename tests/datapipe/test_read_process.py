"""The reading process: a file's batches read and prepared in a process of its own, as the datapipe writes them."""

from __future__ import annotations

import os
import signal
from collections.abc import Iterator
from pathlib import Path

import orjson
import psycopg
import pytest

from houndgraph.db import Database
from houndgraph.graph.store.merge import PreparedBatch, prepare_batch
from houndgraph.ingest.errors import IngestError
from houndgraph.ingest.reader import read_file
from houndgraph.worker import read_process
from houndgraph.worker.read_process import ReadingCrashed, ReadJob, open_document, reading_process
from tests.datapipe.test_bulk_indexes import analysed

LAB = Path(__file__).resolve().parents[2].parent / "shared" / "data" / "sharphound" / "v6-testlab"
LASTSEEN = "2026-01-02T03:04:05Z"


def job(path: Path, batch_size: int = 50) -> ReadJob:
    return ReadJob(file_name=path.name, stored_path=str(path), member_name=None, batch_size=batch_size,
                   lastseen=LASTSEEN, max_unzipped_bytes=1 << 30, max_zip_ratio=100)


def in_this_process(path: Path, batch_size: int = 50) -> tuple[list[PreparedBatch], list[str]]:
    warnings: list[str] = []
    batches = read_file(open_document(job(path, batch_size)), batch_size=batch_size, warnings=warnings)
    return [prepare_batch(batch, LASTSEEN) for batch in batches], warnings


def written_part(batch: PreparedBatch) -> tuple[object, ...]:
    """What the writer reads of a prepared batch."""
    return (batch.node_rows, list(batch.edge_rows.rows()), batch.record_ids, batch.kinded_ends, batch.bare_ends,
            batch.end_objectids(), batch.source_records, batch.deletions)


@pytest.fixture(autouse=True)
def no_idle_processes() -> Iterator[None]:
    read_process.close_idle()
    yield
    read_process.close_idle()


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # A child that has exited but not been waited for is a zombie: gone for our purposes.
    with open(f"/proc/{pid}/stat") as stat:
        return stat.read().rsplit(")", 1)[1].split()[0] != "Z"


def test_batches_read_in_the_process_are_the_ones_read_here() -> None:
    for name in ("users.json", "groups.json", "computers.json", "deleted.json"):
        expected, expected_warnings = in_this_process(LAB / name)
        warnings: list[str] = []
        with reading_process() as reader:
            got = list(reader.read(job(LAB / name), warnings))
        assert len(got) == len(expected) > 0
        assert [written_part(batch) for batch in got] == [written_part(batch) for batch in expected]
        # Taken in as the datapipe takes it in (the end set made ahead), a batch gives the writer the same.
        assert [written_part(batch.take_in()) for batch in got] == [written_part(batch) for batch in expected]
        assert warnings == expected_warnings


def test_one_process_reads_file_after_file_and_is_closed_when_idle() -> None:
    pids = []
    for name in ("users.json", "groups.json"):
        with reading_process() as reader:
            pids.append(reader.pid)
            list(reader.read(job(LAB / name), []))
    assert pids[0] == pids[1]
    read_process.close_idle(older_than=3600)
    assert alive(pids[0])
    read_process.close_idle()
    assert not alive(pids[0])


def test_a_bad_file_is_an_ingest_error_and_the_process_reads_the_next_one(tmp_path: Path) -> None:
    bad = tmp_path / "broken.json"
    bad.write_text('{"data": [{"ObjectIdentifier": "S-1-5-21-1-2-3-1000"')
    with reading_process() as reader, pytest.raises(IngestError) as error:
        list(reader.read(job(bad), []))
    with pytest.raises(IngestError) as same_error:
        list(read_file(open_document(job(bad)), batch_size=50))
    assert str(error.value) == str(same_error.value)
    missing = job(tmp_path / "gone.json")
    with reading_process() as reader, pytest.raises(IngestError, match="gone.json: the stored file .* is missing"):
        list(reader.read(missing, []))
    with reading_process() as again:
        assert again.pid == reader.pid
        assert len(list(again.read(job(LAB / "users.json"), []))) > 0


def test_a_reading_left_half_way_ends_its_process_and_the_next_file_gets_a_new_one() -> None:
    with reading_process() as reader:
        batches = reader.read(job(LAB / "users.json", batch_size=5), [])
        next(batches)
        first = reader.pid
    batches.close()
    assert not alive(first)
    with reading_process() as reader:
        assert reader.pid != first
        assert len(list(reader.read(job(LAB / "groups.json"), []))) > 0


def many_users(directory: Path, copies: int) -> Path:
    """The lab's users `copies` times over (each copy's object ids made distinct): a file whose batches cannot all
    wait in the socket's buffer, so a reading process killed after the first batch has not sent them all."""
    document = orjson.loads((LAB / "users.json").read_bytes())
    users = document["data"]
    document["data"] = [{**user, "ObjectIdentifier": f"{user['ObjectIdentifier']}-{copy}"}
                        for copy in range(copies) for user in users]
    document["meta"]["count"] = len(document["data"])
    path = directory / "users.json"
    path.write_bytes(orjson.dumps(document))
    return path


def test_a_reading_process_that_dies_is_reported_not_waited_for(tmp_path: Path) -> None:
    users = many_users(tmp_path, 300)
    with reading_process() as reader, pytest.raises(ReadingCrashed, match="ended while reading"):
        batches = reader.read(job(users, batch_size=5), [])
        next(batches)
        os.kill(reader.pid, signal.SIGKILL)
        list(batches)
    with reading_process() as fresh:
        assert fresh.pid != reader.pid
        assert len(list(fresh.read(job(LAB / "groups.json"), []))) > 0


def test_the_reading_process_imports_this_houndgraph_whatever_its_directory_holds(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    decoy = tmp_path / "houndgraph"
    decoy.mkdir()
    (decoy / "__init__.py").write_text('raise ImportError("the decoy package in the current directory")\n')
    monkeypatch.chdir(tmp_path)
    with reading_process() as reader:
        assert len(list(reader.read(job(LAB / "users.json"), []))) > 0


def test_the_next_file_read_ahead_is_handed_to_its_job_by_the_same_process() -> None:
    expected, expected_warnings = in_this_process(LAB / "groups.json")
    with reading_process() as reader:
        list(reader.read(job(LAB / "users.json"), [], ahead=job(LAB / "groups.json")))
        first = reader.pid
    warnings: list[str] = []
    with reading_process(job(LAB / "groups.json")) as reader:
        assert reader.pid == first
        got = list(reader.read(job(LAB / "groups.json"), warnings))
    assert [written_part(batch) for batch in got] == [written_part(batch) for batch in expected]
    assert warnings == expected_warnings
    with reading_process(job(LAB / "computers.json")) as reader:
        assert reader.pid == first, "with nothing read ahead, the process reads any next file"
        assert len(list(reader.read(job(LAB / "computers.json"), []))) > 0


def test_a_file_read_ahead_for_another_job_is_discarded_with_its_process() -> None:
    with reading_process() as reader:
        list(reader.read(job(LAB / "users.json"), [], ahead=job(LAB / "groups.json")))
        first = reader.pid
    with reading_process(job(LAB / "computers.json")) as reader:
        assert reader.pid != first
        assert len(list(reader.read(job(LAB / "computers.json"), []))) > 0
    assert not alive(first)
    with reading_process() as reader:
        list(reader.read(job(LAB / "users.json"), [], ahead=job(LAB / "groups.json")))
        second = reader.pid
    read_process.discard_read_ahead()
    assert not alive(second)


def test_a_bad_file_read_ahead_fails_alone(tmp_path: Path) -> None:
    bad = tmp_path / "broken.json"
    bad.write_text('{"data": [{"ObjectIdentifier": "S-1-5-21-1-2-3-1000"')
    with reading_process() as reader:
        assert len(list(reader.read(job(LAB / "users.json"), [], ahead=job(bad)))) > 0
    with reading_process(job(bad)) as reader, pytest.raises(IngestError) as error:
        list(reader.read(job(bad), []))
    with pytest.raises(IngestError) as same_error:
        list(read_file(open_document(job(bad)), batch_size=50))
    assert str(error.value) == str(same_error.value)
    with reading_process() as again:
        assert again.pid == reader.pid
        assert len(list(again.read(job(LAB / "groups.json"), []))) > 0


def reading_processes() -> list[int]:
    """This process's live children that read files for the datapipe."""
    children = [int(pid) for pid in Path(f"/proc/{os.getpid()}/task/{os.getpid()}/children").read_text().split()]
    return [pid for pid in children if alive(pid)
            and b"houndgraph.worker.read_process" in Path(f"/proc/{pid}/cmdline").read_bytes()]


def test_the_reading_process_is_not_kept_through_an_analysis(empty_graph: Database, tmp_path: Path) -> None:
    during: list[list[int]] = []

    def analysis(conn: psycopg.Connection) -> None:
        during.append(reading_processes())

    read_process.close_idle()
    with reading_process() as reader:  # one left idle by an earlier file, as the ingest step leaves it
        left = reader.pid
    analysed(empty_graph, tmp_path, analysis)
    assert during == [[]]
    assert not alive(left)
