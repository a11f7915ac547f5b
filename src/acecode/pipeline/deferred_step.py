"""The cycle's side of the removals the budget deferred (:mod:`acecode.consolidation.deferred`).

Before the curator: how many removals it may still propose, once the removals
earlier cycles deferred have taken their share (:func:`curator_allowance`).
Inside the playbook transaction: the pending removals go in front of the
curator's operations (:func:`carry_into`), and what the guard defers again,
or had no room for, is kept for the next cycle (:func:`keep_pending`, then
:func:`save_pending` under the same lock).
"""

from __future__ import annotations

from collections.abc import Set
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from acecode.consolidation.deferred import (
    Carried,
    DeferredRemoval,
    carry,
    deferred_removals,
    pending_cost,
)

if TYPE_CHECKING:
    from acecode.pipeline.cycle_report import CycleReport
    from acecode.project.layer import Layer
    from acecode.project.state_folder import StateFolder


def load_pending(state: StateFolder, warnings: list[str] | None = None) -> list[DeferredRemoval]:
    """The removals waiting in the state folder ``state``; none when their file cannot be
    read (said in ``warnings``, when given)."""
    from acecode.store.deferred import DeferredFileError, load_deferred

    try:
        records = load_deferred(state)
    except DeferredFileError as exc:
        if warnings is not None:
            warnings.append(f"{exc}; the removals it deferred are forgotten")
        return []
    return [removal for r in records if (removal := DeferredRemoval.from_dict(r)) is not None]


@dataclass(frozen=True)
class PendingRemovals:
    """The removals waiting beside one layer's playbook, and the names pinned there
    (a removal of a pinned entry is not carried)."""

    removals: list[DeferredRemoval]
    pinned: frozenset[str]

    @classmethod
    def beside(cls, target: Layer, report: CycleReport, pinned: frozenset[str]) -> PendingRemovals:
        """The removals waiting in the layer ``target`` (a problem is a warning on
        ``report``), with the names the cycle read as pinned."""
        return cls(load_pending(target, report.warnings), pinned)


def curator_allowance(
    playbook: dict[str, Any], pending: list[DeferredRemoval], pinned: Set[str], ratio: float
) -> int:
    """Removals the curator may propose this cycle: the budget of ``playbook`` less what
    the pending removals still valid will take first."""
    from acecode.consolidation.guards import removal_limit
    from acecode.playbook.schema import entry_count

    limit = removal_limit(entry_count(playbook), ratio)
    return max(limit - pending_cost(pending, playbook, pinned), 0)


def carry_into(
    operations: list[Any], playbook: dict[str, Any], pending: PendingRemovals
) -> tuple[list[Any], Carried, list[str]]:
    """``operations`` with the pending removals that still apply in front of them, what
    was carried, and one warning per pending removal dropped (with why)."""
    carried = carry(pending.removals, playbook, operations, pending.pinned)
    warnings = [
        f"deferred {removal.describe()} (cycle {removal.cycle_id}) dropped: {why}"
        for removal, why in carried.dropped
    ]
    return [*carried.operations, *operations], carried, warnings


def keep_pending(
    report: CycleReport, deferred: list[dict[str, Any]], playbook: dict[str, Any], carried: Carried
) -> None:
    """Record on ``report`` what the guard ``deferred`` this cycle and every removal left
    for a later one (``report.pending_removals``, what :func:`save_pending` writes)."""
    report.deferred = deferred
    left = [*carried.waiting, *deferred_removals(deferred, playbook, report.cycle_id, carried)]
    report.pending_removals = [removal.as_dict() for removal in left]


def save_pending(state: StateFolder, report: CycleReport) -> None:
    """Write ``report.pending_removals`` beside the playbook (not in a dry run)."""
    from acecode.store.deferred import save_deferred

    if not report.dry_run:
        save_deferred(state, report.pending_removals)
