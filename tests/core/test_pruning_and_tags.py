"""Pruning (decision table, SCN-CUR-015, INV-CUR-011), reflector tags and citations."""

from __future__ import annotations

import copy
from pathlib import Path

import pytest
from pbhelpers import diagnostics

from acecode.playbook.citations import extract_cited_ids
from acecode.playbook.scoring import (
    apply_bullet_tags,
    prune_harmful,
    should_prune,
    update_playbook_data,
)
from support.playbooks import MIS, OTH, PAT, find, make_playbook, names
from support.playbooks import entry as kp

# sections-spec.md "Pruning Contract", decision table, row by row.
DECISION_TABLE = [
    (0, 0, False),
    (0, 2, False),
    (0, 3, True),
    (1, 4, True),
    (10, 4, False),
    (3, 3, False),
]


@pytest.mark.parametrize(("helpful", "harmful", "pruned"), DECISION_TABLE)
def test_pruning_decision_table(helpful: int, harmful: int, pruned: bool) -> None:
    playbook = make_playbook(oth=[kp("oth-001", "entry", helpful, harmful)])
    assert (names(prune_harmful(playbook)) == []) is pruned
    assert (names(update_playbook_data(playbook, {})) == []) is pruned


@pytest.mark.parametrize(("helpful", "harmful", "pruned"), DECISION_TABLE)
def test_inv_cur_011_prune_harmful_thresholds_identical_to_baseline(
    helpful: int, harmful: int, pruned: bool
) -> None:
    entry = kp("pat-001", "x", helpful, harmful)
    assert should_prune(entry) is pruned
    assert should_prune(entry) is (harmful >= 3 and harmful > helpful)
    via_update = update_playbook_data(make_playbook(pat=[entry]), {"operations": []})
    via_prune = prune_harmful(make_playbook(pat=[entry]))
    assert via_update["sections"] == via_prune["sections"]


def test_inv_cur_011_exhaustive_small_grid() -> None:
    for helpful in range(8):
        for harmful in range(8):
            kept = names(prune_harmful(make_playbook(oth=[kp("oth-001", "x", helpful, harmful)])))
            assert (kept == []) is (harmful >= 3 and harmful > helpful), (helpful, harmful)


def test_scn_cur_015_01_prune_harmful_removes_entries_meeting_threshold() -> None:
    playbook = make_playbook(
        mis=[kp("mis-001", "bad advice", 1, 4)], oth=[kp("oth-001", "good tip", 5, 0)]
    )
    before = copy.deepcopy(playbook)
    result = prune_harmful(playbook)
    assert result["sections"][MIS] == []
    assert result["sections"][OTH] == [kp("oth-001", "good tip", 5, 0)]
    assert playbook == before


def test_scn_cur_015_02_prune_harmful_preserves_zero_evaluation_entries() -> None:
    playbook = make_playbook(oth=[kp("oth-001", "new entry", 0, 0)])
    result = prune_harmful(playbook)
    assert result is playbook
    assert result["sections"][OTH] == [kp("oth-001", "new entry", 0, 0)]


def test_scn_cur_015_03_prune_harmful_equal_counters_not_pruned() -> None:
    playbook = make_playbook(pat=[kp("pat-001", "controversial", 3, 3)])
    assert prune_harmful(playbook)["sections"][PAT] == [kp("pat-001", "controversial", 3, 3)]


