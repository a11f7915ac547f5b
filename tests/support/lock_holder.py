"""Another process that holds a lock file and never lets go on its own.

The tests of acecode's lock timeouts need a holder that outlasts any wait:
acecode's configured timeout is made small, the holder keeps the lock until the
test kills it, so the outcome never depends on how fast the machine is. Should
acecode ignore its timeout, the holder is killed after the hang guard and the
test fails instead of hanging.
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from support.hang_guard import HANG_GUARD, killed_after

_HOLDER = """
import sys, threading
from filelock import FileLock
held = FileLock(sys.argv[1])  # kept referenced: a collected FileLock lets go
held.acquire()
print("locked", flush=True)
threading.Event().wait()
"""


@contextmanager
def lock_held_elsewhere(lock_file: Path) -> Iterator[subprocess.Popen[str]]:
    """A separate Python process holds ``lock_file`` (``filelock``) inside the block;
    it is SIGKILLed at the end, which releases the lock and leaves the file behind."""
    holder = subprocess.Popen(
        [sys.executable, "-c", _HOLDER, str(lock_file)], stdout=subprocess.PIPE, text=True
    )
    try:
        with killed_after(holder):
            assert holder.stdout is not None
            assert holder.stdout.readline().strip() == "locked"
            yield holder
    finally:
        holder.kill()
        holder.wait(timeout=HANG_GUARD)
