"""Context-collapse guards: one cycle must not wipe out what many cycles learned.

The consolidation document lists the signs of collapse (the playbook
shrinking fast, texts getting shorter and vaguer) and the counter-measures
implemented here:

* a removal budget per cycle: DELETE + prune + merge-away may remove at most
  ``max_removal_ratio`` of the entries the cycle started with. The excess is
  *deferred* (not applied, reported with its reason), never silently dropped;
* a MERGE whose text is much shorter than its longest source loses detail and
  is *rejected* (reported with its reason);
* warnings when the playbook shrinks by more than ``shrink_ratio`` or its
  average text length falls by more than ``LENGTH_DROP_RATIO`` in one cycle.

Rounding of the budget: ``floor(entries * ratio)``, but at least 1 whenever
the ratio is positive and the playbook is not empty, so a small playbook can
still lose one wrong entry per cycle; a ratio of 0 forbids every removal.

Cost of an operation: DELETE of an existing entry costs 1; MERGE of N valid
sources costs N - 1 (N entries become one); a pruned entry costs 1; ADD and
UPDATE cost nothing. Operations naming entries that do not exist cost
nothing and pass through, so ``operations`` skips them with its usual reason.

Pure: plain dicts and lists in, new ones out; nothing is mutated.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from acecode.playbook.operations import MAX_OPERATIONS
from acecode.playbook.schema import SECTION_NAMES, entry_count, isolated_copy, iter_entries
from acecode.playbook.scoring import should_prune
from acecode.text.wording import counted

DEFAULT_MAX_REMOVAL_RATIO = 0.10
DEFAULT_SHRINK_RATIO = 0.20
DEFAULT_MIN_MERGE_RATIO = 0.6
# The average text length "falls sharply" when it drops by more than a quarter
# in one cycle: a normal cycle of at most 10 edits over dozens of entries
# moves the average by a few percent.
LENGTH_DROP_RATIO = 0.25


def removal_limit(entries: int, max_removal_ratio: float = DEFAULT_MAX_REMOVAL_RATIO) -> int:
    """How many entries a cycle starting with ``entries`` entries may remove."""
    ratio = min(max(max_removal_ratio, 0.0), 1.0)
    if entries <= 0 or ratio == 0.0:
        return 0
    # The epsilon keeps float noise (0.29 * 100 = 28.999...) from losing one.
    return max(1, math.floor(entries * ratio + 1e-9))


@dataclass
class RemovalBudget:
    """Removals left in one cycle, shared by the curator operations and pruning."""

    start_entries: int
    limit: int
    max_removal_ratio: float
    used: int = 0

    @classmethod
    def for_playbook(
        cls, playbook: dict[str, Any], max_removal_ratio: float = DEFAULT_MAX_REMOVAL_RATIO
    ) -> RemovalBudget:
        """The budget of a cycle that starts from ``playbook``."""
        start = entry_count(playbook)
        return cls(start, removal_limit(start, max_removal_ratio), max_removal_ratio)

    @property
    def remaining(self) -> int:
        """Removals still allowed in this cycle."""
        return max(self.limit - self.used, 0)

    def take(self, cost: int) -> bool:
        """Spend ``cost`` removals if they fit; False (nothing spent) otherwise."""
        if cost > self.remaining:
            return False
        self.used += cost
        return True

    def exhausted_reason(self, cost: int) -> str:
        """Why a removal of ``cost`` entries was deferred, for the report."""
        return (
            f"removal budget exhausted: this cycle may remove at most {self.limit} of "
            f"{counted(self.start_entries, 'entry')} ({self.max_removal_ratio:.0%}), "
            f"{self.remaining} left, this needs {cost}; deferred to a later cycle"
        )

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready form for the report."""
        return {
            "start_entries": self.start_entries,
            "limit": self.limit,
            "used": self.used,
            "max_removal_ratio": self.max_removal_ratio,
        }


def merge_keeps_detail(
    merged_text: str, source_texts: Sequence[str], min_ratio: float = DEFAULT_MIN_MERGE_RATIO
) -> bool:
    """True when ``merged_text`` is at least ``min_ratio`` as long as the longest source.

    Lengths are in characters after stripping. A merge that squeezes detailed
    entries into a short generic line is the typical start of collapse.
    """
    longest = max((len(text.strip()) for text in source_texts), default=0)
    return len(merged_text.strip()) >= min_ratio * longest


@dataclass
class GuardResult:
    """Curator operations split by the guards.

    ``allowed`` is what to pass to ``apply_operations_with_outcomes`` (in the
    original order); ``deferred`` exceeded the removal budget; ``rejected``
    would lose detail. Each deferred/rejected item is
    ``{"index", "type", "operation", "reason"}`` with ``index`` the position in
    the curator's list.
    """

    allowed: list[dict[str, Any]] = field(default_factory=list)
    deferred: list[dict[str, Any]] = field(default_factory=list)
    rejected: list[dict[str, Any]] = field(default_factory=list)


def _held(index: int, op: Any, reason: str) -> dict[str, Any]:
    op_type = op.get("type") if isinstance(op, dict) else None
    return {"index": index, "type": op_type, "operation": op, "reason": reason}


def _valid_names(names: Any, texts: dict[str, str]) -> list[str]:
    """The distinct names of ``names`` that exist in the simulated playbook."""
    if not isinstance(names, list):
        return []
    return list(dict.fromkeys(name for name in names if isinstance(name, str) and name in texts))


