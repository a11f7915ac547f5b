"""One exclusive lock per file, shared by every acecode writer of that file.

Taking the lock also clears temp files that a killed writer of the file left.

Locks are held with ``filelock`` (``flock`` on POSIX), so the kernel releases
one when its holder dies: a stale lock file from a killed process never
blocks the next writer. A live holder is waited for up to ``timeout``
seconds, then the caller gets one clear line.

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
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

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


@contextmanager
def _held(lock_file: Path, path: Path, timeout: float) -> Iterator[None]:
    """Hold ``lock_file``, an existing folder's lock file, on behalf of ``path``."""
    # Imported here: the injection hook reads playbooks through the store and
    # must not pay for filelock on every prompt.
    from filelock import FileLock, Timeout

    lock = FileLock(str(lock_file), timeout=timeout)
    try:
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
        remove_stale_temp_files(playbook)
        yield