def test_scn_cur_015_04_prune_harmful_logs_pruned_entries(
    diagnostic_mode: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    text = "bad advice that is very long and should be truncated in the log output"
    long_text = text + " " + "z" * 100
    playbook = make_playbook(mis=[kp("mis-001", long_text, 0, 5)])
    result = prune_harmful(playbook)
    assert result["sections"][MIS] == []
    err = capsys.readouterr().err
    (line,) = err.splitlines()
    assert line.startswith("acecode: ")
    for needle in ("mis-001", "helpful=0", "harmful=5", text):
        assert needle in line
    assert long_text[:80] in line and long_text[:81] not in line
    report = diagnostics(diagnostic_mode, "prune_report")
    assert len(report) == 1 and "mis-001" in report[0] and "harmful=5" in report[0]


def test_prune_without_candidates_is_silent(
    diagnostic_mode: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    prune_harmful(make_playbook(oth=[kp("oth-001", "fine", 0, 2)]))
    assert capsys.readouterr().err == ""
    assert diagnostics(diagnostic_mode, "prune_report") == []


def test_merged_entry_over_threshold_is_pruned_in_same_cycle() -> None:
    playbook = make_playbook(oth=[kp("oth-001", "A", 0, 2), kp("oth-002", "B", 1, 1)])
    result = update_playbook_data(
        playbook,
        {
            "operations": [
                {"type": "MERGE", "source_ids": ["oth-001", "oth-002"], "merged_text": "AB"}
            ]
        },
    )
    assert names(result) == []


def test_updated_entry_keeps_counters_and_is_still_pruned() -> None:
    playbook = make_playbook(pat=[kp("pat-001", "old", 1, 4)])
    result = update_playbook_data(
        playbook, {"operations": [{"type": "UPDATE", "target_id": "pat-001", "text": "new"}]}
    )
    assert names(result) == []


# --- apply_bullet_tags ----------------------------------------------------------------------------


def test_apply_bullet_tags_increments_like_evaluations() -> None:
    playbook = make_playbook(pat=[kp("pat-001", "A", 1, 0)], oth=[kp("kpt_001", "B", 0, 0)])
    before = copy.deepcopy(playbook)
    tags = [
        {"name": "pat-001", "tag": "helpful", "rationale": "used it"},
        {"name": "kpt_001", "tag": "Harmful", "rationale": "misled"},
        {"name": "kpt_001", "tag": "neutral", "rationale": "n/a"},
        {"name": "pat-404", "tag": "helpful"},
        {"name": "pat-001", "tag": "great"},
        {"name": "pat-001", "tag": None},
        {"tag": "helpful"},
        "pat-001",
    ]
    result = apply_bullet_tags(playbook, tags)
    assert playbook == before
    assert find(result, "pat-001") == (PAT, kp("pat-001", "A", 2, 0))
    assert find(result, "kpt_001") == (OTH, kp("kpt_001", "B", 0, 1))


@pytest.mark.parametrize("tags", [[], None, "helpful", {"name": "pat-001", "tag": "helpful"}])
def test_apply_bullet_tags_ignores_empty_or_malformed_input(tags: object) -> None:
    playbook = make_playbook(pat=[kp("pat-001", "A", 1, 0)])
    assert apply_bullet_tags(playbook, tags) is playbook


def test_apply_bullet_tags_does_not_prune() -> None:
    playbook = make_playbook(pat=[kp("pat-001", "A", 0, 2)])
    result = apply_bullet_tags(playbook, [{"name": "pat-001", "tag": "harmful"}])
    assert find(result, "pat-001") == (PAT, kp("pat-001", "A", 0, 3))
    assert names(prune_harmful(result)) == []


# --- extract_cited_ids ----------------------------------------------------------------------------


def test_extract_cited_ids_scans_only_assistant_messages() -> None:
    messages = [
        {"role": "user", "content": "see [pat-009] please"},
        {"role": "assistant", "content": "Using [pat-001] and [mis-002]; again [pat-001]."},
        {
            "role": "assistant",
            "content": [
                {"type": "text", "text": "legacy [kpt_003], [pref-010], [ctx-001], [oth-004]"},
                {"type": "tool_use", "input": {"text": "[pat-777]"}},
            ],
        },
        {"role": "assistant", "content": "not ids: [abc-001] [pat-] pat-005 [PAT-001]"},
        "garbage",
        {"role": "assistant"},
    ]
    assert extract_cited_ids(messages) == [
        "pat-001",
        "mis-002",
        "kpt_003",
        "pref-010",
        "ctx-001",
        "oth-004",
    ]


def test_extract_cited_ids_empty() -> None:
    assert extract_cited_ids([]) == []
    assert extract_cited_ids([{"role": "assistant", "content": "no citations"}]) == []
