"""Progress lines while a slow step runs, so a long wait is never silent.

An LLM call that takes a while (a server that does not answer, a slow local
model) or a long transcript being read would otherwise leave the user
looking at nothing for a minute or more. The commands a person watches
(``acecode learn``, ``acecode bootstrap``, and the background learner, whose
stderr is learn.log) open :func:`progress_to` with where the lines go; the
slow steps wrap themselves in :func:`while_waiting`, which sends one line
after ``ACECODE_PROGRESS_AFTER`` seconds (default 5) and another every
:data:`REPEAT_EVERY` seconds until the step ends. Outside :func:`progress_to`
(a library call) nothing is printed and no thread is started.

The lines come from a small timer thread, so they appear even while the step
holds the event loop (reading a transcript) or waits on a socket.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar

PROGRESS_AFTER_VAR = "ACECODE_PROGRESS_AFTER"
DEFAULT_AFTER = 5.0
# After the first line, one more this often while the step still runs.
REPEAT_EVERY = 15.0

Sink = Callable[[str], None]

_sink: ContextVar[Sink | None] = ContextVar("acecode_progress_sink", default=None)


@contextmanager
def progress_to(sink: Sink) -> Iterator[None]:
    """Send the progress lines of every slow step inside the block to ``sink``."""
    token = _sink.set(sink)
    try:
        yield
    finally:
        _sink.reset(token)


def say(line: str) -> None:
    """Send one progress line now (an event, such as a retry), when someone listens."""
    sink = _sink.get()
    if sink is not None:
        sink(line)


def progress_after() -> float:
    """Seconds a step runs before its first line: ``ACECODE_PROGRESS_AFTER`` (0 makes
    every step say so at once; tests use it), else :data:`DEFAULT_AFTER`."""
    raw = os.environ.get(PROGRESS_AFTER_VAR, "").strip()
    try:
        value = float(raw) if raw else DEFAULT_AFTER
    except ValueError:
        return DEFAULT_AFTER
    return value if value >= 0 else DEFAULT_AFTER


@contextmanager
def while_waiting(describe: Callable[[float], str]) -> Iterator[None]:
    """While the block runs, send ``describe(seconds so far)`` after :func:`progress_after`
    seconds and then every :data:`REPEAT_EVERY` seconds. With a delay of 0 the first
    line is sent before the block starts, however short the block."""
    sink = _sink.get()
    if sink is None:
        yield
        return
    done = threading.Event()
    started = time.monotonic()
    first = progress_after()
    if first == 0:
        sink(describe(0.0))
        first = REPEAT_EVERY

    def tick() -> None:
        wait = first
        while not done.wait(wait):
            sink(describe(time.monotonic() - started))
            wait = REPEAT_EVERY

    ticker = threading.Thread(target=tick, name="acecode-progress", daemon=True)
    ticker.start()
    try:
        yield
    finally:
        done.set()
        ticker.join()
