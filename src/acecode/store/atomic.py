"""Crash-safe file replacement: temp file in the same folder, fsync, ``os.replace``.

A reader sees either the old file or the new one, never a truncated mix,
even if the writer is killed or the disk fills up half way.
"""

from __future__ import annotations

import contextlib
import glob
import os
import tempfile
from pathlib import Path

from acecode.store.errors import PlaybookWriteError

TEMP_SUFFIX = ".tmp"


def _fsync_dir(folder: Path) -> None:
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def _temp_prefix(path: Path) -> str:
    return f".{path.name}."


def remove_stale_temp_files(path: Path) -> None:
    """Delete temp files a killed writer of ``path`` left behind.

    Only safe while holding the lock that every writer of ``path`` takes:
    then no other temp file for ``path`` can be in use. The pattern fixes the
    length of ``mkstemp``'s random part so that temp files of a sibling such as
    ``playbook.json.bak`` never match.
    """
    pattern = f"{glob.escape(_temp_prefix(path))}{'?' * 8}{TEMP_SUFFIX}"
    for stale in path.parent.glob(pattern):
        with contextlib.suppress(OSError):
            stale.unlink()


def _mode_for(path: Path) -> int:
    """The existing file's mode, or what a plain ``open()`` would give a new file.

    ``mkstemp`` creates 0600 files; a new playbook should get the usual
    0666 minus the umask, like any file the user creates.
    """
    try:
        return path.stat().st_mode & 0o7777
    except FileNotFoundError:
        umask = os.umask(0)
        os.umask(umask)
        return 0o666 & ~umask


def remove_stale_temp_files_in(folder: Path) -> None:
    """Delete every atomic-write temp file in ``folder``.

    For folders of uniquely named files (the curation reports) whose writers
    all hold one lock: called with that lock held, any temp file found is
    from a writer that was killed.
    """
    for stale in folder.glob(f".*.{'?' * 8}{TEMP_SUFFIX}"):
        with contextlib.suppress(OSError):
            stale.unlink()


def atomic_write_text(path: Path, text: str) -> None:
    """Replace ``path`` with ``text`` atomically, keeping the old file's mode.

    Raises ``PlaybookWriteError`` (one line, naming the file) when the folder
    cannot be written or the disk is full; the old file is then unchanged.
    """
    folder = path.parent
    tmp_name = None
    try:
        folder.mkdir(parents=True, exist_ok=True)
        fd, tmp_name = tempfile.mkstemp(dir=folder, prefix=_temp_prefix(path), suffix=TEMP_SUFFIX)
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(tmp_name, _mode_for(path))
        os.replace(tmp_name, path)
        tmp_name = None
        _fsync_dir(folder)
    except OSError as exc:
        reason = exc.strerror or str(exc)
        raise PlaybookWriteError(
            f"could not save {path}: {reason}; the previous file is unchanged"
        ) from exc
    finally:
        if tmp_name is not None:
            with contextlib.suppress(OSError):
                os.unlink(tmp_name)
