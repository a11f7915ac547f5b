"""The one line shown to the user at session start when learning needs them.

Three things deserve the user's eye, and only these: learned rules waiting in
the review queue (they reach no session until approved), a last learning
cycle that failed (nothing is being learned until it is fixed), and rules
the hold-back experiments measured to make their failure more frequent
(:mod:`acecode.experiments`; they wait for the user to look at them). The line goes
into the SessionStart output's ``systemMessage``, which Claude Code shows to
the user (``SessionStart:startup says: ...``) and does not send to the
model. It is shown when a session starts, resumes or is cleared, not after a
compaction, and never on a prompt.

Cheap by design: two small JSON files (the review queue and
:data:`acecode.outcomes.LAST_CYCLE_FILE`), no TOML, no store. Only when
there is something to say is the project's on/off switch read, so that a
project turned off stays silent.
"""

from __future__ import annotations

import json
import os
from typing import Any

from acecode import outcomes
from acecode.hooks.context import state_path

QUEUE_FILE = "pending.json"  # acecode.quarantine.queue.QUEUE_FILE (a test keeps them equal)
REASON_CHARS = 120
SILENT_SOURCES = ("compact",)


def _pending_count(project: str) -> int:
    try:
        with open(state_path(project, QUEUE_FILE), encoding="utf-8") as handle:
            data = json.load(handle)
    except (OSError, ValueError):
        return 0
    pending = data.get("pending") if isinstance(data, dict) else None
    return len(pending) if isinstance(pending, list) else 0


def session_notice(project: str) -> str | None:
    """The line to show, or None when all is well."""
    parts = []
    pending = _pending_count(project)
    if pending:
        rules = "rule awaits" if pending == 1 else "rules await"
        parts.append(f"{pending} learned {rules} review (run `acecode review`)")
    last = outcomes.last_attempt(state_path(project))
    if last is not None and last.get("status") == outcomes.FAILED:
        reason = outcomes.one_line(str(last.get("reason") or "no reason recorded"), REASON_CHARS)
        log = os.path.join(".claude", "acecode", *outcomes.LOG_PARTS)
        parts.append(f"the last learning cycle failed: {reason} (see {log} or `acecode doctor`)")
    hurting = measured_to_hurt(state_path(project))
    if hurting:
        parts.append(hurting)
    if not parts or not _active(project):
        return None
    return "acecode: " + "; ".join(parts)


def measured_to_hurt(state: str) -> str | None:
    """The part of the notice naming the entries the experiments found harmful, or None."""
    from acecode.experiments.classes import HURTS, names_in

    names = names_in(state, HURTS)
    if not names:
        return None
    shown = ", ".join(names[:3]) + (f" and {len(names) - 3} more" if len(names) > 3 else "")
    verb = "makes its failure" if len(names) == 1 else "make their failures"
    return (
        f"{shown} {verb} more frequent in randomised hold-back experiments: review with "
        "`acecode impact --rules`, then `acecode edit` or `acecode forget`"
    )


def _active(project: str) -> bool:
    from pathlib import Path

    from acecode.control import activity

    return activity(Path(project)).active


def with_notice(output: dict[str, Any] | None, project: str, payload: dict) -> dict | None:
    """``output`` (the injection, or None) with the notice as ``systemMessage`` when there
    is one to show for this kind of session start."""
    if payload.get("source") in SILENT_SOURCES:
        return output
    notice = session_notice(project)
    if notice is None:
        return output
    return {**(output or {}), "systemMessage": notice}
