"""The short lists a learning cycle offers the curator: possibly stale entries and
retire candidates, with the pinned entries that are never offered to retire.

Computed once per cycle before the LLM calls, on the snapshot the curator's
view is cut from. Each list is best effort: a check that cannot run (no
``git``, an unreadable journal) warns and offers nothing, never stopping
the cycle.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from acecode.playbook.curator_view import Listed
from acecode.project import outcomes, paths
from acecode.project.config import Settings
from acecode.project.diagnostics import warn


@dataclass
class CuratorLists:
    """What the curator is offered besides the relevant entries."""

    stale: list[Listed] = field(default_factory=list)
    retire: list[Listed] = field(default_factory=list)
    pinned: frozenset[str] = frozenset()
    # Removals the curator may propose (the cycle's budget less the pending removals);
    # None: the budget of the playbook it is shown.
    max_removals: int | None = None


def curator_lists(target: Path, snapshot: dict[str, Any], settings: Settings) -> CuratorLists:
    """The possibly stale entries and retire candidates of ``snapshot`` (``target``'s)."""
    pinned = pinned_in(target)
    return CuratorLists(
        _stale(target, snapshot), _retire(target, snapshot, settings, pinned), pinned
    )


def pinned_in(target: Path) -> frozenset[str]:
    """The names pinned beside ``target``; a broken pins file warns and pins nothing."""
    from acecode.project.pins import PinsFileError, pins_path, read_pins

    try:
        return frozenset(read_pins(pins_path(target)))
    except PinsFileError as exc:
        warn(str(exc))
        return frozenset()


def _stale(target: Path, snapshot: dict[str, Any]) -> list[Listed]:
    from acecode.staleness import find_stale, project_root_for

    try:
        report = find_stale(snapshot, project_root_for(target))
    except OSError as exc:
        warn(f"stale-rule check skipped: {exc}")
        return []
    return [Listed(entry.name, entry.note()) for entry in report.entries]


def _retire(
    target: Path, snapshot: dict[str, Any], settings: Settings, pinned: frozenset[str]
) -> list[Listed]:
    from acecode.playbook.retire import retire_candidates
    from acecode.store import PlaybookError
    from acecode.store.journal import entries_added_at

    if settings.retire_after_sessions <= 0:
        return []
    records = outcomes.read_outcomes(paths.state_dir_for(target))
    try:
        added = entries_added_at(target)
    except PlaybookError as exc:
        warn(f"retire candidates skipped: {exc}")
        return []
    candidates = retire_candidates(snapshot, records, settings.retire_after_sessions, added, pinned)
    listed = [Listed(candidate.name, candidate.note()) for candidate in candidates]
    return listed + _measured_retire(target, snapshot, pinned, {item.name for item in listed})


def _measured_retire(
    target: Path, snapshot: dict[str, Any], pinned: frozenset[str], listed: set[str]
) -> list[Listed]:
    """The entries the hold-back experiments found to have no measurable effect, with the
    figure as the note (:mod:`acecode.experiments`)."""
    from acecode.experiments.classes import retire_reasons
    from acecode.playbook.schema import iter_entries

    live = {entry["name"] for _section, entry in iter_entries(snapshot)} - pinned - listed
    reasons = retire_reasons(paths.state_dir_for(target), live)
    return [Listed(name, reason) for name, reason in reasons.items()]
