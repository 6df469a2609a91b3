"""What reading a document needs to know before its one pass: the meta tag SharpHound writes last, taken from
the document's last bytes, or else the full first pass (`scan.scan_file`)."""

from __future__ import annotations

import io

import orjson

from houndgraph.ingest.files import IngestFile, open_json
from houndgraph.ingest.scan import Meta, Scanner, Summary, scan_file, walk

# The meta tag SharpHound writes last is looked for in this many bytes at the end of the document.
TAIL_BYTES = 1 << 16
_WHITESPACE = b" \t\r\n"
_META_KEY = b'"meta"'


def plan_reading(file: IngestFile) -> Summary | Meta:
    """What reading a document needs to know first: the meta tag of a classic file that ends with it
    (SharpHound's layout), which `reader` then reads and checks in one pass; for any other document,
    the full first pass (`scan_file`)."""
    scanner = Scanner()
    with open_json(file) as stream:
        failed = walk(scanner, stream, stop_at_data=True)
    if failed is not None or not scanner.stopped_at_data:
        return failed or scanner.summary()
    if scanner.data_is_array and (meta := tail_meta(file)) is not None:
        return meta
    return scan_file(file)


def tail_meta(file: IngestFile) -> Meta | None:
    """The meta tag, if the document ends with it: `"meta": {...}` and the closing brace.

    In a JSON text whose top level is an object, an unescaped `"meta"` followed by a colon, an object and
    the final brace can only be the top level's last key, so it is the tag the full scan would take. Read
    from the last TAIL_BYTES only; None when the end looks different (the caller scans in full)."""
    tail = _tail(file, TAIL_BYTES).rstrip(_WHITESPACE)
    if not tail.endswith(b"}"):
        return None
    body = tail[:-1]
    at = len(body)
    while (at := body.rfind(_META_KEY, 0, at)) > 0:
        if body[at - 1] == ord("\\"):
            continue
        rest = body[at + len(_META_KEY):].lstrip(_WHITESPACE)
        if not rest.startswith(b":"):
            continue
        try:
            value = orjson.loads(rest[1:])
        except orjson.JSONDecodeError:
            continue
        scanner = Scanner()
        scanner.take_meta(value)
        return scanner.meta
    return None


def _tail(file: IngestFile, size: int) -> bytes:
    with file.open() as stream:
        if stream.seekable():
            end = stream.seek(0, io.SEEK_END)
            stream.seek(max(end - size, 0))
            return stream.read()
        tail = b""
        while chunk := stream.read(1 << 20):
            tail = (tail + chunk)[-size:]
        return tail
