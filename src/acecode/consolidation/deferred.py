"""Removals the budget deferred, carried from cycle to cycle until they fit.

The removal budget (:mod:`acecode.consolidation.guards`) defers a curator's
DELETE or MERGE that would remove more entries than one cycle may. Deferred
must not mean forgotten: the cycle keeps each such operation, with the texts
of the entries it removes, beside the playbook
(:mod:`acecode.store.deferred`), and every later cycle puts the ones still
valid in front of its own curator's operations, where the guard admits them
as the budget allows. A carried removal is dropped, with its reason, when an
entry it removes is gone or was changed, was pinned since, or is named by the
new curator's own operations (the newer decision wins).

Pure: plain dicts and lists in, new ones out.
"""

from __future__ import annotations

from collections.abc import Sequence, Set
from dataclasses import dataclass, field
from typing import Any

from acecode.playbook.curator_view import operation_ids
from acecode.playbook.operations import MAX_OPERATIONS
from acecode.playbook.schema import iter_entries

# Marks an operation carried from an earlier cycle with the cycle that proposed it.
CARRIED_FROM = "deferred_from"


def describe_operation(operation: dict[str, Any]) -> str:
    """``DELETE pat-003`` or ``MERGE pat-004+pat-005``: a removal by the entries it names."""
    return f"{operation.get('type')} {'+'.join(map(str, operation_ids(operation)))}"


@dataclass(frozen=True)
class DeferredRemoval:
    """One deferred DELETE or MERGE: the operation as the curator gave it, the texts of
    the entries it removes when it was deferred, and the cycle that proposed it."""

    operation: dict[str, Any]
    texts: dict[str, str]
    cycle_id: str

    @property
    def cost(self) -> int:
        """Entries it removes: 1 for a DELETE, N - 1 for a MERGE of N."""
        return max(len(self.texts) - 1, 0) if self.operation.get("type") == "MERGE" else 1

    def describe(self) -> str:
        """``DELETE pat-003`` or ``MERGE pat-004+pat-005``."""
        return describe_operation(self.operation)

    def as_dict(self) -> dict[str, Any]:
        return {"operation": self.operation, "texts": self.texts, "cycle_id": self.cycle_id}

    @classmethod
    def from_dict(cls, data: Any) -> DeferredRemoval | None:
        """The removal a stored record describes, or None when it is not one."""
        if not isinstance(data, dict):
            return None
        operation, texts, cycle_id = data.get("operation"), data.get("texts"), data.get("cycle_id")
        if not (isinstance(operation, dict) and operation.get("type") in ("DELETE", "MERGE")):
            return None
        if not (isinstance(texts, dict) and texts and isinstance(cycle_id, str)):
            return None
        if not all(isinstance(k, str) and isinstance(v, str) for k, v in texts.items()):
            return None
        return cls(operation, texts, cycle_id)


@dataclass
class Carried:
    """What a cycle does with the removals earlier cycles deferred."""

    # Operations to put in front of the curator's, marked with CARRIED_FROM.
    operations: list[dict[str, Any]] = field(default_factory=list)
    # Still valid, but no room this cycle: kept for the next one.
    waiting: list[DeferredRemoval] = field(default_factory=list)
    # No longer valid, with why.
    dropped: list[tuple[DeferredRemoval, str]] = field(default_factory=list)
    # The removal each carried operation came from (by the operation's id()).
    origin: dict[int, DeferredRemoval] = field(default_factory=dict)


def deferred_removals(
    held: Sequence[dict[str, Any]],
    playbook: dict[str, Any],
    cycle_id: str,
    carried: Carried | None = None,
) -> list[DeferredRemoval]:
    """The guard's deferred operations (``GuardResult.deferred``) as removals to carry,
    with the texts ``playbook`` has for the entries they remove; one ``carried`` from an
    earlier cycle is kept as it was stored."""
    origin = carried.origin if carried is not None else {}
    texts = {entry["name"]: entry["text"] for _, entry in iter_entries(playbook)}
    removals = []
    for item in held:
        operation = item.get("operation")
        if not isinstance(operation, dict):
            continue
        if id(operation) in origin:
            removals.append(origin[id(operation)])
            continue
        names = [name for name in operation_ids(operation) if name in texts]
        if names:
            removals.append(
                DeferredRemoval(operation, {name: texts[name] for name in names}, cycle_id)
            )
    return removals


def why_not(removal: DeferredRemoval, texts: dict[str, str], pinned: Set[str]) -> str | None:
    """Why ``removal`` no longer applies to a playbook with ``texts`` (name -> text), or
    None when it still does."""
    for name, text in removal.texts.items():
        if name not in texts:
            return f"{name} is no longer in the playbook"
        if texts[name] != text:
            return f"{name} was changed since"
        if name in pinned:
            return f"{name} was pinned since"
    return None


def carry(
    pending: Sequence[DeferredRemoval],
    playbook: dict[str, Any],
    operations: Sequence[Any],
    pinned: Set[str] = frozenset(),
) -> Carried:
    """Sort ``pending`` for a cycle about to apply the curator's ``operations`` to
    ``playbook``: the valid ones go in front of them while the cycle's operation limit
    has room, the rest wait; the invalid ones are dropped with their reason."""
    texts = {entry["name"]: entry["text"] for _, entry in iter_entries(playbook)}
    decided = {name for op in operations for name in operation_ids(op) if isinstance(name, str)}
    room = MAX_OPERATIONS - len(operations)
    carried = Carried()
    for removal in pending:
        reason = why_not(removal, texts, pinned)
        again = sorted(decided & set(removal.texts))
        if reason is None and again:
            reason = f"this cycle's curator decided on {', '.join(again)} again"
        if reason is not None:
            carried.dropped.append((removal, reason))
        elif len(carried.operations) < room:
            operation = _marked(removal)
            carried.operations.append(operation)
            carried.origin[id(operation)] = removal
        else:
            carried.waiting.append(removal)
    return carried


def pending_cost(
    pending: Sequence[DeferredRemoval], playbook: dict[str, Any], pinned: Set[str] = frozenset()
) -> int:
    """Removals the still-valid ``pending`` ones will take from a cycle's budget."""
    texts = {entry["name"]: entry["text"] for _, entry in iter_entries(playbook)}
    return sum(r.cost for r in pending if why_not(r, texts, pinned) is None)


def _marked(removal: DeferredRemoval) -> dict[str, Any]:
    """The operation to apply again, saying where it comes from (for the report and journal)."""
    given = removal.operation.get("reason")
    note = f"deferred from cycle {removal.cycle_id} by the removal budget"
    return {
        **removal.operation,
        CARRIED_FROM: removal.cycle_id,
        "reason": f"{given} ({note})" if isinstance(given, str) and given.strip() else note,
    }
