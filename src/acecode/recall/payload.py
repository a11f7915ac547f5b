"""What a tool hook's payload says about the call, for the fast path and the full hook.

Imports nothing: :mod:`acecode.recall.gate` reads it on every tool call.
"""

from __future__ import annotations


def failure_output(payload: dict) -> str:
    """The failed call's output: Claude Code's ``error`` (``PostToolUseFailure``), Codex's
    ``tool_response`` (``PostToolUse``, the output text); "" when there is none."""
    for key in ("error", "tool_response"):
        value = payload.get(key)
        if isinstance(value, str) and value:
            return value
    return ""
