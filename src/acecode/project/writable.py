"""Whether acecode can write where learning writes: the project's state folder, the
playbook's folder and the user's cost ledger.

A learning cycle that cannot write would pay for its LLM calls and then lose what
they found, or spend money the ledger never records; so it looks before its
first call (:func:`cannot_write`, a real file created and removed), and the
session start and ``acecode doctor`` look too (:func:`looks_unwritable`, without
writing: a hook must not leave files behind), naming the folder or file, never a
budget. Only ``os`` is imported: the session-start hook calls this.
"""

from __future__ import annotations

import errno
import os


def _nearest_existing(path: str) -> str:
    """``path``, or its nearest folder up that exists (where it would be created)."""
    current = os.path.abspath(path)
    while not os.path.lexists(current):
        parent = os.path.dirname(current)
        if parent == current:
            break
        current = parent
    return current


def looks_unwritable(path: str, *, folder: bool) -> str:
    """Why the ``folder`` (or file) ``path`` cannot be written, from its permissions and
    type alone, in one phrase naming it (``""`` when it looks writable); a missing one
    is looked at where it would be created."""
    if os.path.lexists(path):
        if folder and not os.path.isdir(path):
            return f"{path} is not a folder"
        if not folder and os.path.isdir(path):
            return f"{path} is a folder, not a file"
        if not os.access(path, os.W_OK):
            return f"{path} is not writable"
        return ""
    where = _nearest_existing(os.path.dirname(os.path.abspath(path)))
    if not os.path.isdir(where):
        return f"{path} cannot be created: {where} is not a folder"
    if not os.access(where, os.W_OK | os.X_OK):
        return f"{path} cannot be created: {where} is not writable"
    return ""


def cannot_write(folder: str) -> str:
    """Why no file can be written in ``folder``, found by creating one and removing it
    (a read-only disk, a full one, permissions, a file in the way), in one phrase
    naming it; ``""`` when one can. The folder is created when missing."""
    probe = os.path.join(folder, f".acecode-write-check-{os.getpid()}-{os.urandom(4).hex()}")
    try:
        os.makedirs(folder, exist_ok=True)
        fd = os.open(probe, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        try:
            os.write(fd, b"x")
        finally:
            os.close(fd)
        os.unlink(probe)
    except OSError as exc:
        reason = exc.strerror or errno.errorcode.get(exc.errno or 0, str(exc))
        return f"cannot write in {folder}: {reason}"
    return ""
