"""One exclusive lock per file, shared by every acecode writer of that file.

Taking the lock also clears temp files that a killed writer of the file left.

The lock is ``<file>.lock`` held with ``filelock`` (``flock`` on POSIX), so
the kernel releases it when its holder dies: a stale lock from a killed
process never blocks the next writer. A live holder is waited for up to
``timeout`` seconds, then the caller gets one clear line.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from acecode.store.atomic import remove_stale_temp_files
from acecode.store.errors import PlaybookLockTimeout, PlaybookWriteError


@contextmanager
def exclusive_lock(path: Path, timeout: float) -> Iterator[None]:
    """Hold the lock of ``path`` for the block.

    Raises ``PlaybookLockTimeout`` when another process holds it longer than
    ``timeout`` and ``PlaybookWriteError`` when the lock file cannot be
    created (read-only folder); nothing has been changed in either case.
    """
    # Imported here: the injection hook reads playbooks through the store and
    # must not pay for filelock on every prompt.
    from filelock import FileLock, Timeout

    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        lock = FileLock(str(path.with_name(path.name + ".lock")), timeout=timeout)
        lock.acquire()
    except Timeout as exc:
        raise PlaybookLockTimeout(
            f"{path} is locked by another acecode process (waited {timeout:g} s); "
            "try again when it has finished"
        ) from exc
    except OSError as exc:
        raise PlaybookWriteError(
            f"cannot lock {path}: {exc.strerror or exc}; nothing was changed"
        ) from exc
    try:
        # Every writer of ``path`` holds this lock, so no temp file of ``path``
        # is in use now: any left over is from a writer that was killed.
        remove_stale_temp_files(path)
        yield
    finally:
        lock.release()
