"""The curation report: one JSON file per learning cycle saying what happened and why.

Follows the report of the consolidation document with the sections that
apply to acecode: ``processing_summary``, ``integration_actions`` (with
reasons), ``de_duplication_results`` (with similarities),
``playbook_health_metrics``, ``quality_assurance`` (rejected, deferred and
held-for-review operations with reasons), ``warnings`` and ``tokens``.
Built here without any I/O; :mod:`acecode.store.reports` writes it to
``<playbook dir>/acecode/reports/YYYY-MM-DD/curation_<time>_<cycle>.json``.

Typical use in a cycle (inside ``update_playbook``)::

    report = build_report(cycle_id=cid, before=txn.original, after=new_playbook, ...)
    txn.playbook = new_playbook
    txn.meta.update(journal_meta(report))
    ...after the block: write_report(txn.path, report); warn each of report["warnings"]
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from acecode.consolidation.guards import (
    DEFAULT_SHRINK_RATIO,
    GuardResult,
    RemovalBudget,
    collapse_warnings,
)
from acecode.playbook.health import compute_health
from acecode.playbook.operations import OperationOutcome
from acecode.playbook.schema import entry_count
from acecode.playbook.scoring import PRUNE_MIN_HARMFUL
from acecode.store.diff import annotate_removals, count_changes, diff_playbooks

REPORT_VERSION = 1


def _as_dict(item: Any) -> dict[str, Any]:
    """Report form of a record given as a dict or as an object with ``to_dict``/``as_dict``."""
    if isinstance(item, dict):
        return item
    for method in ("to_dict", "as_dict"):
        if hasattr(item, method):
            return getattr(item, method)()
    raise TypeError(f"cannot put {type(item).__name__} in a curation report")


def _original_indices(guard: GuardResult | None, applied_count: int) -> list[int]:
    """Position in the curator's list of each operation that reached ``operations``."""
    if guard is None:
        return list(range(applied_count))
    held = {item["index"] for item in (*guard.deferred, *guard.rejected)}
    total = applied_count + len(held)
    return [index for index in range(total) if index not in held][:applied_count]


def _reason(operations: Sequence[Any], index: int, default: str) -> str:
    op = operations[index] if index < len(operations) else None
    given = op.get("reason") if isinstance(op, dict) else None
    return given.strip() if isinstance(given, str) and given.strip() else default


def _integration_actions(
    operations: Sequence[Any],
    outcomes: Sequence[OperationOutcome],
    indices: list[int],
    pruned: Sequence[tuple[str, dict[str, Any]]],
    bullet_tags: Sequence[dict[str, Any]],
) -> dict[str, list[dict[str, Any]]]:
    actions: dict[str, list[dict[str, Any]]] = {
        "new_entries_added": [],
        "existing_entries_updated": [],
        "entries_merged": [],
        "entries_deleted": [],
        "entries_pruned": [],
        "entries_marked_helpful": [],
        "entries_marked_harmful": [],
    }
    for outcome in outcomes:
        if not outcome.applied:
            continue
        origin = indices[outcome.index] if outcome.index < len(indices) else outcome.index
        base = {"operation_index": origin, "section": outcome.section}
        if outcome.type == "ADD" and outcome.created:
            actions["new_entries_added"].append(
                {
                    **base,
                    "name": outcome.created["name"],
                    "text": outcome.created["text"],
                    "reason": _reason(
                        operations, outcome.index, "new insight; no entry with the same text"
                    ),
                }
            )
        elif outcome.type == "UPDATE" and outcome.updated_after and outcome.updated_before:
            actions["existing_entries_updated"].append(
                {
                    **base,
                    "name": outcome.updated_after["name"],
                    "before": outcome.updated_before["text"],
                    "after": outcome.updated_after["text"],
                    "reason": _reason(operations, outcome.index, "text revised by the curator"),
                }
            )
        elif outcome.type == "MERGE" and outcome.created:
            actions["entries_merged"].append(
                {
                    **base,
                    "name": outcome.created["name"],
                    "text": outcome.created["text"],
                    "sources": [entry["name"] for _, entry in outcome.removed],
                    "reason": _reason(operations, outcome.index, "overlapping entries combined"),
                }
            )
        elif outcome.type == "DELETE" and outcome.removed:
            _, entry = outcome.removed[0]
            actions["entries_deleted"].append(
                {
                    **base,
                    "name": entry["name"],
                    "text": entry["text"],
                    "reason": _reason(operations, outcome.index, "deleted by the curator"),
                }
            )
    for section, entry in pruned:
        actions["entries_pruned"].append(
            {
                "name": entry["name"],
                "section": section,
                "text": entry["text"],
                "helpful": entry["helpful"],
                "harmful": entry["harmful"],
                "reason": f"harmful {entry['harmful']} >= {PRUNE_MIN_HARMFUL} and > helpful "
                f"{entry['helpful']}",
            }
        )
    for tag in bullet_tags:
        key = {"helpful": "entries_marked_helpful", "harmful": "entries_marked_harmful"}.get(
            str(tag.get("tag", "")).strip().lower()
        )
        if key:
            actions[key].append({"name": tag.get("name"), "rationale": tag.get("rationale", "")})
    return actions


