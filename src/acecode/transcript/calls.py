"""One-line descriptions of tool calls: the arguments a reviewer needs to follow along.

A file-writing call with a 40 kB body tells a reviewer nothing the path does
not, while the command of a shell call or the pattern of a search is the whole
point. Each agent therefore lists its tools' key arguments
(:attr:`acecode.agents.base.ToolClasses.describe`); unknown tools (MCP
servers, new built-ins) fall back to their scalar arguments.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from acecode.transcript.text import clip, one_line

# Arguments shown with a size instead of their text.
_SIZE_ONLY = ("content", "new_source", "edits", "todos")
# A written file's body is shown by its size and its first lines, which say what it is.
_PREVIEWED = {"content"}
PREVIEW_LINES = 3
PREVIEW_CHARS = 160


def _preview(text: str) -> str:
    """``<752 chars, 31 lines: 'name: CI ⏎ on: ⏎ push:'>``: a body's size and first lines."""
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    head = clip(" ⏎ ".join(lines[:PREVIEW_LINES]), PREVIEW_CHARS, 0.0)
    count = len(text.splitlines())
    return f"<{len(text)} chars, {count} line{'' if count == 1 else 's'}: {head!r}>"


def _format_value(value: Any, limit: int) -> str:
    if isinstance(value, str):
        return repr(clip(one_line(value), limit))
    if isinstance(value, list):
        if value and all(isinstance(item, dict) for item in value):
            questions = [str(item.get("question") or item.get("content") or "") for item in value]
            joined = "; ".join(q for q in questions if q)
            if joined:
                return repr(clip(one_line(joined), limit))
        return f"[{len(value)} items]"
    if isinstance(value, dict):
        return "{" + f"{len(value)} keys" + "}"
    return repr(value)


def describe_call(
    name: str, tool_input: Any, key_args: Mapping[str, tuple[str, ...]], arg_limit: int = 300
) -> str:
    """``Bash(command='pytest -x')``: the call with its key arguments (``key_args[name]``,
    else its scalar ones), each clipped to ``arg_limit``."""
    if not isinstance(tool_input, dict):
        return f"{name}()"
    keys = key_args.get(name)
    if keys is None:
        keys = tuple(k for k, v in tool_input.items() if not isinstance(v, dict | list))[:6]
    parts = [
        f"{key}={_format_value(tool_input[key], arg_limit)}"
        for key in keys
        if key in tool_input and tool_input[key] not in (None, "", False)
    ]
    for key in _SIZE_ONLY:
        value = tool_input.get(key)
        if isinstance(value, str) and key in _PREVIEWED and value.strip():
            parts.append(f"{key}={_preview(value)}")
        elif isinstance(value, str):
            parts.append(f"{key}=<{len(value)} chars>")
        elif isinstance(value, list):
            parts.append(f"{key}=<{len(value)} items>")
    return f"{name}({', '.join(parts)})"