def _detail_lost(merged_text: str, source_texts: list[str], min_ratio: float) -> str | None:
    """The rejection reason when a merge loses detail, else None."""
    if merge_keeps_detail(merged_text, source_texts, min_ratio):
        return None
    longest = max(len(text.strip()) for text in source_texts)
    return (
        f"merged text loses detail: {len(merged_text.strip())} characters for sources of up "
        f"to {longest} (must keep at least {min_ratio:.0%}); merge skipped"
    )


def guard_operations(
    playbook: dict[str, Any],
    operations: Any,
    budget: RemovalBudget,
    min_merge_ratio: float = DEFAULT_MIN_MERGE_RATIO,
    limit: int = MAX_OPERATIONS,
) -> GuardResult:
    """Split ``operations`` into allowed, deferred (over budget) and rejected (lost detail).

    Operations are considered in order against a simulation of which entries
    exist, so a DELETE of an entry an earlier allowed MERGE already removed
    costs nothing. Spends ``budget`` for the allowed removals. Only the first
    ``limit`` are considered, as ``operations`` would; the rest are
    rejected with that reason so the report shows them. Anything that is not
    a list is treated as no operations.
    """
    result = GuardResult()
    if not isinstance(operations, list):
        return result
    texts = {entry["name"]: entry["text"] for _, entry in iter_entries(playbook)}
    for index, op in enumerate(operations[:limit]):
        op_type = op.get("type") if isinstance(op, dict) else None
        if op_type == "DELETE":
            doomed = _valid_names([op.get("target_id")], texts)
            cost = len(doomed)
        elif op_type == "MERGE":
            doomed = _valid_names(op.get("source_ids"), texts)
            merged_text = op.get("merged_text")
            if len(doomed) < 2 or not isinstance(merged_text, str) or not merged_text.strip():
                doomed = []  # operations will skip it with its own reason
            elif lost := _detail_lost(
                merged_text, [texts[name] for name in doomed], min_merge_ratio
            ):
                result.rejected.append(_held(index, op, lost))
                continue
            cost = max(len(doomed) - 1, 0)
        else:
            doomed, cost = [], 0
        if not budget.take(cost):
            result.deferred.append(_held(index, op, budget.exhausted_reason(cost)))
            continue
        for name in doomed:
            del texts[name]
        result.allowed.append(op)
    for index, op in enumerate(operations[limit:], start=limit):
        result.rejected.append(
            _held(index, op, f"beyond the limit of {limit} operations per cycle")
        )
    return result


def prune_within_budget(
    playbook: dict[str, Any], budget: RemovalBudget
) -> tuple[dict[str, Any], list[tuple[str, dict[str, Any]]], list[dict[str, Any]]]:
    """``prune_harmful`` limited by ``budget``: the most harmful entries go first.

    Returns the new playbook, the pruned ``(section, entry)`` pairs and the
    deferred candidates as ``{"name", "section", "helpful", "harmful",
    "reason"}``. A deferred entry still meets the prune rule, so a later
    cycle prunes it when the budget allows. ``playbook`` is not mutated.
    """
    candidates = [
        (section, entry) for section, entry in iter_entries(playbook) if should_prune(entry)
    ]
    candidates.sort(key=lambda pair: pair[1]["helpful"] - pair[1]["harmful"])
    pruned: list[tuple[str, dict[str, Any]]] = []
    deferred: list[dict[str, Any]] = []
    for section, entry in candidates:
        if budget.take(1):
            pruned.append((section, entry))
        else:
            deferred.append(
                {
                    "name": entry["name"],
                    "section": section,
                    "helpful": entry["helpful"],
                    "harmful": entry["harmful"],
                    "reason": budget.exhausted_reason(1),
                }
            )
    if not pruned:
        return playbook, [], deferred
    doomed = {entry["name"] for _, entry in pruned}
    result = isolated_copy(playbook)
    for section in SECTION_NAMES:
        result["sections"][section] = [
            entry for entry in result["sections"][section] if entry["name"] not in doomed
        ]
    return result, pruned, deferred


def _average_length(entries: Iterable[tuple[str, dict[str, Any]]]) -> tuple[int, float]:
    lengths = [len(entry["text"]) for _, entry in entries]
    return len(lengths), (sum(lengths) / len(lengths) if lengths else 0.0)


def collapse_warnings(
    before: dict[str, Any],
    after: dict[str, Any],
    shrink_ratio: float = DEFAULT_SHRINK_RATIO,
    length_drop_ratio: float = LENGTH_DROP_RATIO,
) -> list[str]:
    """One-line warnings when the cycle from ``before`` to ``after`` looks like collapse.

    Shrink: the entry count fell by more than ``shrink_ratio`` of ``before``.
    Detail: the average text length fell by more than ``length_drop_ratio``
    (only judged when both playbooks have entries).
    """
    warnings = []
    count_before, avg_before = _average_length(iter_entries(before))
    count_after, avg_after = _average_length(iter_entries(after))
    if count_before and (count_before - count_after) / count_before > shrink_ratio:
        share = (count_before - count_after) / count_before
        warnings.append(
            f"playbook shrank by {share:.0%} in one cycle ({count_before} -> {count_after} "
            f"entries, warning above {shrink_ratio:.0%}): possible context collapse"
        )
    if count_before and count_after and avg_after < avg_before * (1 - length_drop_ratio):
        drop = 1 - avg_after / avg_before
        warnings.append(
            f"average entry length fell by {drop:.0%} in one cycle ({avg_before:.0f} -> "
            f"{avg_after:.0f} characters, warning above {length_drop_ratio:.0%}): "
            "entries may be losing detail"
        )
    return warnings
