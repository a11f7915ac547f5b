"""Finding a project's Claude Code sessions under ``~/.claude/projects``."""

from __future__ import annotations

import re
from pathlib import Path

from acecode import paths

COMPACTION = "agent-acompact-"


def encode_project_path(project: Path) -> str:
    """Claude Code's folder name for a project: the absolute path, ``/`` and ``.`` as ``-``."""
    return re.sub(r"[/.]", "-", str(project.resolve()))


def sessions_dir(project: Path) -> Path:
    """``~/.claude/projects/<encoded project path>``."""
    return paths.user_claude_dir() / "projects" / encode_project_path(project)


def _is_subagent(path: Path) -> bool:
    return path.name.startswith("agent-") or "subagents" in path.parts


def find_sessions(project: Path, *, include_subagents: bool = True) -> list[Path]:
    """The project's transcripts under ``~/.claude/projects``, oldest first."""
    return transcripts_in(sessions_dir(project), include_subagents=include_subagents)


def transcripts_at(path: Path) -> list[Path]:
    """``path`` itself when it is a file, else the transcripts in it and below
    (:func:`transcripts_in`): what a ``--transcripts FILE|FOLDER`` option reads."""
    return [path] if path.is_file() else transcripts_in(path)


def transcripts_in(folder: Path, *, include_subagents: bool = True) -> list[Path]:
    """Every transcript in ``folder`` and below, oldest first (by modification time, then name).

    Main sessions are ``<id>.jsonl``; subagents are ``<id>/subagents/agent-*.jsonl``
    (Claude Code 2.1+) or ``agent-*.jsonl`` beside the sessions (older versions).
    """
    if not folder.is_dir():
        return []
    # agent-acompact-* are Claude Code's compaction helpers: their transcript is
    # the conversation being summarised again, nothing new to learn from.
    found = [
        p for p in folder.rglob("*.jsonl") if p.is_file() and not p.name.startswith(COMPACTION)
    ]
    if not include_subagents:
        found = [p for p in found if not _is_subagent(p.relative_to(folder))]
    return sorted(found, key=lambda p: (p.stat().st_mtime, str(p)))
