"""The users the CLI tests run `python -m acecode` as, built once for every test module.

A fixture cannot be shared by importing it into another test module (ruff calls the
parameter a redefinition), so the modules share these builders and keep one small
fixture each.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from test_cli_commands import ENTRY, run

from acecode.store import save_playbook


def fresh_user(project: Path, scratch: Path) -> dict[str, str]:
    """A fresh home's environment in ``project``: no provider, no `claude` on PATH,
    nothing of the developer's ``ACECODE_``/``AGENTIC_`` settings."""
    values = {k: v for k, v in os.environ.items() if not k.startswith(("ACECODE_", "AGENTIC_"))}
    values.update(
        {
            "CLAUDE_PROJECT_DIR": str(project),
            "COLUMNS": "300",
            "PATH": os.pathsep.join([str(scratch / "empty-bin"), str(Path(sys.executable).parent)]),
        }
    )
    return values


def set_up_user(project: Path, scratch: Path) -> dict[str, str]:
    """A user with a provider (a closed local port) and acecode's hooks installed, in a
    project with a one-entry playbook: the setup doctor calls "all good"."""
    values = {
        **fresh_user(project, scratch),
        "AGENTIC_CONTEXT_API_KEY": "sk-test",
        "AGENTIC_CONTEXT_BASE_URL": "http://127.0.0.1:9",
    }
    save_playbook(
        {"sections": {"PATTERNS & APPROACHES": [ENTRY]}}, project / ".claude" / "playbook.json"
    )
    run("install", env=values)
    return values
