"""Uploaded bodies to durable files: written, fsynced and renamed into place before the upload is
acknowledged, so a crash after the 202 never loses an accepted file."""

from __future__ import annotations

import os
import uuid
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

from starlette.concurrency import run_in_threadpool

# Chunks from the server are small (64 KiB); gather them so the worker thread is visited per MiB.
WRITE_BUFFER = 1 << 20
PARTIAL_SUFFIX = ".part"


@dataclass(frozen=True, slots=True)
class StoredUpload:
    path: Path
    size: int


def _open_new(path: Path) -> BinaryIO:
    """Readable by the service's user alone while it waits for the datapipe: collected data names every account,
    session and ACL of a domain."""
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    return os.fdopen(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600), "xb")


def _sync_and_publish(handle: BinaryIO, partial: Path, final: Path) -> None:
    handle.flush()
    os.fsync(handle.fileno())
    handle.close()
    partial.rename(final)
    # The rename itself must reach the disk, or a crash could bring back the partial name.
    directory = os.open(final.parent, os.O_RDONLY)
    try:
        os.fsync(directory)
    finally:
        os.close(directory)


async def store_body(chunks: AsyncIterator[bytes], directory: Path, suffix: str) -> StoredUpload:
    """Stream `chunks` to a new file in `directory`. On any failure (a client gone, the size cap) the
    partial file is removed and the error propagates."""
    name = uuid.uuid4().hex
    partial = directory / f"{name}{suffix}{PARTIAL_SUFFIX}"
    final = directory / f"{name}{suffix}"
    handle = await run_in_threadpool(_open_new, partial)
    size = 0
    buffer = bytearray()
    try:
        async for chunk in chunks:
            buffer += chunk
            size += len(chunk)
            if len(buffer) >= WRITE_BUFFER:
                await run_in_threadpool(handle.write, bytes(buffer))
                buffer.clear()
        if buffer:
            await run_in_threadpool(handle.write, bytes(buffer))
        await run_in_threadpool(_sync_and_publish, handle, partial, final)
    except BaseException:
        handle.close()
        partial.unlink(missing_ok=True)
        raise
    return StoredUpload(final, size)


def discard(path: Path) -> None:
    path.unlink(missing_ok=True)


def job_directory(uploads_dir: Path, job_id: int) -> Path:
    # Absolute: tasks keep the path, and `houndgraph ingest` may run from another directory.
    return uploads_dir.resolve() / str(job_id)
