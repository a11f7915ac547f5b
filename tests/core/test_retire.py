"""Retire candidates from acecode's own cycle records (acecode.playbook.retire): pure."""

from __future__ import annotations

from acecode.playbook.retire import retire_candidates
from support.playbooks import entry, make_playbook


def _record(day: int, cited=(), tagged=(), status: str = "ok") -> dict:
    return {
        "cycle_id": f"c{day}",
        "started_at": f"2025-03-{day:02d}T10:00:00+00:00",
        "status": status,
        "cited_ids": list(cited),
        "tagged_ids": list(tagged),
    }


PLAYBOOK = make_playbook(
    pat=[entry("pat-001", "a", 3), entry("pat-002", "b"), entry("pat-003", "c", 1, 1)],
    mis=[entry("mis-001", "d", 9)],
)


def _names(candidates) -> list[str]:
    return [c.name for c in candidates]


def test_entries_unused_in_the_last_n_learned_sessions_are_candidates_worst_first() -> None:
    records = [
        _record(1, tagged=["pat-002"]),  # outside the window of 3
        _record(2, cited=["pat-001"]),
        _record(3, tagged=["pat-404"]),
        _record(4, status="failed", tagged=["mis-001"]),  # not learned: no evidence
        _record(5),
    ]
    candidates = retire_candidates(PLAYBOOK, records, 3)
    assert set(_names(candidates)) == {"pat-002", "pat-003", "mis-001"}
    # Worst evidence first: pat-002 and pat-003 (0) before mis-001 (9).
    assert _names(candidates)[-1] == "mis-001"
    assert candidates[0].note() == "not cited or tagged in the last 3 learned sessions"


def test_too_few_recorded_sessions_give_no_candidates() -> None:
    old_format = {"cycle_id": "c0", "started_at": "2025-03-01T00:00:00+00:00", "status": "ok"}
    assert retire_candidates(PLAYBOOK, [old_format, _record(2), _record(3)], 3) == []
    assert retire_candidates(PLAYBOOK, [_record(2), _record(3)], 0) == []


def test_entries_added_during_the_window_and_pinned_entries_are_not_candidates() -> None:
    records = [_record(day) for day in (1, 2, 3)]
    added = {"pat-002": "2025-03-02T11:00:00+00:00", "pat-003": "2025-03-02T09:00:00+00:00"}
    candidates = retire_candidates(PLAYBOOK, records, 2, added, pinned={"mis-001"})
    # The window is the cycles of days 2 and 3 (10:00). pat-002 was added after the
    # window's first cycle started: it has not had its chance. pat-003 was there for the
    # whole window; pat-001 has no journal record, so it is older than the journal.
    assert set(_names(candidates)) == {"pat-001", "pat-003"}
