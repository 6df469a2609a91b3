"""One pass over a classic document: its data array cut into slices of whole records, its nesting checked,
and everything else (the skeleton: the meta tag and any other top-level key) handed to a scanner.

Walking a collector file event by event in Python costs three times what orjson needs to parse it, and
the scan needed a pass of its own. Here each chunk of raw bytes is reduced with numpy to its structural
characters outside strings (quotes, brackets, commas) and their nesting levels; commas at the level of the
data array's items are where it can be cut, so runs of whole records go to orjson (or, for what orjson
reads differently from the event parser, to the event parser itself). Memory holds one chunk and one
record, whatever the file size.

The pass vouches only for what it checks: the caller parses the skeleton, and any slice either parser
refuses raises `Malformed`, after which the caller asks the full scan for the reason.
"""

from __future__ import annotations

import io
from collections.abc import Callable, Iterator
from typing import Any, BinaryIO

import ijson
import numpy as np
import orjson

from houndgraph.ingest.errors import IngestError
from houndgraph.ingest.nesting import MAX_JSON_DEPTH, StringMeter, too_deep_message
from houndgraph.ingest.scan import not_json_message

CHUNK_BYTES = 1 << 20
# Skeleton bytes kept to find the key of a container that opens at the top level: "data" spelled with
# every character escaped (\u0064...) is 26 bytes with its quotes; a longer key cannot be "data".
_KEY_WINDOW = 64
_QUOTE, _COMMA, _OPEN_ARRAY = ord('"'), ord(","), ord("[")
_SYMBOL_FLAGS = bytes(1 if byte in b'"[]{},' else 0 for byte in range(256))
_STEPS = np.zeros(256, dtype=np.int64)
_STEPS[list(b"[{")] = 1
_STEPS[list(b"]}")] = -1
_WHITESPACE = b" \t\r\n"
# orjson reads an integer beyond 64 bits as a float, and one beyond 63 bits as an integer, where the event
# parser refuses both ("integer overflow"). Such a number has at least 19 digits: a run found by mapping
# every digit to "0" and the rest to a space (a regular expression took longer than the parse); the event
# parser reads the slice holding it.
_DIGITS_ONLY = bytes(ord("0") if ord("0") <= byte <= ord("9") else ord(" ") for byte in range(256))
_LONG_NUMBER = b"0" * 19


class Malformed(Exception):
    """The bytes are not the JSON the pass expects; the full scan says why (or, where it finds nothing
    wrong, as for a number the parser cannot hold, this exception's message does)."""


def parse_items(text: bytes, parse_events: Callable[[BinaryIO], Iterator[Any]]) -> list[Any]:
    """The items of the JSON array `text`: orjson where it reads them as the event parser would, else the
    event parser (`parse_events(stream)` yields the array's items)."""
    if _LONG_NUMBER not in text.translate(_DIGITS_ONLY):
        try:
            items = orjson.loads(text)
        except orjson.JSONDecodeError:
            pass  # the event parser decides: it may read what orjson refuses (huge numbers, for instance)
        else:
            if isinstance(items, list):
                return items
            raise Malformed("not an array")
    try:
        return list(parse_events(io.BytesIO(text)))
    except ijson.JSONError as exc:
        raise Malformed(not_json_message(exc, empty=False)) from exc
    except UnicodeDecodeError as exc:
        raise Malformed(f"not JSON: the file is not UTF-8 text ({exc.reason})") from exc


