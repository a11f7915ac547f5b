"""Where acecode's files live.

Everything project-scoped hangs off the project root: the folder found from
``$CLAUDE_PROJECT_DIR`` (the current directory when unset) the way git finds a
repository (:mod:`acecode.project.project_root`), the same root the hooks find
(:mod:`acecode.hooks.context`), so the CLI, the hooks and the background learner
all agree on one playbook from any subfolder. A library call names its project
instead (:func:`using_project`): a context variable, so concurrent calls for
different projects in one process do not mix.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from pathlib import Path

from acecode.project.project_root import find_project_root
from acecode.project.state_folder import STATE_FOLDER_NAME

_project: ContextVar[Path | None] = ContextVar("acecode_project", default=None)


def project_dir() -> Path:
    """The project root: the one of :func:`using_project`, else the root found from
    ``$CLAUDE_PROJECT_DIR`` or, when unset, the current directory (see
    :func:`acecode.project.project_root.find_project_root`)."""
    chosen = _project.get()
    if chosen is not None:
        return chosen
    return Path(find_project_root(os.environ.get("CLAUDE_PROJECT_DIR") or os.getcwd()))


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


def user_claude_dir() -> Path:
    """The user's ``~/.claude`` folder (settings, prompt overrides, sessions)."""
    return Path.home() / ".claude"


def user_state_dir() -> Path:
    """acecode's state across projects (the cost ledger): the platform's user state
    folder, ``~/.local/state/acecode`` on Linux (``$XDG_STATE_HOME`` when set)."""
    import platformdirs  # lazy: the hooks import this module

    return Path(platformdirs.user_state_dir("acecode", appauthor=False))
