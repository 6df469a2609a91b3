"""Stored uploads to JSON documents: one JSON file, or the JSON members of a zip archive.

Zip archives come from strangers, so every limit is checked twice: against what the central
directory declares before anything is expanded, and against the bytes actually produced while a
member is read (a forged directory can under-declare sizes).
"""

from __future__ import annotations

import io
import zipfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import IO, BinaryIO

from houndgraph.ingest.errors import IngestError
from houndgraph.ingest.nesting import DepthLimited

ZIP_MAGIC = b"PK\x03\x04"
EMPTY_ZIP_MAGIC = b"PK\x05\x06"
UTF8_BOM = b"\xef\xbb\xbf"
# More members than any collection run produces (one file per object type) by two orders of magnitude.
MAX_ZIP_MEMBERS = 1000
# Below this size a high compression ratio is normal (a small, repetitive JSON file) and harmless.
RATIO_CHECK_MIN_BYTES = 1 << 20
INVALID_ZIP = "failed to find zip file header"
EMPTY_ARCHIVE = "the zip archive holds no .json file"


@dataclass(frozen=True, slots=True)
class IngestFile:
    """One JSON document to read. `open` may be called several times (readers make more than one pass)."""

    name: str
    parent_name: str | None
    open: Callable[[], BinaryIO]


class EmptyArchive(IngestError):
    """A zip archive without a JSON member; `skipped` names the members left out."""

    def __init__(self, skipped: list[str]) -> None:
        super().__init__(EMPTY_ARCHIVE)
        self.skipped = skipped


@dataclass(frozen=True, slots=True)
class PlannedTask:
    """One ingest task of a stored file: the whole file (`member_name` None) or one zip member."""

    file_name: str
    member_name: str | None
    warnings: list[str]


def plan_tasks(path: Path, *, max_unzipped_bytes: int, max_ratio: int,
               expect_zip: bool | None = None) -> list[PlannedTask]:
    """The ingest tasks of a stored file, one per JSON document (`expect_zip` as for `expand_upload`).
    Warnings about an archive as a whole (skipped members) travel with its first task. Raises
    IngestError for a file that breaks a limit, EmptyArchive for one without a JSON document."""
    skipped: list[str] = []
    documents = list(expand_upload(path, max_unzipped_bytes=max_unzipped_bytes, max_ratio=max_ratio,
                                   expect_zip=expect_zip, warnings=skipped))
    if not documents:
        raise EmptyArchive(skipped)
    return [PlannedTask(file_name=document.name,
                        member_name=document.name if document.parent_name is not None else None,
                        warnings=skipped if index == 0 else [])
            for index, document in enumerate(documents)]


def expand_upload(
    path: Path,
    *,
    max_unzipped_bytes: int,
    max_ratio: int,
    expect_zip: bool | None = None,
    warnings: list[str] | None = None,
) -> Iterator[IngestFile]:
    """The JSON documents of a stored upload.

    `expect_zip` is what the upload's content type said: True refuses a file that is not a zip, False
    takes the file as JSON whatever it holds, None decides from the first bytes. Members that are not
    `.json` files are skipped (with a warning); an archive that breaks a limit is refused whole.
    """
    with path.open("rb") as stream:
        head = stream.read(4)
    is_zip = head in (ZIP_MAGIC, EMPTY_ZIP_MAGIC)
    if expect_zip is None:
        expect_zip = is_zip
    if not expect_zip:
        yield IngestFile(name=path.name, parent_name=None, open=lambda: path.open("rb"))
        return
    if not is_zip:
        raise IngestError(INVALID_ZIP)
    members = _checked_members(path, max_unzipped_bytes=max_unzipped_bytes, max_ratio=max_ratio)
    for info in members:
        if not info.filename.lower().endswith(".json"):
            if warnings is not None:
                warnings.append(f"{info.filename}: skipped, only .json files in an archive are ingested")
            continue
        yield IngestFile(name=info.filename, parent_name=path.name, open=_member_opener(path, info))


def _checked_members(path: Path, *, max_unzipped_bytes: int, max_ratio: int) -> list[zipfile.ZipInfo]:
    try:
        archive = zipfile.ZipFile(path)
    except (zipfile.BadZipFile, OSError) as exc:
        raise IngestError(f"{INVALID_ZIP}: not a valid zip archive ({exc})") from exc
    with archive:
        infos = archive.infolist()
        if len(infos) > MAX_ZIP_MEMBERS:
            raise IngestError(f"zip archive has {len(infos)} entries, more than the {MAX_ZIP_MEMBERS} accepted")
        members = [info for info in infos if not info.is_dir() and not _is_platform_junk(info.filename)]
        total = 0
        for info in members:
            _check_member_name(info.filename)
            if info.flag_bits & 0x1:
                raise IngestError(f"zip member {info.filename!r} is encrypted")
            total += info.file_size
            if total > max_unzipped_bytes:
                raise IngestError(f"zip archive expands to more than {max_unzipped_bytes} bytes, the largest accepted")
            if info.file_size >= RATIO_CHECK_MIN_BYTES and info.file_size > max_ratio * max(info.compress_size, 1):
                raise IngestError(
                    f"zip member {info.filename!r} has a compression ratio above {max_ratio}: refused as a zip bomb"
                )
            if info.filename.lower().endswith(".zip") or _starts_like_zip(archive, info):
                raise IngestError(f"zip member {info.filename!r} is itself a zip archive: nested archives are refused")
    return members


