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

import time
from collections.abc import Callable
from typing import TypeVar

# Any subprocess a test starts (a hook, a CLI command, a learning cycle, a real
# Claude Code or Codex session step), and any wait for something to happen.
HANG_GUARD = 300.0

# A pip install that downloads and builds (the README's Quick start).
INSTALL_HANG_GUARD = 1800.0

# How often a polling wait looks again (it returns as soon as the condition holds).
POLL_INTERVAL = 0.05

T = TypeVar("T")


def wait_until(
    condition: Callable[[], T],
    what: str,
    guard: float = HANG_GUARD,
    interval: float = POLL_INTERVAL,
) -> T:
    """Poll ``condition`` until it returns a true value, and return that value.

    Fails the test naming ``what`` only when ``guard`` seconds pass first, which
    means the awaited thing is not coming (a hang or a regression), not that the
    machine was slow.
    """
    deadline = time.monotonic() + guard
    while True:
        result = condition()
        if result:
            return result
        if time.monotonic() > deadline:
            raise AssertionError(f"{what}: still not there after {guard:g} s (hang guard)")
        time.sleep(interval)
