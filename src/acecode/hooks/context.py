"""Where a hook's project and acecode's files are, as plain strings.

These use ``os.path`` (a layer's files are named by :class:`acecode.project.layer.Layer`,
which does too): ``pathlib`` alone costs a noticeable share of the injection hook's budget.
"""

from __future__ import annotations

import os

from acecode.project.project_root import find_project_root


def resolve_project(payload: dict) -> str:
    """The project root found (:mod:`acecode.project.project_root`) from ``$CLAUDE_PROJECT_DIR``,
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


def user_template_override(name: str) -> str:
    """``~/.claude/prompts/<name>``, the user's override of a packaged template."""
    return os.path.join(os.path.expanduser("~"), ".claude", "prompts", name)


def has_playbook(project: str) -> bool:
    """True when the project's playbook or the user layer (``acecode.project.layers``) exists."""
    from acecode.project.layer import Layer
    from acecode.project.layers import user_playbook_file

    return os.path.exists(Layer.of_project(project).playbook) or os.path.exists(
        user_playbook_file()
    )
