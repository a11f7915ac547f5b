"""``acecode hook <event>``: Claude Code's hook contract, kept cheap and harmless.

Claude Code runs these commands with one JSON object on stdin. Two rules shape
this package:

- Never break the session. Exit code 2 would block the user's prompt, so every
  path returns 0; problems become one ``acecode: ...`` line on stderr (and a
  diagnostic file in diagnostic mode).
- Stay cheap. The injection hooks run at every session start and the first
  prompt, so this module imports only ``sys`` at import time (``json`` where it
  reads or writes, so the tool hooks, :mod:`acecode.hooks.tools`, never load
  it); the store, the settings and ``subprocess`` are imported by the code
  paths that need them.

And one more: act once per event. acecode may be installed in several settings
files and as a plugin, and Claude Code runs every copy; the first process
claims the event (:mod:`acecode.hooks.claim`) and the others exit silently.
"""

from __future__ import annotations

import sys

from acecode.hooks.base import AGENTS, DEFAULT_AGENT, HookInputError, report
from acecode.project.session_switch import NESTED_ENV, session_skipped

# The hook events acecode handles (both agents use these names) and the argument
# acecode's commands use for each. Which of them each agent installs is its own
# ``hook_events`` (acecode.agents).
EVENT_ARGUMENTS: dict[str, str] = {
    "SessionStart": "session-start",
    "UserPromptSubmit": "user-prompt-submit",
    "PreCompact": "pre-compact",
    "SessionEnd": "session-end",
    "SubagentStop": "subagent-stop",
    "PreToolUse": "pre-tool-use",
    "PostToolUseFailure": "post-tool-use-failure",
    "PostToolUse": "post-tool-use",
}
# Recall's events (acecode.recall): they go through the tool hooks' fast path
# (acecode.recall.gate), which claims a call only when it answers.
TOOL_EVENTS = ("PreToolUse", "PostToolUseFailure", "PostToolUse")


def _canonical(name: str) -> str:
    """``session-start``, ``SessionStart`` and ``session_start`` all fold to one key."""
    return name.replace("-", "").replace("_", "").lower()


_EVENT_BY_KEY = {_canonical(event): event for event in EVENT_ARGUMENTS}


def _read_payload() -> dict:
    """The hook input object; ``{}`` for an empty or interactive stdin."""
    stream = sys.stdin
    if stream is None or stream.isatty():
        return {}
    raw = stream.buffer.read() if hasattr(stream, "buffer") else stream.read().encode()
    text = raw.decode("utf-8", errors="replace").strip()
    if not text:
        return {}
    import json

    try:
        payload = json.loads(text)
    except ValueError as exc:
        raise HookInputError(f"hook input is not valid JSON ({exc}); nothing done") from None
    if not isinstance(payload, dict):
        raise HookInputError(
            f"hook input is a JSON {type(payload).__name__}, expected an object; nothing done"
        )
    return payload


# Event -> handler in ``inject`` (the first two) or ``learn``. The modules are
# imported on use, so an injection never loads the learning code or vice versa.
INJECTION_EVENTS = ("SessionStart", "UserPromptSubmit")
_HANDLERS: dict[str, str] = {
    "SessionStart": "on_session_start",
    "UserPromptSubmit": "on_user_prompt_submit",
    "PreCompact": "on_pre_compact",
    "SessionEnd": "on_session_end",
    "SubagentStop": "on_subagent_stop",
}


def _dispatch(event: str, payload: dict, agent: str) -> dict | None:
    """Run the event's handler; its return value is the JSON output, if any."""
    if event in INJECTION_EVENTS:
        from acecode.hooks import inject

        return getattr(inject, _HANDLERS[event])(payload, agent)
    from acecode.hooks import learn

    return getattr(learn, _HANDLERS[event])(payload)


def _split_agent(argv: list[str]) -> tuple[list[str], str]:
    """``argv`` without ``--agent NAME`` (or ``--agent=NAME``), and the name (default
    Claude Code). Parsed by hand: the hook must not import an argument parser."""
    rest, agent = [], DEFAULT_AGENT
    words = iter(argv)
    for word in words:
        if word == "--agent":
            agent = next(words, agent)
        elif word.startswith("--agent="):
            agent = word.partition("=")[2]
        else:
            rest.append(word)
    return rest, agent


def run_hook(argv: list[str]) -> int:
    """Run one hook event; always returns 0 (see the module docstring).

    ``argv[0]`` names the event (``session-start`` or ``SessionStart`` style);
    without it the input's ``hook_event_name`` is used. ``--agent NAME`` says
    which agent calls (default Claude Code; Codex's hooks pass ``codex``). Output for Claude Code,
    if any, is one JSON object on stdout.
    """
    skipped = session_skipped()
    if skipped == NESTED_ENV:  # one of acecode's own runs: not a word
        return 0
    argv, agent = _split_agent(argv)
    if argv and _EVENT_BY_KEY.get(_canonical(argv[0])) in TOOL_EVENTS:
        from acecode.recall.gate import run

        return run([argv[0], "--agent", agent])
    try:
        if agent not in AGENTS:
            raise HookInputError(f"unknown agent {agent!r} (known: {', '.join(AGENTS)})")
        payload = _read_payload()
        name = argv[0] if argv else str(payload.get("hook_event_name") or "")
        event = _EVENT_BY_KEY.get(_canonical(name))
        if event is None:
            known = ", ".join(EVENT_ARGUMENTS.values())
            raise HookInputError(f"unknown hook event {name!r} (known: {known}); nothing done")
        if skipped and event in (*INJECTION_EVENTS, *TOOL_EVENTS):
            return 0  # ACECODE_SKIP: no injection; the learning hooks log why they skip
        if event in TOOL_EVENTS:  # named by the input only: the full tool hook
            from acecode.hooks.tools import handle

            return handle(event, payload, agent)
        from acecode.hooks.claim import claim

        if not claim(event, payload):
            return 0  # another installed copy of this hook handles the event
        output = _dispatch(event, payload, agent)
        if output is not None:
            import json

            sys.stdout.write(json.dumps(output) + "\n")
            sys.stdout.flush()
    except BaseException as exc:  # a hook must never break the session, whatever happened
        report(exc)
    return 0
