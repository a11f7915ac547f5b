"""Claude Code's auto memory of a project: where it is, whether it is on, what is loaded.

Measured with Claude Code 2.1.197 (docs/claude-code.md): the folder is
``~/.claude/projects/<encoded repository root>/memory/``, named after the git
repository's root (the main worktree's for a linked worktree; the project
folder outside git), so every subfolder and worktree of a repository shares it.
At session start only the first 200 lines of its ``MEMORY.md`` are loaded, and
at most 25,000 bytes of them (whole lines); the topic files beside it are read
by Claude on demand. ``CLAUDE_CODE_DISABLE_AUTO_MEMORY=1`` or
``"autoMemoryEnabled": false`` in the user's, the project's or the local
settings file turns it off.
"""

from __future__ import annotations

import os
from pathlib import Path

from acecode.project import paths

INDEX_NAME = "MEMORY.md"
MAX_LINES = 200
MAX_BYTES = 25_000
DISABLE_VARIABLE = "CLAUDE_CODE_DISABLE_AUTO_MEMORY"
SETTING = "autoMemoryEnabled"
_TRUE = {"1", "true", "yes", "on"}


def repository_root(project: Path) -> Path:
    """The folder Claude Code names the memory after: the main worktree of the git
    repository holding ``project``, else ``project`` itself."""
    folder = project.resolve()
    for candidate in (folder, *folder.parents):
        marker = candidate / ".git"
        if marker.is_dir():
            return candidate
        if marker.is_file():
            return _main_worktree(marker) or candidate
    return folder


def _main_worktree(git_file: Path) -> Path | None:
    """The main worktree of a linked worktree's ``.git`` file (``gitdir: ...``), or None."""
    try:
        line = git_file.read_text(encoding="utf-8").strip()
    except (OSError, UnicodeDecodeError):
        return None
    if not line.startswith("gitdir:"):
        return None
    gitdir = (git_file.parent / line.removeprefix("gitdir:").strip()).resolve()
    try:
        common = (gitdir / (gitdir / "commondir").read_text(encoding="utf-8").strip()).resolve()
    except (OSError, UnicodeDecodeError):
        return None  # a submodule: its own folder is the root
    return common.parent if common.name == ".git" else None


def memory_folder(project: Path) -> Path:
    """``~/.claude/projects/<encoded repository root>/memory`` of ``project``."""
    from acecode.agents.claude_code.sessions import encode_project_path

    root = repository_root(project)
    return paths.user_claude_dir() / "projects" / encode_project_path(root) / "memory"


def disabled_by(project: Path) -> str | None:
    """What turns auto memory off for ``project`` (the variable or the settings file), or
    None when it is on."""
    from acecode.project.config import claude_setting

    if os.environ.get(DISABLE_VARIABLE, "").strip().lower() in _TRUE:
        return f"{DISABLE_VARIABLE}={os.environ[DISABLE_VARIABLE]}"
    value, source = claude_setting(SETTING, project)
    if value is False:
        return f"{SETTING}: false in {source}"
    return None


def loaded_part(text: str) -> str:
    """The part of ``MEMORY.md`` Claude Code loads: the first 200 lines, whole lines
    within 25,000 bytes."""
    kept: list[str] = []
    size = 0
    for line in text.split("\n")[:MAX_LINES]:
        size += len(line.encode("utf-8")) + 1
        if size > MAX_BYTES:
            break
        kept.append(line)
    return "\n".join(kept)


def topic_files(project: Path) -> list[Path]:
    """The notes beside ``MEMORY.md`` (``debugging.md`` ...), sorted; none when absent."""
    folder = memory_folder(project)
    try:
        return sorted(p for p in folder.glob("*.md") if p.name != INDEX_NAME and p.is_file())
    except OSError:
        return []
