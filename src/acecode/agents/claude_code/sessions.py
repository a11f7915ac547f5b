"""Finding a project's Claude Code sessions under ``~/.claude/projects``.

Claude Code files a session under the folder it was started in (measured with
2.1.197): a session started in ``proj/sub`` is in ``<encoded proj/sub>``, not
in the project's own ``<encoded proj>``. Such a session used the project's
playbook (acecode finds the project root from any subfolder,
:mod:`acecode.project.project_root`), so it is one of the project's sessions too.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

from acecode.project import paths
from acecode.project.project_root import find_project_root

COMPACTION = "agent-acompact-"
# Lines read from a transcript to find the folder its session was started in.
CWD_LINES = 50


def encode_project_path(project: Path) -> str:
    """Claude Code's folder name for a project: the absolute path with every character but
    an ASCII letter or digit as ``-`` (``/tmp/my_proj.x`` is ``-tmp-my-proj-x``, measured)."""
    return re.sub(r"[^A-Za-z0-9]", "-", str(project.resolve()))


def sessions_dir(project: Path) -> Path:
    """``~/.claude/projects/<encoded project path>``: the sessions started at ``project``."""
    return paths.user_claude_dir() / "projects" / encode_project_path(project)


def session_folders(project: Path) -> list[Path]:
    """The folders of the project's sessions: those started at its root, then those started
    in one of its subfolders.

    The encoding is lossy (``proj-x`` and ``proj/x`` encode alike) and a subfolder may be
    a project of its own (a nested repository), so a folder whose name extends the root's
    counts only when the folder its transcripts record (``cwd``) has this project as root.
    """
    root = sessions_dir(project)
    prefix = f"{root.name}-"
    try:
        others = sorted(p for p in root.parent.iterdir() if p.name.startswith(prefix))
    except OSError:
        others = []
    project_root = os.path.realpath(project)
    return [root] + [
        folder
        for folder in others
        if (cwd := _recorded_cwd(folder)) is not None
        and os.path.realpath(find_project_root(cwd)) == project_root
    ]


def _recorded_cwd(folder: Path) -> str | None:
    """The ``cwd`` that the first transcript of ``folder`` records, or None."""
    try:
        transcript = next(p for p in sorted(folder.glob("*.jsonl")) if p.is_file())
        with transcript.open(encoding="utf-8", errors="replace") as handle:
            lines = [handle.readline() for _ in range(CWD_LINES)]
    except (OSError, StopIteration):
        return None
    for line in lines:
        try:
            record = json.loads(line)
        except ValueError:
            continue
        cwd = record.get("cwd") if isinstance(record, dict) else None
        if isinstance(cwd, str) and cwd:
            return cwd
    return None


def _is_subagent(path: Path) -> bool:
    return path.name.startswith("agent-") or "subagents" in path.parts


def find_sessions(project: Path, *, include_subagents: bool = True) -> list[Path]:
    """The project's transcripts under ``~/.claude/projects`` (:func:`session_folders`),
    oldest first."""
    found = [
        path
        for folder in session_folders(project)
        for path in transcripts_in(folder, include_subagents=include_subagents)
    ]
    return sorted(found, key=lambda p: (p.stat().st_mtime, str(p)))


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
