"""What ``acecode doctor`` says about recall: whether it is on, what it can recall, and
what it did in the last sessions (from the exposure log)."""

from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING

from acecode.text.wording import counted

if TYPE_CHECKING:
    from acecode.project.layer import Layer

LAST_SESSIONS = 20


def summary_lines(layer: Layer, project: str) -> list[str]:
    """A few lines: settings, triggers, and the last sessions' recalls and warnings.
    Nothing is written (the index is built in memory when it is not current)."""
    from acecode.experiments.exposure import read_exposures
    from acecode.recall.index import build

    index = build(project)
    if not index["active"]:
        return ["off here (acecode is off, or the playbook cannot be read): nothing recalled"]
    lines = [_settings(index)]
    failures = {row[5] for row in index["failures"]}
    patterns = {row[4] for row in index["patterns"]}
    lines.append(
        f"{counted(len(index['entries']), 'entry', 'entries')} can be recalled: "
        f"{len(failures)} after a failure like the one they were learned from, "
        f"{len(patterns)} before a call their input pattern names"
    )
    lines.append(last_sessions_line(read_exposures(layer)))
    return lines + _missing_hooks()


def _missing_hooks() -> list[str]:
    """A line per installation made before recall existed: it lacks the tool hooks."""
    from acecode.agents.claude_code.install import HOOK_EVENTS, installations
    from acecode.agents.codex.install import HOOK_EVENTS as CODEX_EVENTS
    from acecode.agents.codex.install import installations as codex_installations

    lines = []
    for found, events, agent in (
        (installations(), HOOK_EVENTS, ""),
        (codex_installations(), CODEX_EVENTS, " --agent codex"),
    ):
        wanted = [hook.event for hook in events if hook.per_call]
        for place in found:
            missing = [event for event in wanted if event not in place.events]
            scope = "" if place.scope == "user" else f" --scope {place.scope}"
            if missing:
                lines.append(
                    f"[warning] {place.path} has no {' or '.join(missing)} hook: run "
                    f"`acecode install{agent}{scope}` again to add them"
                )
    return lines


def _settings(index: dict) -> str:
    after = "on" if index["recall"] else "off (recall = false)"
    before = "on" if index["recall_before"] else "off (recall_before = false)"
    return f"recall after a failed call: {after}; warning before a call: {before}"


def last_sessions_line(records: list[dict]) -> str:
    """What recall did in the last :data:`LAST_SESSIONS` sessions of the exposure log."""
    order: list[str] = []
    for record in records:
        session = record.get("session")
        if isinstance(session, str) and session and session not in order:
            order.append(session)
    recent = set(order[-LAST_SESSIONS:])
    shown: Counter[str] = Counter()
    events: Counter[str] = Counter()
    for record in records:
        if record.get("session") in recent and record.get("event") in ("recall", "warn"):
            events[record["event"]] += 1
            shown.update(str(item).partition("@")[0] for item in record.get("entries") or ())
    span = f"in the last {counted(len(recent), 'session')}"
    if not events:
        return f"{span}: nothing recalled or warned"
    most = ", ".join(f"{name} x{count}" for name, count in shown.most_common(5))
    return (
        f"{span}: {counted(events['recall'], 'recall')} after a failure, "
        f"{counted(events['warn'], 'warning')} before a call ({most})"
    )
