"""One exclusive lock per file, shared by every acecode writer of that file.

Taking the lock also clears temp files that a killed writer of the file left.

Locks are held with ``filelock`` (``flock`` on POSIX), so the kernel releases
one when its holder dies: a stale lock file from a killed process never
blocks the next writer. A holder that shows no sign of life for ``timeout``
seconds (a stopped process, a program that is not acecode) ends the wait in
one clear line. An acecode holder shows one: it stamps ``<lock file>.holder``
when it takes the lock and every :data:`HEARTBEAT` seconds while it holds it,
and each new stamp starts the wait again. So a cycle queued behind several
others (sessions ending together), or behind a long save of a large
playbook, waits for all of them and never loses the LLM calls it paid for.

Every lock file lives in acecode's git-ignored state folder, never in a
folder the user commits: the playbook's lock is
``.claude/acecode/playbook.json.lock`` (:func:`playbook_lock`), and a file of
the state folder itself is locked beside itself (:func:`exclusive_lock`).
acecode 0.1 kept the playbook's lock beside the playbook, where it showed up
in ``git status``; :func:`playbook_lock` takes that old lock too when it finds
it (so a 0.1 process still running is waited for) and then deletes it.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from acecode.project.layer import Layer, Where
from acecode.project.state_folder import ensure_folder_of
from acecode.store.atomic import remove_stale_temp_files
from acecode.store.errors import PlaybookLockTimeout, PlaybookWriteError

LOCK_SUFFIX = ".lock"


def playbook_lock_file(playbook: Where) -> Path:
    """The lock file of a playbook: ``<state folder>/<playbook name>.lock``."""
    layer = Layer.of(playbook)
    return layer.file(f"{layer.playbook_file.name}{LOCK_SUFFIX}")


def _beside(path: Path) -> Path:
    """``<path>.lock``: a state file's lock, and where acecode 0.1 locked the playbook."""
    return path.with_name(f"{path.name}{LOCK_SUFFIX}")


def _make_state_folder(folder: Path | Layer, path: Path) -> None:
    """Create ``folder`` (a state folder, or a layer's) for the lock of ``path``."""
    try:
        ensure_folder_of(folder)
    except OSError as exc:
        raise PlaybookWriteError(
            f"cannot lock {path}: {exc.strerror or exc}; nothing was changed"
        ) from exc


HOLDER_SUFFIX = ".holder"
# How often a waiter looks at the holder's stamp, and how often a holder renews it.
_LOOK_EVERY = 0.25
HEARTBEAT = 1.0


def _holder_file(lock_file: Path) -> str:
    """``<lock file>.holder``: who holds the lock (pid and time), renewed while it does,
    so a waiter can tell a holder at work from one that does not let go."""
    return f"{lock_file}{HOLDER_SUFFIX}"


def _read_holder(lock_file: Path) -> str:
    try:
        with open(_holder_file(lock_file), encoding="utf-8", errors="replace") as handle:
            return handle.read(64)
    except OSError:
        return ""


def _stamp_holder(lock_file: Path) -> None:
    """Say that this process holds the lock now; best effort (a read-only folder)."""
    import time

    with (
        contextlib.suppress(OSError),
        open(_holder_file(lock_file), "w", encoding="utf-8") as handle,
    ):
        handle.write(f"{os.getpid()} {time.time_ns()}")


@contextmanager
def _heartbeat(lock_file: Path) -> Iterator[None]:
    """Stamp the holder file now and every :data:`HEARTBEAT` seconds until the block ends
    (a daemon thread: it only writes the stamp)."""
    import threading

    _stamp_holder(lock_file)
    stop = threading.Event()

    def beat() -> None:
        while not stop.wait(HEARTBEAT):
            _stamp_holder(lock_file)

    thread = threading.Thread(target=beat, name="acecode-lock-heartbeat", daemon=True)
    thread.start()
    try:
        yield
    finally:
        stop.set()
        thread.join()


def _acquire(lock: Any, lock_file: Path, path: Path, timeout: float) -> None:
    """Take ``lock``, waiting while other processes hold it, with progress lines.

    ``timeout`` bounds the wait for a sign of life: a new stamp of the holder file (the
    lock changed hands, or its holder renewed it) starts the wait again, while a holder
    that gives none for ``timeout`` seconds ends it with ``PlaybookLockTimeout``."""
    import time

    from filelock import Timeout

    from acecode.output.waiting import while_waiting

    try:
        lock.acquire(timeout=0)
        return
    except Timeout:
        pass
    holder, since = _read_holder(lock_file), time.monotonic()
    started = since

    def describe(seconds: float) -> str:
        return f"waiting for {path}: another acecode process is writing it ({seconds:.0f} s)"

    with while_waiting(describe):
        while True:
            try:
                lock.acquire(timeout=_LOOK_EVERY)
                return
            except Timeout:
                now, current = time.monotonic(), _read_holder(lock_file)
                if current != holder:
                    holder, since = current, now
                elif now - since >= timeout:
                    raise PlaybookLockTimeout(
                        f"{path} is locked by another acecode process (waited {timeout:g} s "
                        f"without a sign of its holder, {now - started:.0f} s in all); "
                        "try again when it has finished"
                    ) from None


@contextmanager
def _held(lock_file: Path, path: Path, timeout: float) -> Iterator[None]:
    """Hold ``lock_file``, an existing folder's lock file, on behalf of ``path``."""
    # Imported here: the injection hook reads playbooks through the store and
    # must not pay for filelock on every prompt.
    from filelock import FileLock

    lock = FileLock(str(lock_file), timeout=timeout)
    try:
        _acquire(lock, lock_file, path, timeout)
    except OSError as exc:
        raise PlaybookWriteError(
            f"cannot lock {path}: {exc.strerror or exc}; nothing was changed"
        ) from exc
    try:
        with _heartbeat(lock_file):
            yield
    finally:
        lock.release()


@contextmanager
def exclusive_lock(path: Path, timeout: float) -> Iterator[None]:
    """Hold the lock of ``path``, a file in acecode's state folder, for the block.

    Creates the state folder (with its ``.gitignore``) when missing. Raises
    ``PlaybookLockTimeout`` when another process holds the lock longer than
    ``timeout`` and ``PlaybookWriteError`` when the lock file cannot be
    created (read-only folder); nothing has been changed in either case.
    """
    _make_state_folder(path.parent, path)
    with _held(_beside(path), path, timeout):
        # Every writer of ``path`` holds this lock, so no temp file of ``path``
        # is in use now: any left over is from a writer that was killed.
        remove_stale_temp_files(path)
        yield


@contextmanager
def playbook_lock(where: Where, timeout: float) -> Iterator[None]:
    """Hold the lock of the playbook file ``where`` names (or of the layer's) for the block.

    Creates the state folder beside the playbook and raises like
    :func:`exclusive_lock`. An acecode 0.1 lock file beside the playbook is
    taken as well, then deleted (see the module docstring).
    """
    layer = Layer.of(where)
    playbook = layer.playbook_file
    lock_file = playbook_lock_file(layer)
    _make_state_folder(layer, playbook)
    with _held(lock_file, playbook, timeout):
        legacy = _beside(playbook)
        if legacy.exists():
            with _held(legacy, playbook, timeout), contextlib.suppress(OSError):
                legacy.unlink()
            with contextlib.suppress(OSError):  # its stamp, beside the playbook in git's view
                os.unlink(_holder_file(legacy))
        remove_stale_temp_files(playbook)
        yield
