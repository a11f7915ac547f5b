"""Injection: the playbook as ``additionalContext`` once per context window.

``SessionStart`` fires for every new context (``startup``, ``resume``,
``clear``) and after every compaction (``compact``), when what was injected
earlier has been summarised away, so it always injects. ``UserPromptSubmit``
is the fallback for a session whose ``SessionStart`` hook did not run: it
injects on the first prompt of a session without a marker and never again.

Markers live in ``.claude/acecode/sessions/<session id>``. Any hook that
handles a session writes one, and markers older than ``MARKER_MAX_AGE`` are
removed then. A project without a playbook gets no markers at all, so
installing acecode for every project leaves no trace where it has nothing to
say.
"""

from __future__ import annotations

import os
import time

from acecode.hooks.context import playbook_file, resolve_project, state_path
from acecode.hooks.rendered import injection_text
from acecode.state_folder import ensure_state_folder

MARKER_MAX_AGE = 3 * 24 * 3600  # seconds


def _marker_dir(project: str) -> str:
    return state_path(project, "sessions")


def _marker(project: str, session_id: object) -> str | None:
    """The marker file of a session, or None when the input names no session."""
    if not isinstance(session_id, str) or not session_id.strip():
        return None
    safe = "".join(c if c.isalnum() or c in "-_." else "_" for c in session_id.strip())
    return os.path.join(_marker_dir(project), safe.lstrip(".")[:128] or "_")


def _remove_stale_markers(folder: str, now: float) -> None:
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return
    for entry in entries:
        try:
            if entry.is_file() and now - entry.stat().st_mtime > MARKER_MAX_AGE:
                os.unlink(entry.path)
        except OSError:
            continue


def _mark(marker: str | None, source: str) -> None:
    """Record that this session's context has been handled; best effort."""
    if marker is None:
        return
    folder = os.path.dirname(marker)
    try:
        ensure_state_folder(os.path.dirname(folder))  # git-ignored before anything is in it
        os.makedirs(folder, exist_ok=True)
        with open(marker, "w", encoding="utf-8") as handle:
            handle.write(source + "\n")
    except OSError:
        return
    _remove_stale_markers(folder, time.time())


def _context_output(event: str, text: str) -> dict | None:
    if not text:
        return None
    return {"hookSpecificOutput": {"hookEventName": event, "additionalContext": text}}


def _safe_injection(project: str) -> str:
    """The text to inject, or ``""`` with one stderr line when the playbook is unusable."""
    try:
        return injection_text(project)
    except Exception as exc:
        # Imported here, not above: importing the store costs more than the cache hit saves.
        from acecode.store.errors import PlaybookError

        if not isinstance(exc, PlaybookError):
            raise
        from acecode.diagnostics import diagnose, warn

        warn(f"{exc}; the playbook was not injected")
        diagnose("injection_skipped", str(exc))
        return ""


def on_session_start(payload: dict) -> dict | None:
    """Inject at every new or compacted context and mark the session as served."""
    project = resolve_project(payload)
    if not os.path.exists(playbook_file(project)):
        return None
    source = payload.get("source")
    _mark(_marker(project, payload.get("session_id")), f"SessionStart:{source}")
    return _context_output("SessionStart", _safe_injection(project))


def on_user_prompt_submit(payload: dict) -> dict | None:
    """Inject on a session's first prompt unless SessionStart already did."""
    project = resolve_project(payload)
    marker = _marker(project, payload.get("session_id"))
    if marker is None or os.path.exists(marker):
        return None
    if not os.path.exists(playbook_file(project)):
        return None
    _mark(marker, "UserPromptSubmit")
    return _context_output("UserPromptSubmit", _safe_injection(project))