def _is_platform_junk(name: str) -> bool:
    # macOS adds resource forks under __MACOSX/ to archives made in Finder.
    return name.startswith("__MACOSX/") or PurePosixPath(name).name.startswith("._")


def _check_member_name(name: str) -> None:
    normalized = name.replace("\\", "/")
    parts = PurePosixPath(normalized).parts
    if not parts or normalized.startswith("/") or ".." in parts or (len(normalized) > 1 and normalized[1] == ":"):
        raise IngestError(f"zip member name {name!r} points outside the archive")


def _starts_like_zip(archive: zipfile.ZipFile, info: zipfile.ZipInfo) -> bool:
    try:
        with archive.open(info) as member:
            return member.read(4) in (ZIP_MAGIC, EMPTY_ZIP_MAGIC)
    # zipfile raises NotImplementedError for a compression method it lacks (issue #3: a bad zip fails alone).
    except (zipfile.BadZipFile, NotImplementedError, RuntimeError, OSError, EOFError) as exc:  # see #3
        raise IngestError(f"zip member {info.filename!r} cannot be read: {exc}") from exc


def _member_opener(path: Path, info: zipfile.ZipInfo) -> Callable[[], BinaryIO]:
    def open_member() -> BinaryIO:
        archive = zipfile.ZipFile(path)
        try:
            member = archive.open(info)
        except Exception:
            archive.close()
            raise
        limited = _LimitedMember(archive, member, info.filename, info.file_size)
        return io.BufferedReader(limited, buffer_size=1 << 16)

    return open_member


class _LimitedMember(io.RawIOBase):
    """A zip member that refuses to produce more bytes than its directory entry declared, and turns
    archive corruption (bad CRC, truncated data) into IngestError."""

    def __init__(self, archive: zipfile.ZipFile, member: IO[bytes], name: str, declared: int) -> None:
        self._archive = archive
        self._member = member
        self._name = name
        self._left = declared

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: bytearray | memoryview) -> int:  # type: ignore[override]
        view = memoryview(buffer)
        try:
            data = self._member.read(len(view))
        except (zipfile.BadZipFile, EOFError, OSError, RuntimeError) as exc:
            raise IngestError(f"zip member {self._name!r} is corrupt: {exc}") from exc
        self._left -= len(data)
        if self._left < 0:
            raise IngestError(f"zip member {self._name!r} expands beyond its declared size: refused as a zip bomb")
        view[: len(data)] = data
        return len(data)

    def close(self) -> None:
        if not self.closed:
            self._member.close()
            self._archive.close()
        super().close()


class _Prefixed(io.RawIOBase):
    """A stream with some already-read bytes put back in front."""

    def __init__(self, prefix: bytes, rest: BinaryIO) -> None:
        self._prefix = prefix
        self._rest = rest

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: bytearray | memoryview) -> int:  # type: ignore[override]
        view = memoryview(buffer)
        if self._prefix:
            count = min(len(view), len(self._prefix))
            view[:count] = self._prefix[:count]
            self._prefix = self._prefix[count:]
            return count
        data = self._rest.read(len(view))
        view[: len(data)] = data
        return len(data)

    def close(self) -> None:
        if not self.closed:
            self._rest.close()
        super().close()


def open_json(file: IngestFile, *, depth_checked: bool = True) -> BinaryIO:
    """Open a document for parsing, without its UTF-8 byte order mark (PowerShell-made files have one).

    Reading raises IngestError before handing out bytes that nest deeper than MAX_JSON_DEPTH, which
    would cost a parser memory growing with the square of the depth; `depth_checked=False` leaves that
    to a reader that counts the nesting itself (`slices.DataSlicer`)."""
    stream = file.open()
    head = stream.read(len(UTF8_BOM))
    raw: BinaryIO = stream if head == UTF8_BOM else _Prefixed(head, stream)  # type: ignore[assignment]
    if not depth_checked:
        return raw
    return io.BufferedReader(DepthLimited(raw), buffer_size=1 << 16)
