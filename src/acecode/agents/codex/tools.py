"""Codex CLI's tools: the key arguments that describe each call (docs/codex.md)."""

from __future__ import annotations

from typing import Any

from acecode.transcript.calls import describe_call

_KEY_ARGS: dict[str, tuple[str, ...]] = {
    "exec_command": ("cmd", "workdir"),
    "shell": ("command", "workdir"),
    "write_stdin": ("session_id", "chars"),
    "view_image": ("path",),
    "web_search": ("query",),
    "spawn_agent": ("agent_type", "message"),
    "send_input": ("message",),
    "request_user_input": ("questions",),
}


def describe_codex_call(name: str, tool_input: Any, arg_limit: int = 300) -> str:
    """``exec_command(cmd='pytest -x')``; a patch shows the files it touches."""
    if name == "apply_patch" and isinstance(tool_input, dict):
        patch = str(tool_input.get("input") or "")
        files = [
            line.removeprefix("*** ").strip()
            for line in patch.splitlines()
            if line.startswith(("*** Add File:", "*** Update File:", "*** Delete File:"))
        ]
        shown = "; ".join(files) or "(no file headers)"
        described = {"files": shown, "size": f"{len(patch)} chars"}
        return describe_call(name, described, {name: ("files", "size")}, arg_limit)
    return describe_call(name, tool_input, _KEY_ARGS, arg_limit)
