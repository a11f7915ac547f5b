"""Finding a project's Codex CLI sessions under ``$CODEX_HOME/sessions``.

Codex files every session of every project by date,
``sessions/YYYY/MM/DD/rollout-<start time>-<thread id>.jsonl``; the project is
the ``cwd`` of the file's first record (``session_meta``). A subagent's file
sits beside its parent's and names it in ``source.subagent``.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

# The first record holds the whole system prompt: read it with a generous cap.
_META_LINE_BYTES = 4 * 1024 * 1024


def codex_home() -> Path:
    """``$CODEX_HOME``, else ``~/.codex``."""
    configured = os.environ.get("CODEX_HOME")
    return Path(configured) if configured else Path.home() / ".codex"


def sessions_root() -> Path:
    return codex_home() / "sessions"


def session_meta(path: Path) -> dict[str, Any] | None:
    """The ``session_meta`` payload of a rollout file, or None when it has none."""
    try:
        with path.open("rb") as handle:
            line = handle.readline(_META_LINE_BYTES)
        record = json.loads(line)
    except (OSError, ValueError):
        return None
    if not isinstance(record, dict) or record.get("type") != "session_meta":
        return None
    payload = record.get("payload")
    return payload if isinstance(payload, dict) else None


def _belongs(meta: dict[str, Any], project: Path) -> bool:
    cwd = meta.get("cwd")
    if not isinstance(cwd, str) or not cwd:
        return False
    folder = Path(cwd)
    return folder == project or project in folder.parents


def find_sessions(project: Path, *, include_subagents: bool = True) -> list[Path]:
    """The project's rollout files (sessions started in it or below), oldest first."""
    root = sessions_root()
    if not root.is_dir():
        return []
    project = project.resolve()
    found = []
    for path in root.rglob("rollout-*.jsonl"):
        meta = session_meta(path)
        if meta is None or not _belongs(meta, project):
            continue
        if not include_subagents and isinstance(meta.get("source"), dict):
            continue
        found.append(path)
    return sorted(found, key=lambda p: (p.stat().st_mtime, str(p)))
