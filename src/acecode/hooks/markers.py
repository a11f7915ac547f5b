"""Where a session's markers live: ``.claude/acecode/sessions/<session id>``.

The marker (:mod:`acecode.hooks.inject`) names what the session's current context
holds; ``<marker>.recalled`` (:mod:`acecode.recall.window`) what recall showed in
it. Both end with the context: a new ``SessionStart`` (a compaction, ``/clear``)
rewrites the one and removes the other.
"""

from __future__ import annotations

import os

from acecode.project.layer import Layer

RECALLED_SUFFIX = ".recalled"


def marker_file(project: str, session_id: object) -> str | None:
    """The marker file of a session, or None when the input names no session."""
    if not isinstance(session_id, str) or not session_id.strip():
        return None
    safe = "".join(c if c.isalnum() or c in "-_." else "_" for c in session_id.strip())
    folder = Layer.of_project(project).state_file("sessions")
    return os.path.join(folder, safe.lstrip(".")[:128] or "_")
