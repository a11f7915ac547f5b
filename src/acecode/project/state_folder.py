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
