"""Helpers for the recall tests: learned entries with provenance, and the tool hooks run as
Claude Code and Codex run them (real subprocesses, the command ``acecode install`` writes)."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from hooks.hook_helpers import HookRun, run_hook, write_playbook
from support.playbooks import MIS, entry

# What `acecode install` writes for the tool hooks (acecode.agents.hooks_file.tool_hook_command).
GATE = [sys.executable, "-P", "-c", "from acecode.recall.gate import main; main()"]

NPM_ERROR = (
    'Exit code 1\nnpm error Missing script: "test"\nnpm error\n'
    "npm error To see a list of scripts, run:\nnpm error   npm run\n"
)
NPM_RULE = "This project has no npm test script: run the tests with `make check`."


def failure_origin(tool: str, command: str, error: str, **extra: Any) -> dict[str, Any]:
    """A provenance origin learned from a failed call, in the file's format."""
    return {
        "cycle_id": "c1",
        "at": "2026-01-01T00:00:00+00:00",
        "how": "learned",
        "agent": "claude-code",
        "session": "s-old",
        "reason": "it failed",
        "evidence": {"kind": "failure", "tool": tool, "command": command, "error": error},
        **extra,
    }


def write_provenance(layer_folder: Path, origins: dict[str, list[dict[str, Any]]]) -> None:
    """``<layer>/acecode/provenance.json`` with ``origins`` per entry name."""
    path = layer_folder / "acecode" / "provenance.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    entries = {name: {"origins": found} for name, found in origins.items()}
    path.write_text(json.dumps({"version": 1, "entries": entries}), encoding="utf-8")


def learned(
    project: Path,
    entries: dict[str, tuple[str, list[dict[str, Any]]]],
    section: str = MIS,
) -> Path:
    """A project playbook whose entries (name -> (text, origins)) were learned here."""
    path = write_playbook(
        project, {section: [entry(name, text, 1) for name, (text, _) in entries.items()]}
    )
    write_provenance(project / ".claude", {name: found for name, (_, found) in entries.items()})
    return path


def tool_payload(project: Path, event: str, tool: str, tool_input: dict, **fields: Any) -> dict:
    """A tool hook's payload as Claude Code 2.1.197 sends it (docs/claude-code.md)."""
    return {
        "session_id": fields.pop("session_id", "s-new"),
        "transcript_path": str(project / "t.jsonl"),
        "cwd": fields.pop("cwd", str(project)),
        "permission_mode": "default",
        "hook_event_name": event,
        "tool_name": tool,
        "tool_input": tool_input,
        "tool_use_id": fields.pop("tool_use_id", "toolu_1"),
        **fields,
    }


def gate(event: str, payload: dict | bytes, env: dict[str, str] | None = None) -> HookRun:
    """The tool hook as installed: ``<python> -P -c "...gate..." EVENT``."""
    return run_hook(event, payload, env=env, command=[*GATE, event])


def context_of(run: HookRun) -> str:
    """The hook's additionalContext; "" when it answered nothing."""
    assert run.returncode == 0, run.stderr
    return run.context() if run.stdout.strip() else ""
