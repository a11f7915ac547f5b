"""The tool hooks: a learned entry at the tool call it is about (recall, :mod:`acecode.recall`).

Reached through the fast path (:mod:`acecode.recall.gate`) when a call may match:

- ``PostToolUseFailure`` (Claude Code) and ``PostToolUse`` (Codex, after every
  call: its payload says nothing of failure, so a call counts as failed when its
  output gives a failure trigger's signature): the entries whose failure
  trigger the call matches are *recalled*;
- ``PreToolUse`` (both): the entries with an input pattern the call matches are
  *warned* about before the call runs (Claude Code 2.1.197 shows the text to
  the model with the call's result, Codex as a message before it: docs/claude-code.md).

The answer is ``hookSpecificOutput.additionalContext``: at most two entries in
1,200 characters (:mod:`acecode.recall.reminder`), each entry at most once per
context window (:mod:`acecode.recall.window`), none the running experiment holds
back from this session (:func:`acecode.experiments.serve.held_in_session`).
Every answer is one line of the exposure log (:func:`acecode.experiments.serve.record_recall`).
The call is claimed (:mod:`acecode.hooks.claim`, keyed by its ``tool_use_id``)
just before answering, so however many scopes installed the hook, one answers.
No match, nothing said. Never a block, never an exit code but 0.
"""

from __future__ import annotations

import sys

from acecode.hooks.base import AGENTS, DEFAULT_AGENT, HookInputError, report
from acecode.project.project_root import resolve_project

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing (the tool hooks' hit path)
if TYPE_CHECKING:
    from typing import Any


def handle(
    event: str | None,
    payload: dict | None,
    agent: str,
    problem: str = "",
    index: dict | None = None,
) -> int:
    """Answer one tool event (printing the JSON output, if any); always returns 0.

    ``index`` is the recall index when the caller found it current; else it is read,
    or built, here."""
    try:
        if problem:
            raise HookInputError(f"hook input is not valid JSON ({problem}); nothing done")
        if agent not in AGENTS:
            raise HookInputError(f"unknown agent {agent!r} (known: {', '.join(AGENTS)})")
        if event is None:
            raise HookInputError("unknown tool hook event; nothing done")
        if payload is None:
            return 0
        output = answer(event, payload, agent, index)
        if output is not None:
            from acecode.text.lean_json import dumps

            sys.stdout.write(dumps(output) + "\n")
            sys.stdout.flush()
    except BaseException as exc:  # a hook must never break the session, whatever happened
        report(exc)
    return 0


def _session(payload: dict) -> str:
    session = payload.get("session_id")
    return session if isinstance(session, str) else ""


def _held_back(project: str, payload: dict, agent: str, index: dict[str, Any]) -> set[str]:
    """The entries the hold-back draw keeps from this session (experiments on only)."""
    if not index.get("experiments"):
        return set()
    from acecode.experiments.serve import held_in_session
    from acecode.hooks.rendered import session_start

    return set(held_in_session(session_start(project, agent), _session(payload)))


def answer(
    event: str, payload: dict, agent: str = DEFAULT_AGENT, index: dict | None = None
) -> dict | None:
    """The hook's JSON output for this call, or None (see the module docstring)."""
    from acecode.recall import match
    from acecode.recall.payload import failure_output

    tool = payload.get("tool_name")
    if not isinstance(tool, str) or not tool:
        raise HookInputError(f"{event} input has no tool_name; nothing done")
    tool_input = payload.get("tool_input")
    project = resolve_project(payload)
    if index is None:
        from acecode.recall.index import current_index

        index = current_index(project)
    if not index.get("active"):
        return None
    if event == "PreToolUse":
        if not index.get("recall_before"):
            return None
        cwd = payload.get("cwd") if isinstance(payload.get("cwd"), str) else ""
        kind, found, output = "warn", match.warned(index, tool, tool_input, cwd), ""
    else:
        output = failure_output(payload)
        if not index.get("recall") or not output:
            return None
        kind, found = "recall", match.recalled(index, tool, tool_input, output)
    if not found:
        return None
    return _answer_with(event, kind, payload, agent, project, index, found, output)


def _answer_with(
    event: str,
    kind: str,
    payload: dict,
    agent: str,
    project: str,
    index: dict[str, Any],
    found: list[str],
    output: str,
) -> dict | None:
    """Leave out what this session must not see again (or at all), claim, record, answer."""
    from acecode.hooks.claim import claim
    from acecode.recall.reminder import reminder
    from acecode.recall.window import Window

    held = _held_back(project, payload, agent, index)
    window = Window(project, payload.get("session_id"))
    fresh = [name for name in window.fresh(found) if name not in held]
    if not fresh or not claim(event, payload):
        return None
    entries = index["entries"]
    text, shown = reminder(kind, payload["tool_name"], [(n, entries[n]["text"]) for n in fresh])
    window.add(shown)
    _record(project, kind, payload, agent, index, shown, output)
    return {"hookSpecificOutput": {"hookEventName": event, "additionalContext": text}}


def _record(
    project: str,
    kind: str,
    payload: dict,
    agent: str,
    index: dict[str, Any],
    shown: list[str],
    output: str,
) -> None:
    """One line of the exposure log: the session, the entries and the call's signature."""
    from acecode.experiments.serve import record_recall
    from acecode.project.layer import Layer
    from acecode.recall.match import failure_key

    tool, tool_input = payload["tool_name"], payload.get("tool_input")
    call = payload.get("tool_use_id")
    record_recall(
        Layer.of_project(project),
        {
            "session": _session(payload),
            "agent": agent,
            "event": kind,
            "entries": [f"{name}@{index['entries'][name]['version']}" for name in shown],
            "tool": tool,
            "signature": failure_key(tool, tool_input, output) if output else None,
            "call": call if isinstance(call, str) else None,
            "transcript": payload.get("transcript_path")
            if isinstance(payload.get("transcript_path"), str)
            else None,
        },
    )
