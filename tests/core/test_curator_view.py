"""The curator's bounded view of the playbook (acecode.playbook.curator_view): pure."""

from __future__ import annotations

from acecode.playbook.curator_view import (
    Listed,
    build_view,
    entry_tokens,
    header_tokens,
    refuse_unseen,
)
from support.playbooks import MIS, PAT, entry, make_playbook

FILLER = "Document the {n}th service boundary in the architecture notes before refactoring it."


def _big_playbook(count: int = 200) -> dict:
    patterns = [entry(f"pat-{i:03d}", FILLER.format(n=i)) for i in range(1, count + 1)]
    mistakes = [
        entry("mis-001", "Install PyYAML before running pytest; the yaml module is not declared."),
        entry("mis-002", "Never run alembic downgrade against the shared staging database.", 5),
    ]
    return make_playbook(pat=patterns, mis=mistakes)


REFLECTION = {
    "analysis": "pytest failed because the yaml module was missing; installing PyYAML fixed it.",
    "bullet_tags": [{"name": "pat-150", "tag": "helpful", "rationale": "followed"}],
}


def _cost(view) -> int:
    sections = [s for s, entries in view.playbook["sections"].items() if entries]
    return sum(header_tokens(s) for s in sections) + sum(
        entry_tokens(e) for entries in view.playbook["sections"].values() for e in entries
    )


def test_a_playbook_that_fits_is_shown_whole() -> None:
    playbook = _big_playbook(10)
    view = build_view(playbook, REFLECTION, budget_tokens=10_000)
    assert view.shown == {e["name"] for s in view.playbook["sections"].values() for e in s}
    assert len(view.shown) == 12 and view.left_out == {}
    assert view.omitted_line() == "(All 12 entries of the playbook are shown.)"


def test_a_large_playbook_is_cut_to_the_budget_keeping_cited_tagged_and_relevant() -> None:
    playbook = _big_playbook(200)
    view = build_view(playbook, REFLECTION, budget_tokens=400, cited_ids=["pat-007"])
    assert {"pat-007", "pat-150", "mis-001"} <= view.shown  # cited, tagged, relevant
    assert view.tokens == _cost(view) <= 400
    assert 0 < len(view.shown) < 202
    assert view.left_out[PAT] == 200 - sum(1 for n in view.shown if n.startswith("pat-"))
    line = view.omitted_line()
    assert line.startswith("(The playbook has 202 entries; ") and f"{PAT} " in line


def test_cited_and_tagged_entries_are_shown_even_over_budget() -> None:
    playbook = _big_playbook(200)
    cited = [f"pat-{i:03d}" for i in range(1, 21)]
    view = build_view(playbook, REFLECTION, budget_tokens=50, cited_ids=cited)
    assert set(cited) | {"pat-150"} <= view.shown
    assert view.tokens > 50  # the session's own entries are never cut


def test_the_view_grows_with_the_budget_not_with_the_playbook() -> None:
    small = build_view(_big_playbook(500), REFLECTION, budget_tokens=1_000)
    large = build_view(_big_playbook(5_000), REFLECTION, budget_tokens=1_000)
    assert small.tokens <= 1_000 and large.tokens <= 1_000
    assert abs(len(small.shown) - len(large.shown)) <= 2


def test_listed_entries_are_offered_only_when_shown_and_at_most_ten() -> None:
    playbook = _big_playbook(200)
    stale = [
        Listed(f"pat-{i:03d}", "names `old.py`, not found in the project") for i in range(1, 30)
    ]
    view = build_view(playbook, REFLECTION, budget_tokens=2_000, stale=stale)
    assert [item.name for item in view.stale] == [f"pat-{i:03d}" for i in range(1, 11)]
    assert {item.name for item in view.stale} <= view.shown
    tight = build_view(playbook, REFLECTION, budget_tokens=60, stale=stale)
    assert all(item.name in tight.shown for item in tight.stale)
    assert len(tight.stale) < 10


def test_operations_naming_unseen_ids_are_refused_with_the_reason() -> None:
    operations = [
        {"type": "ADD", "text": "x", "section": MIS},
        {"type": "UPDATE", "target_id": "pat-001", "text": "y"},
        {"type": "DELETE", "target_id": "pat-002", "reason": "old"},
        {"type": "MERGE", "source_ids": ["pat-001", "pat-003"], "merged_text": "z"},
        {"type": "DELETE", "target_id": "pat-999", "reason": "hallucinated"},
        {"type": "UPDATE", "target_id": "", "text": "left to validation"},
    ]
    known = {"pat-001", "pat-002", "pat-003"}
    allowed, refused = refuse_unseen(operations, shown={"pat-001", "pat-002"}, known=known)
    assert allowed == [operations[0], operations[1], operations[2], operations[5]]
    assert [(item["index"], item["type"], item["applied"]) for item in refused] == [
        (3, "MERGE", False),
        (4, "DELETE", False),
    ]
    assert refused[0]["reason"] == "source_ids 'pat-003' was not shown to the curator"
    assert refused[1]["reason"] == "target_id 'pat-999' not found"
