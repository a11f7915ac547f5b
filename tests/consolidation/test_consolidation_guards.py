"""Context-collapse guards: removal budget, detail-keeping merges, collapse warnings."""

from __future__ import annotations

import copy

import pytest

from acecode.consolidation.guards import (
    RemovalBudget,
    collapse_warnings,
    guard_operations,
    merge_keeps_detail,
    prune_within_budget,
    removal_limit,
)
from acecode.playbook.operations import apply_operations_with_outcomes
from acecode.playbook.schema import entry_count, iter_entries
from acecode.project.config import Settings


def _names(playbook) -> list[str]:
    return [entry["name"] for _, entry in iter_entries(playbook)]


@pytest.mark.parametrize(
    ("entries", "ratio", "limit"),
    [
        (0, 0.10, 0),
        (1, 0.10, 1),
        (9, 0.10, 1),
        (19, 0.10, 1),
        (20, 0.10, 2),
        (100, 0.10, 10),
        (100, 0.29, 29),
        (100, 0.0, 0),
        (10, 1.5, 10),
        (10, -1.0, 0),
    ],
)
def test_removal_limit_rounds_down_with_at_least_one(entries: int, ratio: float, limit: int):
    assert removal_limit(entries, ratio) == limit


def test_default_ratio_comes_from_settings() -> None:
    assert Settings().max_removal_ratio == 0.10


def test_curator_deleting_half_the_playbook_removes_at_most_10_percent(make_playbook) -> None:
    playbook = make_playbook(20)
    names = _names(playbook)
    deletes = [{"type": "DELETE", "target_id": name, "reason": "stale"} for name in names[:10]]
    budget = RemovalBudget.for_playbook(playbook, Settings().max_removal_ratio)
    guarded = guard_operations(playbook, deletes, budget)
    result, outcomes = apply_operations_with_outcomes(playbook, guarded.allowed)
    assert entry_count(result) == 18
    assert sum(o.applied for o in outcomes) == 2
    assert [item["index"] for item in guarded.deferred] == list(range(2, 10))
    for item in guarded.deferred:
        assert item["type"] == "DELETE"
        assert "removal budget exhausted" in item["reason"]
        assert "at most 2 of 20" in item["reason"]
        assert item["operation"] == deletes[item["index"]]
    assert guarded.rejected == []
    assert budget.used == budget.limit == 2


def test_operations_beyond_the_limit_are_reported_not_dropped(make_playbook) -> None:
    playbook = make_playbook(60)
    deletes = [{"type": "DELETE", "target_id": name} for name in _names(playbook)[:30]]
    guarded = guard_operations(playbook, deletes, RemovalBudget.for_playbook(playbook))
    assert len(guarded.allowed) == 6
    assert len(guarded.deferred) == 4
    assert [item["index"] for item in guarded.rejected] == list(range(10, 30))
    assert all("limit of 10 operations" in item["reason"] for item in guarded.rejected)


def test_adds_and_updates_cost_nothing(make_playbook) -> None:
    playbook = make_playbook(10)
    ops = [
        {"type": "ADD", "text": "new tip about pytest -x", "section": "OTHERS"},
        {"type": "UPDATE", "target_id": "pat-001", "text": "revised"},
        {"type": "DELETE", "target_id": "pat-002"},
        {"type": "DELETE", "target_id": "mis-001"},
    ]
    budget = RemovalBudget.for_playbook(playbook)
    guarded = guard_operations(playbook, ops, budget)
    assert guarded.allowed == ops[:3]
    assert [item["index"] for item in guarded.deferred] == [3]


def test_missing_targets_cost_nothing_and_pass_through(make_playbook) -> None:
    playbook = make_playbook(10)
    ops = [
        {"type": "DELETE", "target_id": "pat-999"},
        {"type": "MERGE", "source_ids": ["pat-998", "pat-999"], "merged_text": "x"},
        {"type": "DELETE", "target_id": "pat-001"},
    ]
    guarded = guard_operations(playbook, ops, RemovalBudget.for_playbook(playbook))
    assert guarded.allowed == ops
    assert guarded.deferred == []


def test_merge_costs_sources_minus_one(make_playbook) -> None:
    playbook = make_playbook(40)
    names = _names(playbook)
    long_text = "x" * 200
    ops = [
        {"type": "MERGE", "source_ids": names[0:3], "merged_text": long_text},
        {"type": "MERGE", "source_ids": names[3:6], "merged_text": long_text},
        {"type": "DELETE", "target_id": names[10]},
    ]
    budget = RemovalBudget.for_playbook(playbook)  # 4 removals
    guarded = guard_operations(playbook, ops, budget)
    assert guarded.allowed == ops[0:2]
    assert [item["index"] for item in guarded.deferred] == [2]
    assert budget.used == 4