def _removals(
    actions: dict[str, list[dict[str, Any]]], groups: list[dict[str, Any]]
) -> dict[str, dict[str, str]]:
    """Why each entry left the playbook, keyed by name (the journal's ``removals``)."""
    removals: dict[str, dict[str, str]] = {}
    for item in actions["entries_deleted"]:
        removals[item["name"]] = {"cause": "delete", "reason": item["reason"]}
    for item in actions["entries_pruned"]:
        removals[item["name"]] = {"cause": "prune", "reason": item["reason"]}
    for item in actions["entries_merged"]:
        for source in item["sources"]:
            removals[source] = {"cause": "merge", "reason": f"merged into {item['name']}"}
    for group in groups:
        for merged in group.get("merged", ()):
            removals[merged["name"]] = {
                "cause": "dedup",
                "reason": f"duplicate of {group.get('kept')} "
                f"(similarity {merged.get('similarity')})",
            }
    return removals


def build_report(
    *,
    cycle_id: str,
    before: dict[str, Any],
    after: dict[str, Any],
    source: str | None = None,
    operations: Sequence[Any] = (),
    outcomes: Sequence[OperationOutcome] = (),
    guard: GuardResult | None = None,
    budget: RemovalBudget | None = None,
    pruned: Sequence[tuple[str, dict[str, Any]]] = (),
    deferred_prunes: Sequence[dict[str, Any]] = (),
    ladder_decisions: Sequence[Any] = (),
    dedup_groups: Sequence[Any] = (),
    dedup_threshold: float | None = None,
    dedup_skipped: str | None = None,
    judge: dict[str, Any] | None = None,
    bullet_tags: Sequence[dict[str, Any]] = (),
    held_for_review: Sequence[dict[str, Any]] = (),
    warnings: Sequence[str] = (),
    tokens: dict[str, Any] | None = None,
    shrink_ratio: float = DEFAULT_SHRINK_RATIO,
    now: datetime | None = None,
) -> dict[str, Any]:
    """The report of one cycle from ``before`` (as loaded) to ``after`` (to be saved).

    ``operations`` is the list handed to ``apply_operations_with_outcomes``
    (``guard.allowed`` when guarded) and ``outcomes`` what it returned;
    ``pruned``/``deferred_prunes`` come from ``prune_within_budget``;
    ``ladder_decisions`` and ``dedup_groups`` are the de-duplicator's records
    (dicts or objects with ``to_dict``); ``judge`` what the judge step did
    (pairs asked, verdicts, new conflicts); ``bullet_tags`` the reflector tags
    applied; ``tokens`` the cycle's token usage. Collapse warnings are
    computed here and added to ``warnings``. The per-cycle counts come from
    the same entry diff the history journal uses, so report and
    ``acecode history`` agree.
    """
    stamp = (now or datetime.now()).astimezone()
    indices = _original_indices(guard, len(operations))
    actions = _integration_actions(operations, outcomes, indices, pruned, bullet_tags)
    ladder = [_as_dict(item) for item in ladder_decisions]
    groups = [_as_dict(item) for item in dedup_groups]
    removals = _removals(actions, groups)
    counts = count_changes(annotate_removals(diff_playbooks(before, after), removals))
    skipped = [
        {
            "index": indices[o.index] if o.index < len(indices) else o.index,
            "type": o.type,
            "operation": operations[o.index] if o.index < len(operations) else None,
            "reason": o.reason,
        }
        for o in outcomes
        if not o.applied
    ]
    rejected = [*(guard.rejected if guard else ()), *skipped]
    deferred = [*(guard.deferred if guard else ()), *deferred_prunes]
    merged_away = sum(len(group.get("merged", ())) for group in groups)
    return {
        "report_version": REPORT_VERSION,
        "cycle_id": cycle_id,
        "curation_timestamp": stamp.isoformat(timespec="seconds"),
        "source": source,
        "processing_summary": {
            "operations_received": len(operations)
            + (len(guard.deferred) + len(guard.rejected) if guard else 0),
            "operations_applied": sum(o.applied for o in outcomes),
            "operations_rejected": len(rejected),
            "operations_deferred": len(guard.deferred) if guard else 0,
            "prunes_deferred": len(deferred_prunes),
            "held_for_review": len(held_for_review),
            "bullet_tags_applied": len(bullet_tags),
            "entries_before": entry_count(before),
            "entries_after": entry_count(after),
        },
        "integration_actions": actions,
        "de_duplication_results": {
            "threshold": dedup_threshold,
            "skipped": dedup_skipped,
            "judge": judge,
            "semantic_matches_found": merged_away
            + sum(1 for item in ladder if item.get("action") != "add"),
            "merges_performed": merged_away,
            "consolidations": groups,
            "ladder_decisions": ladder,
        },
        "playbook_health_metrics": compute_health(after, counts),
        "quality_assurance": {
            "rejected_operations": sorted(rejected, key=lambda item: item["index"]),
            "deferred": deferred,
            "held_for_review": list(held_for_review),
            "removal_budget": budget.as_dict() if budget else None,
        },
        "warnings": [*warnings, *collapse_warnings(before, after, shrink_ratio)],
        "tokens": tokens,
    }


def journal_meta(report: dict[str, Any], kind: str = "learn") -> dict[str, Any]:
    """What to put in ``txn.meta`` so the journal records this cycle like the report does."""
    actions = report["integration_actions"]
    return {
        "cycle_id": report["cycle_id"],
        "kind": kind,
        "source": report["source"],
        "operations": [
            {"action": action, **item} for action, items in actions.items() for item in items
        ],
        "removals": _removals(actions, report["de_duplication_results"]["consolidations"]),
        "deferred": report["quality_assurance"]["deferred"],
        "rejected": report["quality_assurance"]["rejected_operations"],
        "warnings": report["warnings"],
    }
