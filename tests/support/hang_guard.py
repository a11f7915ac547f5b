"""How long a test waits: hang guards only, never the assertion.

The suite runs on busy machines (2 cores shared by several suites at once), where
a step that takes a second alone can take a hundred times longer. So no test
asserts how long anything took. A subprocess timeout or a polling cap exists only
so that a child that hangs fails its test instead of the whole run, and it is far
beyond what any step needs however loaded the machine is.

Where a test checks acecode's OWN timeout (a lock wait, an LLM call), the test
makes it deterministic instead: a holder that never lets go or a server that never
answers, acecode's configured limit set small, and these guards far above it.
"""

from __future__ import annotations

import subprocess
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TypeVar

# Any subprocess a test starts (a hook, a CLI command, a learning cycle, a real
# Claude Code or Codex session step), and any wait for something to happen.
HANG_GUARD = 300.0

# A step that is long even on an idle machine: a pip install that downloads and
# builds (the README's Quick start), learning from a 200 MB transcript.
LONG_HANG_GUARD = 1800.0

# How often a polling wait looks again (it returns as soon as the condition holds).
POLL_INTERVAL = 0.05

T = TypeVar("T")


def wait_until(
    condition: Callable[[], T],
    what: str | Callable[[], str],
    guard: float = HANG_GUARD,
    interval: float = POLL_INTERVAL,
) -> T:
    """Poll ``condition`` until it returns a true value, and return that value.

    Fails the test naming ``what`` (a callable is asked then, so that it can show
    a log as it is at that moment) only when ``guard`` seconds pass first, which
    means the awaited thing is not coming (a hang or a regression), not that the
    machine was slow.
    """
    deadline = time.monotonic() + guard
    while True:
        result = condition()
        if result:
            return result
        if time.monotonic() > deadline:
            described = what() if callable(what) else what
            raise AssertionError(f"still waiting after {guard:g} s (hang guard) for {described}")
        time.sleep(interval)


@contextmanager
def killed_after(process: subprocess.Popen, guard: float = HANG_GUARD) -> Iterator[None]:
    """Kill ``process`` if it still runs when the block has taken ``guard`` seconds.

    For waits that take no timeout of their own (``os.wait4``), and for a child
    that an acecode call in the test waits on (a lock holder): were acecode to
    wait forever, the killed child lets it go on and the test fails instead of
    hanging the run.
    """
    timer = threading.Timer(guard, process.kill)
    timer.daemon = True
    timer.start()
    try:
        yield
    finally:
        timer.cancel()
