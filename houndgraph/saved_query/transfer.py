"""The file formats of import and export: one query per JSON file `{"name", "query", "description"}`,
many in a zip of such files.

Zips are read from memory, never extracted to disk, so entry names cannot reach the file system; every
entry is read through a byte cap (headers can lie about sizes), and the entry count is capped too.
"""

from __future__ import annotations

import io
import json
import posixpath
import re
import zipfile
from collections.abc import Iterable
from dataclasses import dataclass

from houndgraph.errors import BadRequest
from houndgraph.kit.json_limits import check_json_text

JSON_TYPES = frozenset({"application/json"})
# The reference accepts the zip media types its file upload accepts.
ZIP_TYPES = frozenset({"application/zip", "application/x-zip-compressed", "application/zip-compressed",
                       "multipart/x-zip"})
MAX_ZIP_ENTRIES = 10_000
MAX_ENTRY_BYTES = 1024 * 1024
MAX_TOTAL_BYTES = 64 * 1024 * 1024
EMPTY_FIELDS = "the name and/or query field is empty"


@dataclass(frozen=True, slots=True)
class TransferableQuery:
    name: str
    query: str
    description: str = ""

    def to_json(self) -> bytes:
        return json.dumps({"query": self.query, "name": self.name, "description": self.description},
                          ensure_ascii=False).encode()


def media_type(content_type: str | None) -> str:
    return (content_type or "").split(";", 1)[0].strip().lower()


def parse_query_file(data: bytes, source: str = "") -> TransferableQuery:
    where = f" {source}" if source else ""
    check_json_text(data)
    try:
        document = json.loads(data)
    except (ValueError, UnicodeDecodeError) as error:
        raise BadRequest(f"failed to unmarshal json file{where}: {error}") from None
    if not isinstance(document, dict):
        raise BadRequest(f"failed to unmarshal json file{where}: expected an object with name, query and description")
    fields = {key: document.get(key, "") for key in ("name", "query", "description")}
    for key, value in fields.items():
        if not isinstance(value, str):
            raise BadRequest(f"failed to unmarshal json file{where}: {key} must be a string")
    if not fields["name"] or not fields["query"]:
        raise BadRequest(f"{EMPTY_FIELDS}{':' + where if where else ''}")
    return TransferableQuery(fields["name"], fields["query"], fields["description"])


def _skipped(name: str) -> bool:
    """Directories and hidden files, such as those macOS adds to the zips it makes. Only the last part of the
    name counts: `../x.json` is read like `x.json` (names are never used as paths)."""
    base = posixpath.basename(name.rstrip("/"))
    return name.endswith("/") or "__MACOSX" in name or base.startswith(".")


def _read_capped(archive: zipfile.ZipFile, info: zipfile.ZipInfo) -> bytes:
    with archive.open(info) as handle:
        data = handle.read(MAX_ENTRY_BYTES + 1)
    if len(data) > MAX_ENTRY_BYTES:
        raise BadRequest(f"error during zip validation: {info.filename} is larger than {MAX_ENTRY_BYTES} bytes")
    return data


def parse_query_zip(data: bytes) -> list[TransferableQuery]:
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
    except (zipfile.BadZipFile, ValueError) as error:
        raise BadRequest(f"not a valid zip file: {error}") from None
    with archive:
        entries = [info for info in archive.infolist() if not _skipped(info.filename)]
        if len(entries) > MAX_ZIP_ENTRIES:
            raise BadRequest(f"error during zip validation: more than {MAX_ZIP_ENTRIES} files")
        queries: list[TransferableQuery] = []
        total = 0
        for info in entries:
            try:
                content = _read_capped(archive, info)
            except (zipfile.BadZipFile, RuntimeError, NotImplementedError, OSError, EOFError) as error:  # see #7
                # Bad CRC, encrypted or unsupported compression, truncated data.
                raise BadRequest(f"error during zip validation: {info.filename}: {error}") from None
            total += len(content)
            if total > MAX_TOTAL_BYTES:
                raise BadRequest(f"error during zip validation: the files expand to more than {MAX_TOTAL_BYTES} bytes")
            queries.append(parse_query_file(content, info.filename))
    return queries


_UNSAFE_FILENAME = re.compile(r'[\x00-\x1f\x7f"\\/:*?<>|]+')


def export_filename(name: str) -> str:
    """`<name>.json`, safe as a file name on any system and inside a Content-Disposition header."""
    cleaned = _UNSAFE_FILENAME.sub("_", name).strip(" .") or "query"
    return f"{cleaned[:200]}.json"


def write_zip(queries: Iterable[TransferableQuery]) -> bytes:
    buffer = io.BytesIO()
    used: set[str] = set()
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for query in queries:
            filename = export_filename(query.name)
            stem, counter = filename[: -len(".json")], 2
            # Queries of different users may share a name; zip entry names must not collide.
            while filename.lower() in used:
                filename = f"{stem} ({counter}).json"
                counter += 1
            used.add(filename.lower())
            archive.writestr(filename, query.to_json())
    return buffer.getvalue()