class DataSlicer:
    """Feed it a classic document's bytes with `records`; `skeleton` receives every byte outside the data
    arrays (the top-level arrays whose key is "data"), whose contents come out as lists of records."""

    def __init__(self, skeleton: Callable[[bytes], None], parse: Callable[[bytes], list[Any]],
                 limit: int = MAX_JSON_DEPTH) -> None:
        self._skeleton = skeleton
        self._parse = parse
        self._limit = limit
        self._depth = 0
        self._in_string = False
        self._strings = StringMeter()  # also blanks escapes, across chunks
        self._recent = b""  # the last skeleton bytes, to read the key of a top-level container
        self._in_data = False
        self._cut_in_array = False
        self._pending: list[bytes] = []
        # How many top-level arrays were taken for data arrays: the skeleton's scanner must count as many.
        self.data_arrays = 0

    def records(self, stream: BinaryIO) -> Iterator[list[Any]]:
        while chunk := stream.read(CHUNK_BYTES):
            yield from self._feed(chunk)
        if self._depth or self._in_string or self._in_data:
            raise Malformed("the document ends inside a value")

    def _feed(self, chunk: bytes) -> Iterator[list[Any]]:
        unescaped = self._strings.unescaped(chunk)
        codes = np.frombuffer(unescaped, dtype=np.uint8)
        # `bytes.translate` marks the structural characters in a third of the time numpy's table look-up takes.
        positions = np.flatnonzero(np.frombuffer(unescaped.translate(_SYMBOL_FLAGS), dtype=np.bool_))
        symbols = codes[positions]
        quotes = symbols == _QUOTE
        opened = np.cumsum(quotes, dtype=np.int64) + self._in_string
        if opened.size:
            self._in_string = bool(opened[-1] & 1)
        self._strings.check(positions[quotes], len(chunk))
        outside = ~quotes & ((opened & 1) == 0)
        positions, symbols = positions[outside], symbols[outside]
        steps = _STEPS[symbols]
        levels = np.cumsum(steps) + self._depth  # the level after each symbol
        if levels.size:
            if int(levels.max()) > self._limit:
                raise IngestError(too_deep_message(self._limit))
            if int(levels.min()) < 0:
                raise Malformed("a bracket closes what was never opened")
            self._depth = int(levels[-1])
        # Brackets that open or close a top-level value (or the document); commas between data items.
        top = np.flatnonzero((steps != 0) & (np.minimum(levels, levels - steps) <= 1))
        cuts = positions[(symbols == _COMMA) & (levels == 2)]
        start = 0
        for index in top.tolist():
            at = int(positions[index])
            if self._in_data:  # only the array's own `]` takes the level back to 1
                yield from self._data(chunk, start, at, cuts)
                yield from self._end_data()
                start = at
            elif steps[index] == 1 and levels[index] == 2 and symbols[index] == _OPEN_ARRAY:
                self._keep(chunk[start:at + 1])
                start = at + 1
                self._in_data = _ends_with_data_key(self._recent[:-1])
                if not self._in_data:
                    continue
                self.data_arrays += 1
                self._cut_in_array = False
        if self._in_data:
            yield from self._data(chunk, start, len(chunk), cuts)
        else:
            self._keep(chunk[start:])

    def _keep(self, text: bytes) -> None:
        if text:
            self._skeleton(text)
            self._recent = (self._recent + text)[-_KEY_WINDOW:]

    def _data(self, chunk: bytes, start: int, end: int, cuts: np.ndarray) -> Iterator[list[Any]]:
        """`chunk[start:end]` lies inside a data array: parse up to its last cut, keep the rest."""
        last = int(np.searchsorted(cuts, end)) - 1
        if last < 0 or cuts[last] < start:
            self._pending.append(chunk[start:end])
            return
        cut = int(cuts[last])
        yield self._items(b"".join([b"[", *self._pending, chunk[start:cut], b"]"]), required=True)
        self._cut_in_array = True
        self._pending = [chunk[cut + 1:end]]

    def _end_data(self) -> Iterator[list[Any]]:
        text = b"".join([b"[", *self._pending, b"]"])
        self._pending = []
        self._in_data = False
        items = self._items(text, required=self._cut_in_array)
        if items:
            yield items

    def _items(self, text: bytes, *, required: bool) -> list[Any]:
        items = self._parse(text)
        if required and not items:  # a comma with nothing on one side of it
            raise Malformed("an empty item in the data array")
        return items


def _ends_with_data_key(text: bytes) -> bool:
    """Whether `text` (skeleton bytes before a `[`) ends with the key "data" and its colon."""
    text = text.rstrip(_WHITESPACE)
    if not text.endswith(b":"):
        return False
    text = text[:-1].rstrip(_WHITESPACE)
    if not text.endswith(b'"'):
        return False
    opening = len(text) - 1
    while True:
        opening = text.rfind(b'"', 0, opening)
        if opening < 0:
            return False
        backslashes = opening - len(text[:opening].rstrip(b"\\"))
        if backslashes % 2 == 0:
            break
    try:
        return bool(orjson.loads(text[opening:]) == "data")
    except orjson.JSONDecodeError:
        return False
