"""Where a hook's project and acecode's files are, as plain strings.

These mirror ``acecode.paths`` (a test keeps them equal) but use ``os.path``:
``pathlib`` alone costs a noticeable share of the injection hook's budget.
"""

from __future__ import annotations

import os


def resolve_project(payload: dict) -> str:
    """``$CLAUDE_PROJECT_DIR``, else the input's ``cwd``, else the current directory.

    The result is written back to ``CLAUDE_PROJECT_DIR`` so that everything the
    hook touches afterwards (diagnostics, settings, the background learner)
    agrees on the same project.
    """
    cwd = payload.get("cwd")
    root = os.environ.get("CLAUDE_PROJECT_DIR") or (cwd if isinstance(cwd, str) else "")
    root = os.path.abspath(root or os.getcwd())
    os.environ["CLAUDE_PROJECT_DIR"] = root
    return root


def playbook_file(project: str) -> str:
    """``<project>/.claude/playbook.json``."""
    return os.path.join(project, ".claude", "playbook.json")


def state_path(project: str, *parts: str) -> str:
    """A path under acecode's state folder ``<project>/.claude/acecode``."""
    return os.path.join(project, ".claude", "acecode", *parts)


def user_template_override(name: str) -> str:
    """``~/.claude/prompts/<name>``, the user's override of a packaged template."""
    return os.path.join(os.path.expanduser("~"), ".claude", "prompts", name)


def has_playbook(project: str) -> bool:
    """True when the project's playbook or the user layer (``acecode.layers``) exists."""
    from acecode.layers import user_playbook_file

    return os.path.exists(playbook_file(project)) or os.path.exists(user_playbook_file())