def test_delete_of_an_entry_already_merged_away_costs_nothing(make_playbook) -> None:
    playbook = make_playbook(20)
    names = _names(playbook)
    ops = [
        {"type": "MERGE", "source_ids": names[0:2], "merged_text": "y" * 200},
        {"type": "DELETE", "target_id": names[0]},
    ]
    budget = RemovalBudget.for_playbook(playbook)
    guarded = guard_operations(playbook, ops, budget)
    assert guarded.allowed == ops
    assert budget.used == 1


def test_merge_that_drops_detail_is_refused_and_reported(make_playbook) -> None:
    playbook = make_playbook(30)
    names = _names(playbook)
    source_len = len(playbook["sections"]["PATTERNS & APPROACHES"][0]["text"])
    ops = [
        {"type": "MERGE", "source_ids": names[0:2], "merged_text": "run tests"},
        {"type": "MERGE", "source_ids": names[2:4], "merged_text": "z" * source_len},
    ]
    budget = RemovalBudget.for_playbook(playbook)
    guarded = guard_operations(playbook, ops, budget, min_merge_ratio=0.6)
    assert guarded.allowed == [ops[1]]
    (rejected,) = guarded.rejected
    assert rejected["index"] == 0
    assert "loses detail" in rejected["reason"]
    assert f"up to {source_len}" in rejected["reason"]
    assert budget.used == 1  # the refused merge spent nothing
    result, _ = apply_operations_with_outcomes(playbook, guarded.allowed)
    assert names[0] in _names(result) and names[1] in _names(result)


@pytest.mark.parametrize(
    ("merged_len", "keeps"), [(59, False), (60, True), (100, True), (150, True)]
)
def test_merge_keeps_detail_threshold(merged_len: int, keeps: bool) -> None:
    assert merge_keeps_detail("m" * merged_len, ["s" * 100, "t" * 40], 0.6) is keeps


def test_merge_keeps_detail_ignores_surrounding_whitespace() -> None:
    assert merge_keeps_detail("  " + "m" * 59 + "   ", ["s" * 100], 0.6) is False


def test_prune_within_budget_prunes_the_most_harmful_first(make_playbook) -> None:
    harmful = {3: (0, 3), 7: (1, 9), 11: (0, 5), 15: (2, 4), 19: (0, 3)}
    playbook = make_playbook(30, lambda i: harmful.get(i, (1, 0)))
    snapshot = copy.deepcopy(playbook)
    budget = RemovalBudget.for_playbook(playbook)  # 3 removals
    result, pruned, deferred = prune_within_budget(playbook, budget)
    assert playbook == snapshot
    assert [entry["harmful"] - entry["helpful"] for _, entry in pruned] == [8, 5, 3]
    assert entry_count(result) == 27
    assert len(deferred) == 2
    assert all("removal budget exhausted" in item["reason"] for item in deferred)
    assert {item["harmful"] for item in deferred} == {3, 4}


def test_budget_is_shared_between_operations_and_pruning(make_playbook) -> None:
    playbook = make_playbook(20, lambda i: (0, 4) if i < 5 else (0, 0))
    budget = RemovalBudget.for_playbook(playbook)  # 2 removals
    names = _names(playbook)
    guarded = guard_operations(playbook, [{"type": "DELETE", "target_id": names[10]}], budget)
    after_ops, _ = apply_operations_with_outcomes(playbook, guarded.allowed)
    result, pruned, deferred = prune_within_budget(after_ops, budget)
    assert len(pruned) == 1
    assert len(deferred) == 4
    assert entry_count(result) == 18


def test_nothing_to_prune_returns_the_same_playbook(make_playbook) -> None:
    playbook = make_playbook(5)
    result, pruned, deferred = prune_within_budget(playbook, RemovalBudget.for_playbook(playbook))
    assert result is playbook and pruned == [] and deferred == []


def test_shrink_above_20_percent_warns(make_playbook) -> None:
    before = make_playbook(10)
    exactly_20 = make_playbook(8)
    over_20 = make_playbook(7)
    assert collapse_warnings(before, exactly_20) == []
    (warning,) = collapse_warnings(before, over_20)
    assert "shrank by 30%" in warning and "10 -> 7" in warning


def test_average_length_falling_by_more_than_a_quarter_warns(make_playbook) -> None:
    before = make_playbook(4)
    after = copy.deepcopy(before)
    for _, entry in iter_entries(after):
        entry["text"] = entry["text"][: int(len(entry["text"]) * 0.7)]
    (warning,) = collapse_warnings(before, after)
    assert "average entry length fell by" in warning
    mild = copy.deepcopy(before)
    for _, entry in iter_entries(mild):
        entry["text"] = entry["text"][: int(len(entry["text"]) * 0.8)]
    assert collapse_warnings(before, mild) == []


def test_no_warnings_from_or_to_an_empty_playbook(make_playbook) -> None:
    assert collapse_warnings(make_playbook(0), make_playbook(3)) == []
    assert len(collapse_warnings(make_playbook(3), make_playbook(0))) == 1
