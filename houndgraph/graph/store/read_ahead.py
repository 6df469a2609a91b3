"""Read-ahead: the next batches are read and prepared in a second thread while the current one is written.

Reading a collector file and preparing its records is Python work; applying a batch is mostly waiting
for PostgreSQL, which runs in its own process. With the two overlapped, an ingest takes about as long
as the slower of the two instead of their sum. The queue is bounded, so at most `depth + 2` batches
are in memory whatever the file size.
"""

from __future__ import annotations

import gc
import queue
import sys
import threading
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from typing import Generic, TypeVar

Item = TypeVar("Item")
Result = TypeVar("Result")

_POLL_SECONDS = 0.1


class ReadAhead(Generic[Item, Result]):
    """Iterates `work(item)` for each item of `source`, computed in a background thread.

    An exception in the source or in `work` is raised in the consuming thread, at the position where it
    happened. Leaving the `with` block early (an error while writing, a stop request) stops the thread
    and closes the source, so a generator's `finally` runs as it would without read-ahead.
    """

    def __init__(self, source: Iterable[Item], work: Callable[[Item], Result], depth: int = 1) -> None:
        self._source = source
        self._work = work
        self._queue: queue.Queue[tuple[str, object]] = queue.Queue(maxsize=depth)
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._produce, name="graph-store-read-ahead", daemon=True)

    def __enter__(self) -> Iterator[Result]:
        self._thread.start()
        return self._consume()

    def __exit__(self, *exc_info: object) -> None:
        self._stop.set()
        while self._thread.is_alive():
            # Unblock a producer waiting on a full queue, then wait for it to close the source.
            try:
                self._queue.get_nowait()
            except queue.Empty:
                self._thread.join(_POLL_SECONDS)

    def _consume(self) -> Iterator[Result]:
        while True:
            tag, value = self._queue.get()
            if tag == "item":
                yield value  # type: ignore[misc]
            elif tag == "error":
                assert isinstance(value, BaseException)
                raise value
            else:
                return

    def _put(self, message: tuple[str, object]) -> bool:
        while not self._stop.is_set():
            try:
                self._queue.put(message, timeout=_POLL_SECONDS)
                return True
            except queue.Full:
                continue
        return False

    def _produce(self) -> None:
        iterator: Iterator[Item] | None = None
        try:
            iterator = iter(self._source)
            for item in iterator:
                if not self._put(("item", self._work(item))):
                    return
        except BaseException as error:  # handed to the consumer, which raises it
            self._put(("error", error))
        else:
            self._put(("done", None))
        finally:
            close = getattr(iterator, "close", None) if iterator is not None else None
            if close is not None:
                close()


# Interpreter settings while `GraphStore.write_all` runs (see `bulk_tuning`).
_SWITCH_INTERVAL = 0.001
_GC_THRESHOLD = (100_000, 50, 100)

_tuning_lock = threading.Lock()
_tuning_users = 0
_saved_switch_interval = 0.0
_saved_gc_threshold: tuple[int, int, int] = (0, 0, 0)


@contextmanager
def bulk_tuning() -> Iterator[None]:
    """Interpreter settings for the length of a `write_all`, measured on 100,000 objects.

    - Threads hand over the interpreter every millisecond instead of every five: the writing thread
      returns from PostgreSQL a dozen times per batch and must each time take the interpreter back
      from the reading thread, which is always busy; at five milliseconds that waiting cost a quarter
      of the ingest time.
    - The cyclic garbage collector runs a hundred times less often: a batch is a few hundred thousand
      short-lived objects (records, their dicts and tuples, all freed by reference counting), and the
      default thresholds made the collector traverse them again and again, 7 of the 17 s that reading
      and preparing took.
    Both are process-wide, so nested and concurrent uses share one saved value and the last restores it.
    """
    global _tuning_users, _saved_switch_interval, _saved_gc_threshold
    with _tuning_lock:
        if _tuning_users == 0:
            _saved_switch_interval = sys.getswitchinterval()
            _saved_gc_threshold = gc.get_threshold()
            sys.setswitchinterval(min(_saved_switch_interval, _SWITCH_INTERVAL))
            gc.set_threshold(
                *(max(saved, bulk) for saved, bulk in zip(_saved_gc_threshold, _GC_THRESHOLD, strict=True))
            )
        _tuning_users += 1
    try:
        yield
    finally:
        with _tuning_lock:
            _tuning_users -= 1
            if _tuning_users == 0:
                sys.setswitchinterval(_saved_switch_interval)
                gc.set_threshold(*_saved_gc_threshold)
