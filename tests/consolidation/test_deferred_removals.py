"""Carrying removals the budget deferred (acecode.consolidation.deferred): which apply
again, which wait, which are dropped and why."""

from __future__ import annotations

from acecode.consolidation.deferred import DeferredRemoval, carry, deferred_removals
from acecode.consolidation.guards import RemovalBudget, guard_operations
from acecode.playbook.operations import MAX_OPERATIONS


def playbook(*texts: str) -> dict:
    entries = [
        {"name": f"pat-{i:03d}", "text": text, "helpful": 0, "harmful": 0}
        for i, text in enumerate(texts, start=1)
    ]
    return {"sections": {"PATTERNS & APPROACHES": entries}}


BOOK = playbook("alpha rule", "beta rule", "gamma rule")


def delete(name: str) -> dict:
    return {"type": "DELETE", "target_id": name, "reason": "obsolete"}


def removal(name: str, text: str, cycle: str = "c1") -> DeferredRemoval:
    return DeferredRemoval(delete(name), {name: text}, cycle)


def test_a_valid_removal_goes_in_front_marked_with_its_cycle() -> None:
    carried = carry([removal("pat-002", "beta rule")], BOOK, [delete("pat-001")])
    [operation] = carried.operations
    assert operation["target_id"] == "pat-002" and operation["deferred_from"] == "c1"
    assert operation["reason"] == "obsolete (deferred from cycle c1 by the removal budget)"
    assert carried.dropped == [] and carried.waiting == []


def test_gone_changed_pinned_or_decided_again_is_dropped_with_why() -> None:
    pending = [
        removal("pat-009", "no such rule"),
        removal("pat-001", "alpha rule, as it was"),
        removal("pat-002", "beta rule"),
        removal("pat-003", "gamma rule"),
    ]
    update = {"type": "UPDATE", "target_id": "pat-003", "text": "gamma rule, sharper"}
    carried = carry(pending, BOOK, [update], pinned={"pat-002"})
    assert carried.operations == []
    assert [why for _, why in carried.dropped] == [
        "pat-009 is no longer in the playbook",
        "pat-001 was changed since",
        "pat-002 was pinned since",
        "this cycle's curator decided on pat-003 again",
    ]


def test_without_room_in_the_operation_limit_a_removal_waits() -> None:
    full = [{"type": "ADD", "text": f"rule {i}", "section": "OTHERS"} for i in range(10)]
    assert len(full) == MAX_OPERATIONS
    carried = carry([removal("pat-002", "beta rule")], BOOK, full)
    assert carried.operations == [] and [r.describe() for r in carried.waiting] == [
        "DELETE pat-002"
    ]


def test_what_the_guard_defers_again_keeps_its_first_cycle() -> None:
    book = playbook(*(f"rule number {i}" for i in range(1, 10)))  # 9 entries: 1 removal
    carried = carry([removal("pat-002", "rule number 2", "c1")], book, [delete("pat-003")])
    operations = [*carried.operations, delete("pat-003")]
    guarded = guard_operations(book, operations, RemovalBudget.for_playbook(book))
    assert [op["target_id"] for op in guarded.allowed] == ["pat-002"]  # the older one first
    again = deferred_removals(guarded.deferred, book, "c2", carried)
    assert [(r.describe(), r.cycle_id, r.texts) for r in again] == [
        ("DELETE pat-003", "c2", {"pat-003": "rule number 3"})
    ]
    assert DeferredRemoval.from_dict(again[0].as_dict()) == again[0]
