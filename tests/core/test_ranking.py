"""Ranking and budgeted selection (acecode.playbook.ranking): pure, no I/O."""

from __future__ import annotations

from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from acecode.playbook.ranking import (
    Ranked,
    names,
    rank_section,
    ranked_entries,
    select_within_budget,
)
from acecode.playbook.schema import SECTION_NAMES
from support.playbooks import CTX, MIS, PAT, PREF, make_playbook
from support.playbooks import entry as kp


def _cost(_section: str, entry: dict[str, Any]) -> int:
    return len(entry["text"])


def _header(_section: str) -> int:
    return 10


def test_evidence_then_evaluations_then_newer() -> None:
    entries = [
        kp("pat-001", "old untested"),
        kp("pat-002", "proven", helpful=5, harmful=1),  # evidence 4
        kp("pat-003", "tested, even", helpful=2, harmful=2),  # evidence 0, 4 evaluations
        kp("pat-004", "misleading", helpful=0, harmful=3),  # evidence -3
        kp("pat-005", "new untested"),
        kp("pat-006", "as good as pat-002 with fewer evaluations", helpful=4),
    ]
    assert [e["name"] for e in rank_section(entries)] == [
        "pat-002",  # evidence 4, 6 evaluations
        "pat-006",  # evidence 4, 4 evaluations
        "pat-003",  # evidence 0, 4 evaluations
        "pat-005",  # evidence 0, untested, newer
        "pat-001",  # evidence 0, untested, older
        "pat-004",
    ]


def test_pinned_entries_rank_first_whatever_their_counters() -> None:
    entries = [kp("pat-001", "good", helpful=9), kp("pat-002", "bad", harmful=2)]
    assert [e["name"] for e in rank_section(entries, pinned={"pat-002"})] == ["pat-002", "pat-001"]


def test_ranking_across_sections_is_total_and_stable() -> None:
    playbook = make_playbook(
        pat=[kp("pat-001", "a", helpful=1)],
        mis=[kp("mis-001", "b", helpful=1)],
        pref=[kp("pref-001", "c", helpful=3)],
    )
    ranked = ranked_entries(playbook["sections"])
    assert names(ranked) == ["pref-001", "pat-001", "mis-001"]  # ties: canonical section order
    assert all(isinstance(item, Ranked) for item in ranked)
    assert ranked[0].section == PREF and ranked[0].position == 0


def test_a_large_section_does_not_crowd_out_the_small_ones() -> None:
    patterns = [kp(f"pat-{i:03d}", "x" * 50, helpful=100) for i in range(1, 101)]
    playbook = make_playbook(
        pat=patterns,
        mis=[kp("mis-001", "y" * 50), kp("mis-002", "y" * 50)],
        pref=[kp("pref-001", "z" * 50, harmful=1)],
    )
    selection = select_within_budget(playbook["sections"], 600, _cost, _header)
    chosen = {item.entry["name"] for item in selection.chosen}
    # Three sections, 600 each: 200 per share -> 3 entries of PATTERNS, and both
    # small sections are in although every PATTERNS entry has far more evidence.
    assert {"mis-001", "mis-002", "pref-001"} <= chosen
    assert len([n for n in chosen if n.startswith("pat-")]) >= 3
    assert selection.cost <= 600


def test_unused_share_flows_to_the_other_sections() -> None:
    patterns = [kp(f"pat-{i:03d}", "x" * 50, helpful=1) for i in range(1, 21)]
    playbook = make_playbook(pat=patterns, ctx=[kp("ctx-001", "short")])
    selection = select_within_budget(playbook["sections"], 500, _cost, _header)
    # ctx uses 15 of its 250; PATTERNS takes what is left: (500 - 15 - 10) // 50 = 9 entries.
    assert len([i for i in selection.chosen if i.section == PAT]) == 9
    assert [i.entry["name"] for i in selection.chosen if i.section == CTX] == ["ctx-001"]
    assert 500 - selection.cost < 50


def test_pinned_entries_come_first_and_fill_what_they_can() -> None:
    playbook = make_playbook(
        pat=[kp("pat-001", "x" * 40, helpful=50), kp("pat-002", "x" * 40)],
        mis=[kp("mis-001", "y" * 40, harmful=2)],
    )
    pinned = {"pat-002", "mis-001"}
    selection = select_within_budget(playbook["sections"], 100, _cost, _header, pinned)
    assert names(selection.chosen) == ["pat-002", "mis-001"]
    assert names(selection.left_out) == ["pat-001"]


