"""The one error type of the readers, and the bounded list readers write their warnings to."""

from __future__ import annotations

from collections import Counter


class IngestError(Exception):
    """A file that cannot be ingested. The message says what is wrong, in words a user can act on."""


class Warnings:
    """Warnings about one file, bounded whatever the file size.

    A file with a million malformed records must not produce a million strings: the first
    `limit` distinct warnings are kept, repeats are counted, and `lines()` ends with a summary of
    what was left out.
    """

    def __init__(self, limit: int = 100) -> None:
        self._limit = limit
        self._counts: Counter[str] = Counter()
        self._dropped = 0

    def add(self, message: str) -> None:
        if message in self._counts or len(self._counts) < self._limit:
            self._counts[message] += 1
        else:
            self._dropped += 1

    def __len__(self) -> int:
        return sum(self._counts.values()) + self._dropped

    def lines(self) -> list[str]:
        out = [message if count == 1 else f"{message} ({count} times)" for message, count in self._counts.items()]
        if self._dropped:
            out.append(f"{self._dropped} more warnings not shown")
        return out
