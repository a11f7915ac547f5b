"""The session-start lines about entries that arrived: once at first sight, then once per
newly held entry.

The injection cache carries the counts and the held entries
(``start["arrivals"]``, :meth:`acecode.arrivals.split.Split.summary`); what the
user has been told is kept in ``<state folder>/arrival-notice.json``::

    {"version": 1, "held": ["<short fingerprint>", ...]}

- The first session that starts where entries arrived (the file does not exist
  yet: a fresh clone, or the first time this machine sees a teammate's entries
  after the upgrade) says how many entries the playbook has, how many arrived,
  how many of those are held, and ``acecode review``.
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


def _rules(count: int) -> str:
    return f"{count} rule" if count == 1 else f"{count} rules"


def first_sight_line(entries: int, arrived: int, held: int) -> str:
    """What the first session start says about a playbook with arrived entries."""
    lead = f"its {_rules(entries)}" if arrived == entries else f"{arrived} of its {_rules(entries)}"
    verb = "was" if arrived == 1 else "were"
    outcome = f"{held} held for review and not injected" if held else "none is held"
    return (
        f"this project's playbook came with the repository: {lead} {verb} not written on "
        f"this machine and {verb} screened; {outcome} {REVIEW}"
    )


def later_line(held: int) -> str:
    """What a session start says about entries held since the last announcement."""
    verb = "is" if held == 1 else "are"
    return (
        f"{_rules(held)} that arrived with the repository {verb} held for review and "
        f"not injected {REVIEW}"
    )


def arrival_lines(project: str, start: dict[str, Any] | None) -> list[str]:
    """The line to show now, if any, recording what it announced (see the module
    docstring); ``start`` is the project's session-start state."""
    info = (start or {}).get("arrivals")
    if not isinstance(info, dict) or not info.get("arrived"):
        return []
    held = [item for item in info.get("held") or () if isinstance(item, list) and item]
    tags = [str(item[0]) for item in held]
    path = Layer.of_project(project).state_file(NOTICE_NAME)
    seen = read_cache_file(path)
    if seen is None or seen.get("version") != VERSION:
        write_cache_file(path, {"version": VERSION, "held": sorted(set(tags))})
        return [first_sight_line(int(info.get("entries") or 0), int(info["arrived"]), len(held))]
    announced = {tag for tag in seen.get("held") or () if isinstance(tag, str)}
    new = [tag for tag in tags if tag not in announced]
    if not new:
        return []
    write_cache_file(path, {"version": VERSION, "held": sorted(announced | set(tags))})
    return [later_line(len(new))]
