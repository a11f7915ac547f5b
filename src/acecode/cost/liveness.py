"""Whether an admitted cycle is still running: a lock file it holds for its whole life.

A cycle takes an exclusive ``flock`` on ``<ledger folder>/cycles/<cycle ID>.lock``
before its reservation is written and keeps it until its spend is settled. The
kernel drops the lock when the process ends however it ends (``kill -9``, an
out-of-memory kill, a crash), so another process that can take the lock knows
the cycle is gone; one that cannot knows it runs, however long it has slept (a
laptop's lid closed mid-cycle). A process ID alone could not tell: it is reused,
and a sleeping process looks like a stuck one.

Without ``fcntl`` (Windows) nothing is locked and :func:`running` answers None:
the ledger then falls back on the process ID (:mod:`acecode.cost.holds`).
"""

from __future__ import annotations

import os
from contextlib import suppress
from pathlib import Path

try:  # POSIX
    import fcntl
except ImportError:  # pragma: no cover - Windows
    fcntl = None  # type: ignore[assignment]

LOCKS_FOLDER = "cycles"


def lock_path(ledger_folder: Path, cycle_id: str) -> Path:
    """``<ledger folder>/cycles/<cycle ID>.lock``."""
    return ledger_folder / LOCKS_FOLDER / f"{cycle_id}.lock"


class CycleLock:
    """The lock a running cycle holds (:meth:`take` before its reservation, :meth:`drop`
    after its settlement)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._fd: int | None = None

    def take(self) -> bool:
        """Create and lock the file; False when locks are not available here. Raises
        ``OSError`` when the folder cannot be written."""
        if fcntl is None:  # pragma: no cover - Windows
            return False
        self.path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            os.close(fd)
            raise
        self._fd = fd
        return True

    def drop(self) -> None:
        """Remove the file and release the lock (in that order: nobody may take a lock
        on a file about to disappear and think the cycle is gone before it settled)."""
        if self._fd is None:
            return
        with suppress(OSError):
            self.path.unlink(missing_ok=True)
        os.close(self._fd)  # closing the last descriptor releases the flock
        self._fd = None


def running(path: Path) -> bool | None:
    """True while the cycle holding ``path`` runs, False once it is gone (no file, or a
    lock anyone can take), None when locks are not available here."""
    if fcntl is None:  # pragma: no cover - Windows
        return None
    try:
        fd = os.open(path, os.O_RDONLY)
    except FileNotFoundError:
        return False
    except OSError:
        return True  # cannot look: assume it runs (never undercount)
    try:
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
    except OSError:
        return True
    finally:
        os.close(fd)  # also releases the shared lock just taken
    return False


def remove_dead(path: Path) -> None:
    """Remove the lock file of a cycle found gone (best effort)."""
    with suppress(OSError):
        path.unlink(missing_ok=True)
