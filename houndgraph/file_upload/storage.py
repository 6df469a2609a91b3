"""Uploaded bodies: spooled to a private temporary file to be checked, then kept in PostgreSQL in chunks
(`upload_chunks`), in the upload request's transaction with the tasks that read them. The 202 is sent after that
commit, so an accepted file is never lost, and any host's datapipe can read it: the hosts share no file system."""

from __future__ import annotations

import os
import uuid
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

from starlette.concurrency import run_in_threadpool

# Chunks from the server are small (64 KiB); gather them so the worker thread is visited per MiB.
WRITE_BUFFER = 1 << 20
# One row of `upload_chunks`: large enough that a 1 GB upload is a few hundred rows, small enough that a reader
# (the request copying it in, the datapipe copying it out) holds one at a time without noticing.
CHUNK_BYTES = 4 << 20
INCOMING_FOLDER = "incoming"


@dataclass(frozen=True, slots=True)
class SpooledUpload:
    upload_id: uuid.UUID
    path: Path
    size: int


def _open_new(path: Path) -> BinaryIO:
    """Readable by the service's user alone while it is checked: collected data names every account, session and
    ACL of a domain."""
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    return os.fdopen(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600), "xb")


async def spool_body(chunks: AsyncIterator[bytes], uploads_dir: Path, suffix: str) -> SpooledUpload:
    """Stream `chunks` to a new private file under `uploads_dir`. On any failure (a client gone, the size cap) the
    file is removed and the error propagates; on success the caller removes it (`discard`) once it is stored."""
    upload_id = uuid.uuid4()
    path = uploads_dir.resolve() / INCOMING_FOLDER / f"{upload_id.hex}{suffix}"
    handle = await run_in_threadpool(_open_new, path)
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
        handle.close()
    except BaseException:
        handle.close()
        path.unlink(missing_ok=True)
        raise
    return SpooledUpload(upload_id, path, size)


def read_chunks(path: Path) -> Iterator[bytes]:
    """The file in `CHUNK_BYTES` pieces, one held at a time."""
    with path.open("rb") as handle:
        while piece := handle.read(CHUNK_BYTES):
            yield piece


def discard(path: Path) -> None:
    path.unlink(missing_ok=True)


def stored_name(job_id: int, upload: SpooledUpload, suffix: str) -> str:
    """Where a host's datapipe keeps its copy of the upload, relative to its uploads folder."""
    return f"{job_id}/{upload.upload_id.hex}{suffix}"
