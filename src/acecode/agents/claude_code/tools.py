"""Claude Code's tools: the key arguments that describe each call."""

from __future__ import annotations

from typing import Any

from acecode.transcript.calls import describe_call

# Key arguments per tool, in display order.
_KEY_ARGS: dict[str, tuple[str, ...]] = {
    # The command says what a shell call does; its ``description`` only repeats it.
    "Bash": ("command", "run_in_background"),
    "BashOutput": ("bash_id", "filter"),
    "KillBash": ("shell_id",),
    "KillShell": ("shell_id",),
    "Read": ("file_path", "offset", "limit", "pages"),
    "Write": ("file_path",),
    "Edit": ("file_path", "old_string", "new_string", "replace_all"),
    "MultiEdit": ("file_path",),
    "NotebookEdit": ("notebook_path", "cell_id", "edit_mode"),
    "Glob": ("pattern", "path"),
    "Grep": ("pattern", "path", "glob", "type", "output_mode"),
    "LS": ("path",),
    "Task": ("subagent_type", "description", "prompt"),
    "Agent": ("subagent_type", "description", "prompt"),
    "WebFetch": ("url", "prompt"),
    "WebSearch": ("query",),
    "Skill": ("skill", "command"),
    "SlashCommand": ("command",),
    "AskUserQuestion": ("questions",),
    "ExitPlanMode": ("plan",),
}


def describe_tool_call(name: str, tool_input: Any, arg_limit: int = 300) -> str:
    """``Bash(command='pytest -x')``: a Claude Code call with its key arguments, each clipped."""
    return describe_call(name, tool_input, _KEY_ARGS, arg_limit)
