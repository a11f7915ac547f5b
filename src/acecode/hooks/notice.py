"""The lines shown to the user at session start when acecode needs them.

Every state that stops injection or learning is said here, one line each
naming the file and the fix, because the hook's stderr never reaches the
screen:

- a settings file that cannot be read (``.claude/acecode.toml``, the local
  switch, ``~/.claude/acecode.toml``): acecode is off until it is fixed, so
  this line is shown even where acecode is thereby off;
- a project playbook that cannot be read (nothing is injected or learned) and a
  user layer that cannot be read (its rules are not injected);
- settings acecode ignores (a typo, a wrong type), named by file and key;
- no LLM provider, or a budget that stops learning;
- learned rules waiting in the review queue (they reach no session until
  approved), counted apart from those that wait only for a safety review (the
  next cycle or ``acecode review --retry`` lands the ones it passes), a last
  learning cycle that failed, and rules the hold-back
  experiments measured to make their failure more frequent
  (:mod:`acecode.experiments`; they wait for the user to look at them);
- a project playbook with entries this machine did not write, at first sight,
  and entries that arrived later and are held for review
  (:mod:`acecode.arrivals.announce`).

The lines go into the SessionStart output's ``systemMessage``, which Claude
Code shows to the user (``SessionStart:startup says: ...``) and does not send
to the model. They are shown when a session starts, resumes or is cleared, not
after a compaction, and never on a prompt. Apart from the unreadable settings,
a project where acecode is off stays silent.

Cheap by design: the project's states come with the injection cache
(:mod:`acecode.hooks.rendered`), the user's from their own cache
(:mod:`acecode.hooks.user_checks`), the queue and the last cycle from two
small JSON files; TOML is read only in a project without a playbook that has
settings files of its own.
"""

from __future__ import annotations

import json
import os
from typing import Any

from acecode.project import outcomes
from acecode.project.layer import Layer

QUEUE_FILE = "pending.json"  # acecode.quarantine.queue.QUEUE_FILE (a test keeps them equal)
# The rule of a queued text that waits only for a safety review, and the prefix of its
# variants (acecode.quarantine.unreviewed.NOT_REVIEWED; a test keeps them equal).
NOT_REVIEWED = "not-reviewed"
REASON_CHARS = 120
SILENT_SOURCES = ("compact",)
PREFIX = "acecode: "


def _waits_for_a_review(item: Any) -> bool:
    rule = item.get("rule") if isinstance(item, dict) else None
    return isinstance(rule, str) and (rule == NOT_REVIEWED or rule.startswith(NOT_REVIEWED + ":"))


def _pending_counts(project: str) -> tuple[int, int]:
    """``(texts waiting only for a safety review, texts held for a person)`` in the queue."""
    try:
        with open(Layer.of_project(project).state_file(QUEUE_FILE), encoding="utf-8") as handle:
            data = json.load(handle)
    except (OSError, ValueError):
        return 0, 0
    pending = data.get("pending") if isinstance(data, dict) else None
    if not isinstance(pending, list):
        return 0, 0
    waiting = sum(1 for item in pending if _waits_for_a_review(item))
    return waiting, len(pending) - waiting


def _review_and_failure(project: str, learning_blocked: bool) -> list[str]:
    """Rules awaiting review, and the last cycle's failure unless learning is blocked
    anyway (a missing provider or a budget says more than an older failure)."""
    parts = []
    waiting, pending = _pending_counts(project)
    if pending:
        rules = "rule awaits" if pending == 1 else "rules await"
        parts.append(f"{pending} learned {rules} review (run `acecode review`)")
    if waiting:
        rules = "rule waits" if waiting == 1 else "rules wait"
        parts.append(
            f"{waiting} learned {rules} for the safety review and {'is' if waiting == 1 else 'are'}"
            " not in the playbook yet (the next learning cycle reviews them, or run "
            "`acecode review --retry`)"
        )
    layer = Layer.of_project(project)
    last = outcomes.last_attempt(layer)
    if not learning_blocked and last is not None and last.get("status") == outcomes.FAILED:
        reason = outcomes.one_line(str(last.get("reason") or "no reason recorded"), REASON_CHARS)
        log = os.path.join(".claude", "acecode", *outcomes.LOG_PARTS)
        parts.append(f"the last learning cycle failed: {reason} (see {log} or `acecode doctor`)")
    hurting = measured_to_hurt(layer)
    if hurting:
        parts.append(hurting)
    return parts


