"""acecode's state folder (``.claude/acecode``) and the ``.gitignore`` that keeps it private.

Many teams commit ``.claude/`` (settings, the playbook). Everything else
acecode writes there (locks, history, caches, the review queue, logs,
reports) lives in the state folder, whose own ``.gitignore`` holds ``*``, so
none of it ever shows up in ``git status``. Whoever creates the folder first,
a CLI command, a background cycle or a hook, creates that file with it.

Only ``os`` is imported: the injection hook creates the folder too, and
``pathlib`` would cost it a noticeable share of its time budget.
"""

from __future__ import annotations

import os

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing (the tool hooks' hit path)
if TYPE_CHECKING:
    from typing import Protocol, TypeAlias

    class _HasFolder(Protocol):
        """A layer (:class:`acecode.project.layer.Layer`): anything that knows its state folder."""

        state_folder: str

    # What a function that reads or writes a file of the state folder accepts: the
    # folder, or the layer whose folder it is (what the learning cycle hands down).
    StateFolder: TypeAlias = "str | os.PathLike[str] | _HasFolder"

STATE_FOLDER_NAME = "acecode"
GITIGNORE_TEXT = "# acecode's local state (history, caches, locks, reports)\n*\n"


def ensure_state_folder(folder: str | os.PathLike[str]) -> None:
    """Create ``folder`` (and parents) with its ``.gitignore`` when either is missing.

    Raises ``OSError`` when the folder cannot be created; callers turn it into
    their own one-line error.
    """
    os.makedirs(folder, exist_ok=True)
    ignore = os.path.join(folder, ".gitignore")
    if os.path.exists(ignore):
        return
    try:
        with open(ignore, "x", encoding="utf-8") as handle:
            handle.write(GITIGNORE_TEXT)
    except FileExistsError:  # another acecode process created it meanwhile
        pass


def folder_of(state: StateFolder) -> str:
    """The state folder ``state`` names: the folder itself, or a layer's."""
    return os.fspath(getattr(state, "state_folder", state))


def ensure_folder_of(state: StateFolder) -> str:
    """Create the state folder ``state`` names (:func:`folder_of`) when missing; returns it.
    Raises ``OSError`` like :func:`ensure_state_folder`."""
    folder = folder_of(state)
    ensure_state_folder(folder)
    return folder
