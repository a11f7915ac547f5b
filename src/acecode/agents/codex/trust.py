"""Codex's hook trust: a hook runs only when ``config.toml`` holds the hash of its text.

Codex 0.169 skips an untrusted hook without a word (docs/codex.md). Its
``/hooks`` review writes one table per handler into the user's
``~/.codex/config.toml``::

    [hooks.state."<hooks file>:<event label>:<group>:<handler>"]
    trusted_hash = "sha256:..."

The hash is SHA-256 over compact, key-sorted JSON of the event label, the
group's matcher (ignored for UserPromptSubmit and Stop) and the one handler
with its defaults made explicit. A test checks :func:`hook_trust_hash`
against what the real CLI writes.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

# How Codex names each hook event in its state keys and trust hashes.
EVENT_LABELS = {
    "PreToolUse": "pre_tool_use",
    "PermissionRequest": "permission_request",
    "PostToolUse": "post_tool_use",
    "PreCompact": "pre_compact",
    "PostCompact": "post_compact",
    "SessionStart": "session_start",
    "SessionEnd": "session_end",
    "UserPromptSubmit": "user_prompt_submit",
    "SubagentStart": "subagent_start",
    "SubagentStop": "subagent_stop",
    "Stop": "stop",
}
# Events whose matcher Codex ignores (it hashes them without one).
_NO_MATCHER = {"UserPromptSubmit", "Stop"}
# Events whose handlers may set ``additionalContextLimit`` (tokens; 2,500 by default).
_CONTEXT_EVENTS = {"PreToolUse", "PostToolUse", "SessionStart", "UserPromptSubmit", "SubagentStart"}
DEFAULT_CONTEXT_LIMIT = 2_500


def hook_trust_hash(event: str, group: Mapping[str, Any], handler: Mapping[str, Any]) -> str:
    """The ``trusted_hash`` Codex computes for one command handler of a ``hooks.json`` group.

    Codex hashes a normalised identity: the event's label, the group's matcher
    (none for UserPromptSubmit and Stop) and the one handler with its timeout
    made explicit (600 s by default; SessionEnd 1 s, at most 3) and ``async``
    present; unset fields, and an ``additionalContextLimit`` that is the
    default or that the event does not use, are left out.
    """
    if event == "SessionEnd":
        timeout = min(max(int(handler.get("timeout", 1)), 1), 3)
    else:
        timeout = max(int(handler.get("timeout", 600)), 1)
    normal: dict[str, Any] = {
        "type": "command",
        "command": handler["command"],
        "timeout": timeout,
        "async": bool(handler.get("async", False)),
    }
    if handler.get("statusMessage") is not None:
        normal["statusMessage"] = handler["statusMessage"]
    limit = handler.get("additionalContextLimit")
    if event in _CONTEXT_EVENTS and limit is not None and limit != DEFAULT_CONTEXT_LIMIT:
        normal["additionalContextLimit"] = limit
    identity: dict[str, Any] = {"event_name": EVENT_LABELS[event], "hooks": [normal]}
    if group.get("matcher") is not None and event not in _NO_MATCHER:
        identity["matcher"] = group["matcher"]
    canonical = json.dumps(identity, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return "sha256:" + hashlib.sha256(canonical.encode("utf-8")).hexdigest()


def state_key(hooks_file: Path, event: str, group_index: int, handler_index: int) -> str:
    """The ``[hooks.state]`` key of one handler."""
    return f"{hooks_file}:{EVENT_LABELS[event]}:{group_index}:{handler_index}"


def handler_states(hooks_file: Path, hooks: Mapping[str, Any], only: Any = None) -> dict[str, str]:
    """State key -> trusted hash for the command handlers of ``hooks`` (a ``hooks`` object
    as in ``hooks_file``); with ``only``, just the handlers for which ``only(handler)``."""
    states = {}
    for event, groups in hooks.items():
        if event not in EVENT_LABELS or not isinstance(groups, list):
            continue
        for group_index, group in enumerate(groups):
            handlers = group.get("hooks") if isinstance(group, dict) else None
            for handler_index, handler in enumerate(handlers or ()):
                if not isinstance(handler, dict) or "command" not in handler:
                    continue
                if only is not None and not only(handler):
                    continue
                key = state_key(hooks_file, event, group_index, handler_index)
                states[key] = hook_trust_hash(event, group, handler)
    return states