def _playbook_lines(start: dict[str, Any]) -> list[str]:
    """What the injection cache says keeps the playbook from the model."""
    lines = []
    if start.get("error"):
        lines.append(
            f"the playbook was not injected and sessions are not learned from: "
            f"{start['error']}; fix the file or move it aside (`acecode doctor`)"
        )
    if start.get("user_layer_error"):
        lines.append(
            f"your user layer was not injected: {start['user_layer_error']}; "
            "fix the file or move it aside (`acecode doctor`)"
        )
    return lines


def _project_config(project: str, start: dict[str, Any] | None) -> dict[str, list[str]]:
    """The project's configuration problems: from the injection cache when the project
    has a playbook, else read now, and only when it has settings files at all."""
    if start is not None:
        return {key: list(start.get(key) or ()) for key in ("config_off", "config_ignored")}
    from acecode.hooks.rendered import switch_files

    local, shared, _user = switch_files(project)
    if not (os.path.exists(local) or os.path.exists(shared)):
        return {"config_off": [], "config_ignored": []}
    from pathlib import Path

    from acecode.project.config_check import as_notices, project_problems

    return as_notices(project_problems(Path(project)))


def session_notice(
    project: str, start: dict[str, Any] | None = None, user: dict[str, Any] | None = None
) -> str | None:
    """The lines to show (see the module docstring), or None when all is well.

    ``start`` is the project's session-start state (``rendered.session_start``),
    None for a project without any playbook; ``user`` the user checks when the hook
    has them already (:func:`acecode.hooks.user_checks.user_notices`).
    """
    from acecode.hooks.user_checks import user_notices

    mine = _project_config(project, start)
    user = user if user is not None else user_notices(project)
    lines = [*mine["config_off"], *user.get("config_off", ())]
    if start is not None:
        lines += _playbook_lines(start)
    learning = list(user.get("learning", ()))
    when_active = [
        *mine["config_ignored"],
        *user.get("config_ignored", ()),
        *learning,
        *_arrivals(project, start),
        *_review_and_failure(project, bool(learning)),
    ]
    if when_active and _active(project, start):
        lines += when_active
    return "\n".join(PREFIX + line for line in lines) if lines else None


def _arrivals(project: str, start: dict[str, Any] | None) -> list[str]:
    """The lines about entries that arrived with the repository (only where some did)."""
    if start is None or not start.get("arrivals"):
        return []
    from acecode.arrivals.announce import arrival_lines

    return arrival_lines(project, start)


def _active(project: str, start: dict[str, Any] | None) -> bool:
    """Whether acecode acts here: the injection cache knows; without switch files it does
    (the hook has checked ``ACECODE_SKIP``); else ask the switches."""
    if start is not None:
        return bool(start.get("active"))
    from acecode.hooks.rendered import switch_files

    if not any(os.path.exists(path) for path in switch_files(project)):
        return True
    from pathlib import Path

    from acecode.project.control import activity

    return activity(Path(project)).active


def measured_to_hurt(state: str) -> str | None:
    """The line naming the entries the hold-back experiments found harmful, or None."""
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


def with_notice(
    output: dict[str, Any] | None,
    project: str,
    payload: dict,
    start: dict[str, Any] | None = None,
    user: dict[str, Any] | None = None,
) -> dict | None:
    """``output`` (the injection, or None) with the notice as ``systemMessage`` when there
    is one to show for this kind of session start (``start``, ``user``: see
    :func:`session_notice`)."""
    if payload.get("source") in SILENT_SOURCES:
        return output
    notice = session_notice(project, start, user)
    if notice is None:
        return output
    return {**(output or {}), "systemMessage": notice}
