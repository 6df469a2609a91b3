"""CPU work moved off the event loop, at a lower CPU priority than the requests' own.

Shaping a graph answer of thousands of nodes into JSON takes hundreds of milliseconds of Python; on the event
loop it stalled every other request of the process for as long (a reader asking for large answers back to back
held the others' p99 above a second). In a thread the loop takes the GIL back within the interpreter's switch
interval (5 ms), and a lower nice value leaves the cores to the short requests first."""

from __future__ import annotations

import asyncio
import os
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from functools import partial
from typing import Any, TypeVar

T = TypeVar("T")

# Niceness added to the threads of background CPU work (password checks, large answers), on Linux.
BACKGROUND_NICENESS = 10
# Answers shaped at once per process: more wait their turn (each holds the GIL for most of its run anyway).
SHAPING_THREADS = 2


def lower_thread_priority() -> None:
    """A thread's own nice value raised by BACKGROUND_NICENESS (threads it starts inherit it). Meant as a
    ThreadPoolExecutor initializer; where the system has no per-thread priority, nothing changes."""
    try:
        thread = threading.get_native_id()
        os.setpriority(os.PRIO_PROCESS, thread, min(os.getpriority(os.PRIO_PROCESS, thread) + BACKGROUND_NICENESS, 19))
    except (AttributeError, OSError):
        pass


def lower_process_priority(pid: int) -> int | None:
    """Process `pid`'s nice value raised by BACKGROUND_NICENESS; its former value, or None where not allowed."""
    try:
        before = os.getpriority(os.PRIO_PROCESS, pid)
        os.setpriority(os.PRIO_PROCESS, pid, min(before + BACKGROUND_NICENESS, 19))
    except (AttributeError, OSError):
        return None
    return before


def restore_process_priority(pid: int, before: int) -> bool:
    """Process `pid`'s nice value back to `before`: False where that takes a privilege the service lacks (an
    unprivileged process may raise a nice value, never lower it)."""
    try:
        os.setpriority(os.PRIO_PROCESS, pid, before)
    except (AttributeError, OSError):
        return False
    return True


_shaping = ThreadPoolExecutor(max_workers=SHAPING_THREADS, thread_name_prefix="answer-shaping",
                              initializer=lower_thread_priority)


async def off_loop(function: Callable[..., T], *args: Any) -> T:
    """`function(*args)` in a background thread of the process, awaited."""
    return await asyncio.get_running_loop().run_in_executor(_shaping, partial(function, *args))
