"""Helpers for the hook tests: real ``python -m acecode hook`` subprocesses.

The root conftest already isolates ``HOME`` and the project (``CLAUDE_PROJECT_DIR``);
``run_hook`` adds the hook's stdin and extra environment and returns what
Claude Code would see: exit code, stdout and stderr.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from support.hang_guard import HANG_GUARD, wait_until
from support.playbooks import written_here

ACECODE = [sys.executable, "-m", "acecode"]


@dataclass
class HookRun:
    """The outcome of one hook process."""

    returncode: int
    stdout: str
    stderr: str

    def output(self) -> dict[str, Any]:
        """The JSON object printed for Claude Code."""
        return json.loads(self.stdout)

    def context(self) -> str:
        """The injected ``additionalContext``."""
        return self.output()["hookSpecificOutput"]["additionalContext"]


def run_hook(
    event: str,
    payload: dict[str, Any] | bytes | None = None,
    *,
    env: dict[str, str] | None = None,
    drop_env: tuple[str, ...] = (),
    command: list[str] | None = None,
) -> HookRun:
    """Run ``acecode hook EVENT`` with ``payload`` (a dict is sent as JSON) on stdin."""
    data = payload if isinstance(payload, bytes) else json.dumps(payload or {}).encode()
    full_env = {
        k: v for k, v in os.environ.items() if not k.startswith("ACECODE_") and k not in drop_env
    }
    full_env.update(env or {})
    proc = subprocess.run(
        command or [*ACECODE, "hook", event],
        input=data,
        capture_output=True,
        env=full_env,
        timeout=HANG_GUARD,
    )
    return HookRun(proc.returncode, proc.stdout.decode(), proc.stderr.decode())


def wait_for_line(log: Path, needle: str) -> str:
    """The first line of ``log`` containing ``needle``, once the background learner wrote
    it (waited for within the hang guard only)."""

    def line() -> str | None:
        lines = log.read_text().splitlines() if log.exists() else []
        return next((line for line in lines if needle in line), None)

    return wait_until(
        line, lambda: f"a line with {needle!r} in {log}:\n{log.read_text() if log.exists() else ''}"
    )


def write_playbook(
    project: Path, sections: dict[str, list[dict[str, Any]]], *, arrived: bool = False
) -> Path:
    """Write a sections playbook to ``<project>/.claude/playbook.json``: the user's own
    (its texts recorded as written on this machine), or with ``arrived`` one that came
    with the repository."""
    path = project / ".claude" / "playbook.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"version": "1.0", "sections": sections}), encoding="utf-8")
    return path if arrived else written_here(path)
