"""Collector releases an operator placed in the data dir (`collectors/<type>/<name>-v<version>.zip`), so a UI
can offer them for download. Nothing is fetched from outside."""

from __future__ import annotations

import functools
import hashlib
import re
from dataclasses import dataclass
from pathlib import Path

from houndgraph.errors import BadRequest, NotFound

COLLECTOR_TYPES = ("sharphound", "azurehound")
INVALID_TYPE = "invalid collector type"
LATEST = "latest"
_VERSION = re.compile(r"v?(\d+(?:\.\d+)+(?:[-+][0-9A-Za-z.-]+)?)$")


@dataclass(frozen=True, slots=True)
class Release:
    version: str
    path: Path
    sha256sum: str

    @property
    def sort_key(self) -> tuple[tuple[int, ...], str]:
        numbers = re.match(r"[\d.]+", self.version.lstrip("v"))
        return tuple(int(part) for part in (numbers.group(0) if numbers else "0").strip(".").split(".")), \
            self.version


def _sha256(path: Path) -> str:
    sidecar = path.with_name(path.name + ".sha256")
    if sidecar.is_file():
        return sidecar.read_text().split()[0].lower()
    stat = path.stat()
    return _file_digest(path, stat.st_mtime_ns, stat.st_size)


@functools.lru_cache(maxsize=64)
def _file_digest(path: Path, mtime_ns: int, size: int) -> str:
    """A release's digest, read once per version of the file (keyed by its modification time and size): every
    listing and download names the digests of all releases, and re-reading each archive per request is waste."""
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for chunk in iter(lambda: handle.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


def releases(collectors_dir: Path, collector_type: str) -> list[Release]:
    """The releases of `collector_type`, newest first; an empty list when none were placed."""
    if collector_type not in COLLECTOR_TYPES:
        raise BadRequest(INVALID_TYPE)
    folder = collectors_dir / collector_type
    found = []
    for path in sorted(folder.glob("*.zip")) if folder.is_dir() else []:
        match = _VERSION.search(path.stem)
        if match is not None and path.is_file():
            found.append(Release(f"v{match.group(1)}", path, _sha256(path)))
    return sorted(found, key=lambda release: release.sort_key, reverse=True)


def release(collectors_dir: Path, collector_type: str, tag: str) -> Release:
    available = releases(collectors_dir, collector_type)
    if tag == LATEST and available:
        return available[0]
    wanted = tag if tag.startswith("v") else f"v{tag}"
    for candidate in available:
        if candidate.version == wanted:
            return candidate
    raise NotFound()
