"""Where acecode's files live.

Everything project-scoped hangs off ``$CLAUDE_PROJECT_DIR`` (the current
directory when unset), the same root Claude Code gives its hooks, so the CLI,
the hooks and the background learner all agree on one playbook. A library
call names its project instead (:func:`using_project`): a context variable,
so concurrent calls for different projects in one process do not mix.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from pathlib import Path

from acecode.state_folder import STATE_FOLDER_NAME

_project: ContextVar[Path | None] = ContextVar("acecode_project", default=None)


def project_dir() -> Path:
    """The project root: the one of :func:`using_project`, else ``$CLAUDE_PROJECT_DIR``,
    else the current directory."""
    chosen = _project.get()
    if chosen is not None:
        return chosen
    root = os.environ.get("CLAUDE_PROJECT_DIR")
    return Path(root) if root else Path.cwd()


@contextmanager
def using_project(project: Path | None) -> Iterator[None]:
    """Make ``project`` the project root inside the block (None: the environment's)."""
    token = _project.set(project)
    try:
        yield
    finally:
        _project.reset(token)


def claude_dir(project: Path | None = None) -> Path:
    """The project's ``.claude`` folder."""
    return (project or project_dir()) / ".claude"


def playbook_path(project: Path | None = None) -> Path:
    """The default playbook file: ``<project>/.claude/playbook.json``."""
    return claude_dir(project) / "playbook.json"


def state_dir(project: Path | None = None) -> Path:
    """acecode's own state (history, cache, queue, reports): ``.claude/acecode``."""
    return claude_dir(project) / STATE_FOLDER_NAME


def state_dir_for(playbook_file: Path) -> Path:
    """The state folder that belongs beside a given playbook file."""
    return playbook_file.parent / STATE_FOLDER_NAME


def user_claude_dir() -> Path:
    """The user's ``~/.claude`` folder (settings, prompt overrides, sessions)."""
    return Path.home() / ".claude"


def user_state_dir() -> Path:
    """acecode's state across projects (the cost ledger): the platform's user state
    folder, ``~/.local/state/acecode`` on Linux (``$XDG_STATE_HOME`` when set)."""
    import platformdirs  # lazy: the hooks import this module

    return Path(platformdirs.user_state_dir("acecode", appauthor=False))
