"""How deeply a JSON text nests, and how long its strings are, measured on raw bytes before any parser sees them.

Streaming parsers keep a path per nesting level (ijson builds `data.item.item...` for every level, so
memory grows with the square of the depth) and tree builders recurse: a 200 KB file of nested `[`
needs gigabytes. No collector file nests deeper than a dozen levels, so the bytes are checked first,
chunk by chunk, in constant memory and at numpy speed, and a document nesting past the limit is
refused before it is parsed. A string past MAX_STRING_BYTES is refused the same way, from its first megabytes: a
150 MB value kept the datapipe busy for minutes, parsed, stored and finally refused by an index.
"""

from __future__ import annotations

import io
from typing import BinaryIO

import numpy as np

from houndgraph.ingest.errors import IngestError

# Collector files nest about ten levels deep, API bodies fewer; OpenGraph properties may hold a few more.
MAX_JSON_DEPTH = 64
# No collector writes a value near this long (certificates and descriptions are kilobytes); the indexes on
# names and ids refuse far less (`ingest.limits`). Past it the file is refused at once, naming why.
MAX_STRING_BYTES = 4 << 20

_STRUCTURE = b'"[]{}'
_NOT_STRUCTURE = bytes(byte for byte in range(256) if byte not in _STRUCTURE)
_QUOTE = ord('"')
_STEPS = np.zeros(256, dtype=np.int64)
_STEPS[[ord("["), ord("{")]] = 1
_STEPS[[ord("]"), ord("}")]] = -1


def too_deep_message(limit: int) -> str:
    return f"the JSON nests deeper than {limit} levels"


class NestingCounter:
    """Feeds on consecutive chunks of one JSON text; `deepest` is the deepest nesting seen so far.

    Brackets inside strings do not count. Each chunk is reduced at C speed (escapes dropped, then every
    byte but quotes and brackets) before numpy counts what is left. Invalid JSON may be miscounted,
    which is harmless: the parser refuses it anyway.
    """

    def __init__(self) -> None:
        self.depth = 0
        self.deepest = 0
        self._in_string = False
        # An odd run of backslashes ending a chunk escapes the first byte of the next one.
        self._held = b""

    def feed(self, chunk: bytes) -> int:
        chunk = self._held + chunk
        kept = len(chunk.rstrip(b"\\"))
        self._held = b"\\" if (len(chunk) - kept) % 2 else b""
        reduced = chunk[:kept].replace(b"\\\\", b"").replace(b'\\"', b"").translate(None, _NOT_STRUCTURE)
        if not reduced:
            return self.deepest
        # What is left is quotes and brackets; a bracket counts unless an odd number of quotes (counting
        # one still open from the last chunk) precedes it. Masked in numpy: a regular expression dropping
        # each string took most of the time on collector files, which are millions of short strings.
        symbols = np.frombuffer(reduced, dtype=np.uint8)
        quotes = symbols == _QUOTE
        opened = np.cumsum(quotes, dtype=np.int64) + self._in_string
        steps = np.where(quotes | (opened & 1).astype(bool), 0, _STEPS[symbols])
        levels = np.cumsum(steps) + self.depth
        self._in_string = bool(opened[-1] & 1)
        self.deepest = max(self.deepest, int(levels.max()))
        self.depth = int(levels[-1])
        return self.deepest


def check_depth(chunk: bytes, counter: NestingCounter, limit: int = MAX_JSON_DEPTH) -> None:
    if counter.feed(chunk) > limit:
        raise IngestError(too_deep_message(limit))


def nesting_depth(text: bytes) -> int:
    return NestingCounter().feed(text)


def nests_deeper_than(text: bytes, limit: int) -> bool:
    """Whether a whole JSON text nests past `limit`. A text with no more opening brackets than that cannot, and is not
    measured: nearly every API body (numpy's fixed cost per call outweighed the small ones' whole request)."""
    if text.count(b"[") + text.count(b"{") <= limit:
        return False
    return nesting_depth(text) > limit


def too_long_message() -> str:
    return f"the file holds a string longer than {MAX_STRING_BYTES >> 20} MiB"


class StringMeter:
    """Feeds on consecutive chunks of one JSON text; IngestError as soon as a string (closed, or still open at
    the end of the chunk) is longer than MAX_STRING_BYTES."""

    def __init__(self) -> None:
        self._offset = 0  # where the chunk being fed starts in the text
        self._in_string = False
        self._string_start = 0  # where the string still open at the end of the last chunk began
        self._held = False  # an odd run of backslashes ended the last chunk: the next byte is escaped

    def feed(self, chunk: bytes) -> None:
        self.check(np.flatnonzero(np.frombuffer(self.unescaped(chunk), dtype=np.uint8) == _QUOTE), len(chunk))

    def unescaped(self, chunk: bytes) -> bytes:
        """The chunk with escaped quotes and backslashes blanked, so every quote left delimits a string; the
        same length, so positions stay those of `chunk`."""
        skip = 1 if self._held else 0
        body = chunk[skip:]
        if b"\\" not in body:
            self._held = False
            return b"_" + body if skip else chunk
        self._held = (len(body) - len(body.rstrip(b"\\"))) % 2 == 1
        body = body.replace(b"\\\\", b"__").replace(b'\\"', b"__")
        return b"_" + body if skip else body

    def check(self, quote_positions: np.ndarray, chunk_length: int) -> None:
        """The chunk's unescaped quotes (positions within it, in order) measure its strings."""
        quoted = quote_positions.astype(np.int64) + self._offset
        if self._in_string:
            quoted = np.concatenate(([self._string_start], quoted))
        starts, ends = quoted[0::2], quoted[1::2]
        longest = int((ends - starts[:ends.size] - 1).max()) if ends.size else 0
        self._in_string = starts.size > ends.size
        if self._in_string:
            self._string_start = int(starts[-1])
            longest = max(longest, self._offset + chunk_length - self._string_start - 1)
        self._offset += chunk_length
        if longest > MAX_STRING_BYTES:
            raise IngestError(too_long_message())


class DepthLimited(io.RawIOBase):
    """A stream that refuses (IngestError) to hand out bytes nesting deeper than `limit`, or holding a string
    longer than MAX_STRING_BYTES, so whatever parses it never sees them."""

    def __init__(self, raw: BinaryIO, limit: int = MAX_JSON_DEPTH) -> None:
        self._raw = raw
        self._limit = limit
        self._counter = NestingCounter()
        self._strings = StringMeter()

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: bytearray | memoryview) -> int:  # type: ignore[override]
        view = memoryview(buffer)
        data = self._raw.read(len(view))
        check_depth(data, self._counter, self._limit)
        self._strings.feed(data)
        view[: len(data)] = data
        return len(data)

    def close(self) -> None:
        if not self.closed:
            self._raw.close()
        super().close()
