"""The user's own record of failures, project by project: what recurs, and what was learned.

After each learning cycle acecode notes, in one small file of the user layer's
state folder (``~/.claude/acecode-user/acecode/failures.json``), the failure
signatures of the session it read (:mod:`acecode.impact.signature`) and the
entries it linked to each. Nothing else is kept: no command, no output, no
transcript path, so a project's record never shows another project's code.
Two things read it:

* the curator is told, for each failure the reflector's findings name,
  whether an entry of either layer was already learned from it (reinforce
  that entry instead of adding a near-duplicate) and whether it recurred in
  earlier sessions of this project or in other projects without one
  (:mod:`acecode.habits.notes`);
* a failure learned in two or more projects becomes a user-layer entry, met in
  every project (:mod:`acecode.habits.promote`).

Format::

    {"version": 1,
     "projects": {"<project root>": {"<key>": {"sessions": ["<id>", ...], "last": "<iso>",
                                               "entries": ["mis-002"]}}},
     "promoted": {"<key>": "u-mis-001"}}

``<key>`` is a signature with every shell tool under one name
(:func:`family_key`): Claude Code's ``Bash`` and Codex's ``exec_command`` fail
the same way. Session ids are kept (at most :data:`MAX_SESSIONS` per
signature), so learning a session again counts it once. A project keeps its
:data:`MAX_SIGNATURES` most recent signatures. Reading never raises (a missing
file is empty, a damaged one a warning and empty); writing holds the file's
lock and replaces it atomically.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from acecode.impact.signature import SHELL_TOOLS, FailureSignature

RECORD_NAME = "failures.json"
RECORD_VERSION = 1
MAX_SESSIONS = 20
MAX_SIGNATURES = 400
LOCK_TIMEOUT = 10.0
SHELL_FAMILY = "shell"


def family_key(signature: FailureSignature) -> str:
    """The record's key of a signature: ``shell | git push | fatal: ...``."""
    tool = SHELL_FAMILY if signature.tool in SHELL_TOOLS else signature.tool
    return " | ".join((tool, signature.head, signature.error))


def record_file() -> Path:
    """The record, in the user layer's state folder."""
    from acecode.project.layer import Layer

    return Layer.user().file(RECORD_NAME)


@dataclass
class FailureRecord:
    """The whole file in memory."""

    projects: dict[str, dict[str, dict[str, Any]]] = field(default_factory=dict)
    promoted: dict[str, str] = field(default_factory=dict)

    def history(self, project: str, key: str) -> Recurrence:
        """What the record knows about ``key``: here and in the user's other projects."""
        here = self.projects.get(project, {}).get(key, {})
        others = [
            (root, seen[key])
            for root, seen in self.projects.items()
            if root != project and key in seen
        ]
        return Recurrence(
            sessions_here=list(here.get("sessions") or ()),
            entries_here=list(here.get("entries") or ()),
            projects_seen=len(others),
            projects_learned=sum(1 for _, item in others if item.get("entries")),
            promoted=self.promoted.get(key, ""),
        )

    def to_json(self) -> str:
        data = {"version": RECORD_VERSION, "projects": self.projects, "promoted": self.promoted}
        return json.dumps(data, indent=1, ensure_ascii=False, sort_keys=True) + "\n"


@dataclass(frozen=True)
class Recurrence:
    """A failure's history: the sessions of this project that hit it, the entries this
    project learned from it, how many other projects hit it and learned from it."""

    sessions_here: list[str]
    entries_here: list[str]
    projects_seen: int
    projects_learned: int
    promoted: str


def parse_record(text: str) -> FailureRecord:
    """The record in ``text``; ``ValueError`` with one line when it is not one."""
    data = json.loads(text)
    if not isinstance(data, dict) or data.get("version") != RECORD_VERSION:
        raise ValueError("not a version 1 failure record")
    projects = data.get("projects")
    promoted = data.get("promoted") or {}
    if not isinstance(projects, dict) or not isinstance(promoted, dict):
        raise ValueError("'projects' and 'promoted' must be objects")
    record = FailureRecord()
    for root, seen in projects.items():
        if isinstance(root, str) and isinstance(seen, dict):
            record.projects[root] = {
                key: item for key, item in seen.items() if isinstance(item, dict)
            }
    record.promoted = {k: v for k, v in promoted.items() if isinstance(v, str)}
    return record


def load_record(path: Path | None = None) -> FailureRecord:
    """The record on disk; empty when missing, a one-line warning and empty when damaged."""
    from acecode.project.diagnostics import warn

    path = path or record_file()
    try:
        return parse_record(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return FailureRecord()
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        warn(f"{path}: failure record unreadable, read as empty ({exc})")
        return FailureRecord()


def note_session(
    project: str,
    session: str,
    seen: Iterable[FailureSignature],
    learned: Mapping[str, Iterable[str]],
    path: Path | None = None,
) -> FailureRecord:
    """Add one session's failures (``seen``) and the entries linked to them (``learned``,
    by :func:`family_key`) to the record of ``project``; returns the record written."""
    from acecode.store.atomic import atomic_write_text
    from acecode.store.lock import exclusive_lock

    path = path or record_file()
    path.parent.mkdir(parents=True, exist_ok=True)
    now = datetime.now().astimezone().isoformat(timespec="seconds")
    with exclusive_lock(path, LOCK_TIMEOUT):
        record = load_record(path)
        failures = record.projects.setdefault(project, {})
        for key in dict.fromkeys([*map(family_key, seen), *learned]):
            item = failures.setdefault(key, {"sessions": [], "entries": []})
            sessions = [s for s in item.get("sessions") or () if s != session]
            item["sessions"] = [*sessions, session][-MAX_SESSIONS:]
            entries = list(item.get("entries") or ())
            item["entries"] = list(dict.fromkeys([*entries, *learned.get(key, ())]))
            item["last"] = now
        if len(failures) > MAX_SIGNATURES:
            newest = sorted(failures, key=lambda k: str(failures[k].get("last")), reverse=True)
            record.projects[project] = {k: failures[k] for k in newest[:MAX_SIGNATURES]}
        atomic_write_text(path, record.to_json())
    return record


def mark_promoted(key: str, entry: str, path: Path | None = None) -> None:
    """Remember that the failure ``key`` became the user-layer entry ``entry``."""
    from acecode.store.atomic import atomic_write_text
    from acecode.store.lock import exclusive_lock

    path = path or record_file()
    with exclusive_lock(path, LOCK_TIMEOUT):
        record = load_record(path)
        record.promoted[key] = entry
        atomic_write_text(path, record.to_json())
