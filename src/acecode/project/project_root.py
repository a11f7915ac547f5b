"""Which folder is the project: found the way git finds a repository, from any subfolder.

Claude Code gives its hooks ``$CLAUDE_PROJECT_DIR``, but that is the folder the
session was started in (measured with 2.1.197: ``claude`` started in
``proj/sub`` sets it to ``proj/sub``), not the project's root. Taken as is, a
session or an ``acecode add`` in a subfolder would start a second playbook in
``sub/.claude/``. So the search starts there (or in the current folder) and
walks up to the nearest folder that holds

- a ``.claude`` folder with a playbook, acecode's state or config, or Claude
  Code settings (:data:`CLAUDE_MARKERS`), or
- ``.git``, a folder or a file (worktrees and submodules have a ``.git`` file),

and falls back to where it started when no folder up the tree has either.

The home folder is never a project root and the walk never passes it:
``~/.claude`` is the user's Claude Code folder (user settings, the user layer),
and a dotfiles repository in ``~/.git`` would otherwise make every folder in
the home one project. Git's ``GIT_CEILING_DIRECTORIES`` exists for the same
reason.

Only ``os.path``: the injection hook resolves its project on every prompt and
``pathlib`` alone costs a noticeable share of its budget.
"""

from __future__ import annotations

import os

# What in a ``.claude`` folder makes its parent a project root: acecode's playbook,
# state folder and config, and Claude Code's project settings.
CLAUDE_MARKERS = (
    "playbook.json",
    "acecode",
    "acecode.toml",
    "settings.json",
    "settings.local.json",
)


def _same(first: str, second: str) -> bool:
    return os.path.normcase(first) == os.path.normcase(second)


def is_project_root(folder: str) -> bool:
    """True when ``folder`` holds ``.git`` or a ``.claude`` folder acecode or Claude Code
    uses (see the module docstring)."""
    if os.path.exists(os.path.join(folder, ".git")):
        return True
    claude = os.path.join(folder, ".claude")
    return os.path.isdir(claude) and any(
        os.path.exists(os.path.join(claude, name)) for name in CLAUDE_MARKERS
    )


def find_project_root(start: str, home: str | None = None) -> str:
    """The nearest folder from ``start`` up that :func:`is_project_root`, below ``home``
    (default ``~``); ``start`` itself (absolute) when there is none."""
    start = os.path.abspath(start)
    home = os.path.abspath(home if home is not None else os.path.expanduser("~"))
    folder = start
    while not _same(folder, home):
        if is_project_root(folder):
            return folder
        parent = os.path.dirname(folder)
        if parent == folder:  # the file system's root
            break
        folder = parent
    return start


def resolve_project(payload: dict) -> str:
    """The project root found (:func:`find_project_root`) from ``$CLAUDE_PROJECT_DIR``,
    else from the input's ``cwd`` (Codex sets no variable), else from the current directory.

    Claude Code sets ``CLAUDE_PROJECT_DIR`` to the folder the session started in, a
    subfolder of the project when the user started there; the walk up finds the
    project's root, as ``acecode.project.paths.project_dir`` does for the CLI. The result is
    written back to ``CLAUDE_PROJECT_DIR`` so that everything the hook touches afterwards
    (diagnostics, settings, the background learner) agrees on the same project.
    """
    cwd = payload.get("cwd")
    start = os.environ.get("CLAUDE_PROJECT_DIR") or (cwd if isinstance(cwd, str) else "")
    root = find_project_root(start or os.getcwd())
    os.environ["CLAUDE_PROJECT_DIR"] = root
    return root
