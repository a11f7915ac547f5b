"""The short lists a learning cycle offers the curator: possibly stale entries and
retire candidates, with the pinned entries that are never offered to retire.

Computed once per cycle before the LLM calls, on the snapshot the curator's
view is cut from. Each list is best effort: a check that cannot run (no
``git``, an unreadable journal) warns and offers nothing, never stopping
the cycle.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from acecode.playbook.curator_view import Listed
from acecode.project import outcomes
from acecode.project.config import Settings
from acecode.project.diagnostics import warn

if TYPE_CHECKING:
    from acecode.project.layer import Layer


@dataclass
class CuratorLists:
    """What the curator is offered besides the relevant entries."""

    stale: list[Listed] = field(default_factory=list)
    retire: list[Listed] = field(default_factory=list)
    pinned: frozenset[str] = frozenset()
    # Removals the curator may propose (the cycle's budget less the pending removals);
    # None: the budget of the playbook it is shown.
    max_removals: int | None = None


def curator_lists(
    target: Layer, snapshot: dict[str, Any], settings: Settings, pinned: frozenset[str]
) -> CuratorLists:
    """The possibly stale entries and retire candidates of ``snapshot`` (``target``'s),
    none of the ``pinned`` ones offered to retire."""
    return CuratorLists(
        _stale(target, snapshot), _retire(target, snapshot, settings, pinned), pinned
    )


def pinned_in(target: Layer) -> frozenset[str]:
    """The names pinned in the layer ``target``; a broken pins file warns and pins nothing."""
    from acecode.project.pins import PinsFileError, pins_file, read_pins

    try:
        return frozenset(read_pins(pins_file(target)))
    except PinsFileError as exc:
        warn(str(exc))
        return frozenset()


def _stale(target: Layer, snapshot: dict[str, Any]) -> list[Listed]:
    from acecode.staleness import find_stale, project_root_for

    try:
        report = find_stale(snapshot, project_root_for(target))
    except OSError as exc:
        warn(f"stale-rule check skipped: {exc}")
        return []
    return [Listed(entry.name, entry.note()) for entry in report.entries]


def _retire(
    target: Layer, snapshot: dict[str, Any], settings: Settings, pinned: frozenset[str]
) -> list[Listed]:
    from acecode.playbook.retire import retire_candidates
    from acecode.store import PlaybookError
    from acecode.store.journal import entries_added_at

    if settings.retire_after_sessions <= 0:
        return []
    records = outcomes.read_outcomes(target)
    try:
        added = entries_added_at(target)
    except PlaybookError as exc:
        warn(f"retire candidates skipped: {exc}")
        return []
    candidates = retire_candidates(snapshot, records, settings.retire_after_sessions, added, pinned)
    listed = [Listed(candidate.name, candidate.note()) for candidate in candidates]
    return listed + _measured_retire(target, snapshot, pinned, {item.name for item in listed})


def _measured_retire(
    target: Layer, snapshot: dict[str, Any], pinned: frozenset[str], listed: set[str]
) -> list[Listed]:
    """The entries the hold-back experiments found to have no measurable effect, with the
    figure as the note (:mod:`acecode.experiments`)."""
    from acecode.experiments.classes import retire_reasons
    from acecode.playbook.schema import iter_entries

    live = {entry["name"] for _section, entry in iter_entries(snapshot)} - pinned - listed
    reasons = retire_reasons(target, live)
    return [Listed(name, reason) for name, reason in reasons.items()]
