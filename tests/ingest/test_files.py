"""Stored uploads to documents: plain JSON, zip archives, and the archives that must be refused."""

from __future__ import annotations

import json
import struct
import zipfile
from pathlib import Path

import pytest

from houndgraph.ingest import IngestError, expand_upload, read_file
from tests.ingest.helpers import classic, read

LIMIT = 50 * 1024 * 1024
USERS = json.dumps(classic("users", [{"ObjectIdentifier": "S-1-5-21-1-500", "Properties": {"name": "A@LAB"}}]))


def make_zip(path: Path, members: dict[str, bytes | str], method: int = zipfile.ZIP_DEFLATED) -> Path:
    with zipfile.ZipFile(path, "w", compression=method) as archive:
        for name, content in members.items():
            archive.writestr(name, content)
    return path


def expand(path: Path, **options: object) -> list:
    settings = {"max_unzipped_bytes": LIMIT, "max_ratio": 100, **options}
    return list(expand_upload(path, **settings))  # type: ignore[arg-type]


def test_a_json_upload_is_one_document(tmp_path: Path) -> None:
    path = tmp_path / "users.json"
    path.write_text(USERS)
    [file] = expand(path)
    assert (file.name, file.parent_name) == ("users.json", None)
    assert [node.objectid for node in read(file).nodes] == ["S-1-5-21-1-500"]


def test_zip_members_are_documents_named_after_their_archive(tmp_path: Path) -> None:
    path = make_zip(
        tmp_path / "upload.zip",
        {
            "a/users.json": USERS,
            "groups.JSON": classic_json("groups"),
            "readme.txt": "hi",
            "__MACOSX/._users.json": "junk",
            "dir/": "",
        },
    )
    warnings: list[str] = []
    files = expand(path, warnings=warnings)
    assert [(file.name, file.parent_name) for file in files] == [
        ("a/users.json", "upload.zip"),
        ("groups.JSON", "upload.zip"),
    ]
    assert warnings == ["readme.txt: skipped, only .json files in an archive are ingested"]
    # Each document can be opened again for every pass the reader makes.
    assert [node.objectid for node in read(files[0]).nodes] == ["S-1-5-21-1-500"]
    assert read(files[1]).nodes == []


def classic_json(data_type: str) -> str:
    return json.dumps(classic(data_type, []))


def test_a_bad_member_fails_alone(tmp_path: Path) -> None:
    path = make_zip(tmp_path / "upload.zip", {"good.json": USERS, "bad.json": "{not json"})
    good, bad = expand(path)
    assert len(read(good).nodes) == 1
    with pytest.raises(IngestError, match="^not JSON: "):
        next(read_file(bad))


def test_not_a_zip(tmp_path: Path) -> None:
    json_path = tmp_path / "users.json"
    json_path.write_text(USERS)
    with pytest.raises(IngestError, match="^failed to find zip file header$"):
        expand(json_path, expect_zip=True)
    broken = tmp_path / "broken.zip"
    broken.write_bytes(b"PK\x03\x04" + b"\x00" * 100)
    with pytest.raises(IngestError, match="^failed to find zip file header: not a valid zip archive"):
        expand(broken)
    # Declared as JSON, a zip is read as JSON, and is not JSON.
    zipped = make_zip(tmp_path / "upload.zip", {"users.json": USERS})
    [file] = expand(zipped, expect_zip=False)
    with pytest.raises(IngestError, match="^not JSON: "):
        next(read_file(file))


def test_high_compression_ratio_is_refused_as_a_bomb(tmp_path: Path) -> None:
    path = make_zip(tmp_path / "bomb.zip", {"users.json": b" " * (8 * 1024 * 1024)})
    with pytest.raises(IngestError, match="'users.json' has a compression ratio above 100: refused as a zip bomb"):
        expand(path)
    # The same archive passes a limit that allows it, and a small repetitive file is never suspect.
    assert len(expand(path, max_ratio=100_000)) == 1
    assert len(expand(make_zip(tmp_path / "small.zip", {"users.json": b" " * 100_000}))) == 1


def test_declared_total_size_over_the_limit_is_refused(tmp_path: Path) -> None:
    path = make_zip(tmp_path / "big.zip", {"a.json": USERS, "b.json": USERS}, method=zipfile.ZIP_STORED)
    with pytest.raises(IngestError, match=f"expands to more than {len(USERS) + 10} bytes"):
        expand(path, max_unzipped_bytes=len(USERS) + 10)


def test_member_larger_than_declared_is_refused(tmp_path: Path) -> None:
    path = make_zip(tmp_path / "forged.zip", {"users.json": USERS}, method=zipfile.ZIP_STORED)
    content = bytearray(path.read_bytes())
    central = content.index(b"PK\x01\x02")
    struct.pack_into("<I", content, central + 24, 10)  # the directory now claims 10 bytes
    path.write_bytes(bytes(content))
    # The CRC no longer matches what the directory allows out: refused when the member is first read.
    with pytest.raises(IngestError, match="^zip member 'users.json' (cannot be read|is corrupt): Bad CRC-32"):
        for file in expand(path):
            next(read_file(file))


@pytest.mark.parametrize("name", ["inner.zip", "inner.json"])
def test_nested_archives_are_refused(tmp_path: Path, name: str) -> None:
    inner = make_zip(tmp_path / "inner.zip", {"users.json": USERS}).read_bytes()
    path = make_zip(tmp_path / "outer.zip", {"users.json": USERS, name: inner})
    with pytest.raises(IngestError, match=f"zip member '{name}' is itself a zip archive"):
        expand(path)


@pytest.mark.parametrize("name", ["../escape.json", "/etc/abs.json", "a/../../up.json", "C:/win.json", "..\\win.json"])
def test_member_paths_outside_the_archive_are_refused(tmp_path: Path, name: str) -> None:
    path = tmp_path / "tricky.zip"
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr(zipfile.ZipInfo(name), USERS)
    with pytest.raises(IngestError, match="points outside the archive"):
        expand(path)


def test_absurd_member_counts_are_refused(tmp_path: Path) -> None:
    path = make_zip(tmp_path / "many.zip", {f"f{i}.json": "{}" for i in range(1001)}, method=zipfile.ZIP_STORED)
    with pytest.raises(IngestError, match="zip archive has 1001 entries, more than the 1000 accepted"):
        expand(path)