def test_an_entry_too_long_for_any_share_is_skipped_not_a_stop() -> None:
    playbook = make_playbook(
        pat=[kp("pat-001", "x" * 1000, helpful=9), kp("pat-002", "short", helpful=1)],
        mis=[kp("mis-001", "also short")],
    )
    selection = select_within_budget(playbook["sections"], 200, _cost, _header)
    assert names(selection.left_out) == ["pat-001"]
    assert {"pat-002", "mis-001"} == set(names(selection.chosen))


def test_by_section_groups_in_canonical_order_best_first() -> None:
    playbook = make_playbook(
        pat=[kp("pat-001", "a"), kp("pat-002", "b", helpful=2)],
        mis=[kp("mis-001", "c", helpful=9)],
    )
    selection = select_within_budget(playbook["sections"], 1000, _cost, _header)
    grouped = selection.by_section()
    assert list(grouped) == [PAT, MIS]
    assert [e["name"] for e in grouped[PAT]] == ["pat-002", "pat-001"]


def test_zero_or_negative_budget_selects_nothing() -> None:
    playbook = make_playbook(pat=[kp("pat-001", "a")])
    for budget in (0, -5):
        selection = select_within_budget(playbook["sections"], budget, _cost, _header)
        assert selection.chosen == [] and names(selection.left_out) == ["pat-001"]


_entries = st.lists(
    st.tuples(
        st.sampled_from(SECTION_NAMES),
        st.integers(0, 300),  # text length
        st.integers(0, 5),
        st.integers(0, 5),
    ),
    max_size=60,
)


@given(_entries, st.integers(0, 3000), st.sets(st.integers(0, 59), max_size=5))
def test_selection_never_exceeds_the_budget_and_wastes_none(
    specs: list[tuple[str, int, int, int]], budget: int, pinned_positions: set[int]
) -> None:
    sections: dict[str, list[dict[str, Any]]] = {name: [] for name in SECTION_NAMES}
    for index, (section, length, helpful, harmful) in enumerate(specs):
        sections[section].append(kp(f"e-{index}", "x" * length, helpful, harmful))
    pinned = {f"e-{i}" for i in pinned_positions}
    selection = select_within_budget(sections, budget, _cost, _header, pinned)
    opened = {item.section for item in selection.chosen}
    exact = sum(len(item.entry["text"]) for item in selection.chosen) + 10 * len(opened)
    assert selection.cost == exact <= budget
    assert len(selection.chosen) + len(selection.left_out) == len(specs)
    remaining = budget - selection.cost
    for item in selection.left_out:  # nothing that still fits was left out
        header = 0 if item.section in opened else 10
        assert len(item.entry["text"]) + header > remaining
    # Every section keeps its share: after the pinned entries, a section whose best
    # entry fits in an equal share of what they left gets at least that entry.
    pinned_chosen = [i for i in selection.chosen if i.entry["name"] in pinned]
    after_pins = budget - sum(len(i.entry["text"]) for i in pinned_chosen)
    after_pins -= 10 * len({i.section for i in pinned_chosen})
    contenders = {
        section: rank_section([e for e in entries if e["name"] not in pinned])
        for section, entries in sections.items()
        if any(e["name"] not in pinned for e in entries)
    }
    for section, ranked in contenders.items():
        if len(ranked[0]["text"]) + 10 <= after_pins // len(contenders):
            assert ranked[0]["name"] in names(selection.chosen), section


def test_mis_and_pref_keep_entries_against_a_huge_patterns_section() -> None:
    """The scenario of issue 10: PATTERNS is 95% of a big playbook and has the evidence."""
    patterns = [kp(f"pat-{i:03d}", "p" * 120, helpful=5) for i in range(1, 951)]
    mistakes = [kp(f"mis-{i:03d}", "m" * 120) for i in range(1, 26)]
    preferences = [kp(f"pref-{i:03d}", "u" * 120) for i in range(1, 26)]
    playbook = make_playbook(pat=patterns, mis=mistakes, pref=preferences)
    selection = select_within_budget(playbook["sections"], 8000, _cost, _header)
    per_section = {s: sum(i.section == s for i in selection.chosen) for s in (PAT, MIS, PREF)}
    assert per_section[MIS] >= 20 and per_section[PREF] >= 20
    assert per_section[PAT] >= per_section[MIS]
