"""The lines about entries that arrived: at first sight, while they are reviewed, when the
review is done, and once per newly held entry.

The injection cache carries the counts and the held entries
(``start["arrivals"]``, :meth:`acecode.arrivals.split.Split.summary`); what the
user has been told is kept in ``<state folder>/arrival-notice.json``::

    {"version": 1, "held": ["<short fingerprint>", ...], "reviewing": true, "done": false}

- The first session that starts where entries arrived (the file does not exist
  yet: a fresh clone, or the first time this machine sees a teammate's entries
  after the upgrade) says how many entries the playbook has and how many
  arrived; with an LLM provider, that they are being reviewed in the background
  and injected as the review passes them (and how many the floor holds, or are
  not screened yet); without one, that the floor alone screened them and how
  many it holds.
- Once the background review has answered for all of them, the next prompt
  (:func:`progress_line`, shown with the top-up) or session start says how many
  passed and how many are held; a review that stopped (a budget, a failed call)
  is said at the next session start.
- Later sessions say one line when entries are held that were not announced
  before (a pull brought them), and nothing otherwise.

Cheap: one small JSON file read, and only where entries arrived.
"""

from __future__ import annotations

from typing import Any

from acecode.hooks.cache_files import read_cache_file, write_cache_file
from acecode.project.layer import Layer

NOTICE_NAME = "arrival-notice.json"
VERSION = 1
REVIEW = "(`acecode review`)"
JOB_STATE_NAME = "arrival-review.json"  # acecode.pipeline.arrival_review.STATE_NAME


def _rules(count: int) -> str:
    return f"{count} rule" if count == 1 else f"{count} rules"


def _were(count: int) -> str:
    return "was" if count == 1 else "were"


def first_sight_line(
    entries: int,
    arrived: int,
    held: int,
    reviewing: int = 0,
    unscreened: int = 0,
    need_review: bool = False,
) -> str:
    """What the first session start says about a playbook with arrived entries."""
    lead = f"its {_rules(entries)}" if arrived == entries else f"{arrived} of its {_rules(entries)}"
    head = f"this project's playbook came with the repository: {lead} {_were(arrived)} not "
    if not need_review:
        outcome = f"{held} held for review and not injected" if held else "none is held"
        later = f"; {unscreened} not screened yet (held until then)" if unscreened else ""
        return (
            f"{head}written on this machine and {_were(arrived)} screened by the floor alone "
            f"(no LLM provider is configured to review them); {outcome} {REVIEW}{later}"
        )
    parts = [f"{head}written on this machine"]
    waiting = reviewing + unscreened
    if waiting:
        parts.append(
            f"{waiting} {'is' if waiting == 1 else 'are'} being reviewed by your LLM in the "
            "background and injected as the review passes them"
        )
    if unscreened:
        parts.append(f"{unscreened} not screened yet")
    if held:
        parts.append(f"{held} held for review and not injected {REVIEW}")
    return "; ".join(parts)


def done_line(arrived: int, injected: int, held: int) -> str:
    """What is said once the background review has answered for every arrived entry."""
    outcome = f"{held} held for review and not injected {REVIEW}" if held else "none is held"
    return (
        f"the review of the {_rules(arrived)} that arrived with the repository is done: "
        f"{injected} {_were(injected)} passed and {'is' if injected == 1 else 'are'} injected, "
        f"{outcome}"
    )


def stopped_line(waiting: int, reason: str) -> str:
    """What a session start says when the background review stopped before the end."""
    return (
        f"{_rules(waiting)} that arrived with the repository {'waits' if waiting == 1 else 'wait'}"
        f" for the LLM review, which stopped: {reason}; {'it is' if waiting == 1 else 'they are'}"
        " not injected, and the next session tries again"
    )


def reviewing_line(waiting: int) -> str:
    """What a session start says when newly arrived entries wait for the review."""
    return (
        f"{_rules(waiting)} that arrived with the repository {'is' if waiting == 1 else 'are'}"
        " being reviewed by your LLM in the background and injected as the review passes them"
    )


def later_line(held: int) -> str:
    """What a session start says about entries held since the last announcement."""
    verb = "is" if held == 1 else "are"
    return (
        f"{_rules(held)} that arrived with the repository {verb} held for review and "
        f"not injected {REVIEW}"
    )


def _tags(info: dict[str, Any]) -> list[str]:
    held = [item for item in info.get("held") or () if isinstance(item, list) and item]
    return [str(item[0]) for item in held]


def _waiting(info: dict[str, Any]) -> int:
    return int(info.get("reviewing") or 0) + int(info.get("unscreened") or 0)


def _stopped(project: str) -> str:
    """The reason the last background review stopped, or ""."""
    state = read_cache_file(Layer.of_project(project).state_file(JOB_STATE_NAME)) or {}
    return str(state.get("reason") or "") if state.get("state") == "stopped" else ""


def arrival_lines(project: str, start: dict[str, Any] | None) -> list[str]:
    """The lines to show at a session start, if any, recording what they announced (see
    the module docstring); ``start`` is the project's session-start state."""
    info = (start or {}).get("arrivals")
    if not isinstance(info, dict) or not info.get("arrived"):
        return []
    tags = _tags(info)
    path = Layer.of_project(project).state_file(NOTICE_NAME)
    seen = read_cache_file(path)
    waiting = _waiting(info)
    if seen is None or seen.get("version") != VERSION:
        write_cache_file(
            path,
            {"version": VERSION, "held": sorted(set(tags)), "reviewing": bool(waiting)},
        )
        line = first_sight_line(
            int(info.get("entries") or 0),
            int(info["arrived"]),
            len(tags),
            int(info.get("reviewing") or 0),
            int(info.get("unscreened") or 0),
            bool(info.get("need_review")),
        )
        return [line]
    lines = _progress(path, seen, info)
    announced = {tag for tag in seen.get("held") or () if isinstance(tag, str)}
    new = [tag for tag in tags if tag not in announced]
    if waiting and info.get("need_review"):
        stopped = _stopped(project)
        if stopped:
            lines.append(stopped_line(waiting, stopped))
        elif not seen.get("reviewing") or seen.get("done"):
            lines.append(reviewing_line(waiting))  # a pull brought entries to review
            seen = {**seen, "reviewing": True, "done": False}
            write_cache_file(path, seen)
    if new and not lines:
        lines.append(later_line(len(new)))
    if new:
        record = read_cache_file(path) or seen
        write_cache_file(path, {**record, "held": sorted(announced | set(tags))})
    return lines


def progress_line(project: str, info: dict[str, Any] | None) -> str | None:
    """The line a prompt's top-up shows once the background review it announced is done
    (None otherwise), recorded so that it is said once."""
    if not isinstance(info, dict) or not info.get("arrived"):
        return None
    path = Layer.of_project(project).state_file(NOTICE_NAME)
    seen = read_cache_file(path)
    if seen is None or seen.get("version") != VERSION:
        return None
    lines = _progress(path, seen, info)
    return lines[0] if lines else None


def _progress(path: str, seen: dict[str, Any], info: dict[str, Any]) -> list[str]:
    """The done line when a review was announced and nothing waits any more."""
    if not seen.get("reviewing") or seen.get("done") or _waiting(info):
        return []
    tags = _tags(info)
    announced = {tag for tag in seen.get("held") or () if isinstance(tag, str)}
    write_cache_file(path, {**seen, "done": True, "held": sorted(announced | set(tags))})
    arrived = int(info["arrived"])
    return [done_line(arrived, int(info.get("injected") or 0), len(tags))]
