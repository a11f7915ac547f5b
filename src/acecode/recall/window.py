"""Once per context window: an entry recall showed is not shown again until the context ends.

The session's ``<marker>.recalled`` file (:mod:`acecode.hooks.markers`) lists the
entries recall or a pre-call warning showed in the session's current context, one
name a line. A new context window (a compaction, which fires ``SessionStart``
with ``source: compact``) starts the session's marker again and removes this
file (:mod:`acecode.hooks.inject`), so what was summarised away may be shown
again. Without a session id nothing is remembered and nothing is held back.
"""

from __future__ import annotations

import os

from acecode.hooks.markers import RECALLED_SUFFIX, marker_file


class Window:
    """What recall showed in one session's current context."""

    def __init__(self, project: str, session_id: object) -> None:
        marker = marker_file(project, session_id)
        self.path = marker + RECALLED_SUFFIX if marker else None

    def shown(self) -> set[str]:
        if self.path is None:
            return set()
        try:
            with open(self.path, encoding="utf-8") as handle:
                return {line.strip() for line in handle if line.strip()}
        except OSError:
            return set()

    def fresh(self, names: list[str]) -> list[str]:
        """``names`` without those already shown in this context, in order."""
        shown = self.shown()
        return [name for name in names if name not in shown]

    def add(self, names: list[str]) -> None:
        """Remember ``names`` as shown; best effort (a read-only folder shows them again)."""
        if self.path is None or not names:
            return
        try:
            from acecode.project.state_folder import ensure_state_folder

            folder = os.path.dirname(self.path)
            ensure_state_folder(os.path.dirname(folder))
            os.makedirs(folder, exist_ok=True)
            with open(self.path, "a", encoding="utf-8") as handle:
                handle.write("".join(f"{name}\n" for name in names))
        except OSError:
            return
