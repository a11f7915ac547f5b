"""Where a hook's project and acecode's files are, as plain strings.

These use ``os.path`` (a layer's files are named by :class:`acecode.project.layer.Layer`,
which does too): ``pathlib`` alone costs a noticeable share of the injection hook's budget.
"""

from __future__ import annotations

import os


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
