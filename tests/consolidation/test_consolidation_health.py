"""Health metrics of the consolidation document on playbooks with known numbers."""

from __future__ import annotations

from acecode.playbook.health import compute_health
from acecode.playbook.schema import empty_playbook


def test_health_of_a_known_playbook_counts_every_metric() -> None:
    playbook = empty_playbook()
    playbook["sections"]["PATTERNS & APPROACHES"] = [
        {"name": "pat-001", "text": "a" * 10, "helpful": 3, "harmful": 1},
        {"name": "pat-002", "text": "b" * 30, "helpful": 0, "harmful": 0},
    ]
    playbook["sections"]["OTHERS"] = [
        {"name": "oth-001", "text": "c" * 20, "helpful": 5, "harmful": 1},
    ]
    health = compute_health(playbook, {"added": 2, "pruned": 1})
    assert health["total_entries"] == 3
    assert health["entries_per_section"] == {
        "PATTERNS & APPROACHES": 2,
        "MISTAKES TO AVOID": 0,
        "USER PREFERENCES": 0,
        "PROJECT CONTEXT": 0,
        "OTHERS": 1,
    }
    assert (health["helpful_total"], health["harmful_total"]) == (8, 2)
    assert health["effectiveness_ratio"] == 0.8
    assert health["effectiveness_target_met"] is False
    assert health["untested_entries"] == 1
    assert health["average_text_length"] == 20.0
    assert health["growth_phase"] == "growth"
    assert health["in_healthy_band"] is False
    assert health["this_cycle"] == {
        "added": 2,
        "updated": 0,
        "merged": 0,
        "deleted": 0,
        "pruned": 1,
    }


def test_health_of_an_empty_playbook_has_no_ratios() -> None:
    health = compute_health(empty_playbook())
    assert health["total_entries"] == 0
    assert health["effectiveness_ratio"] is None
    assert health["effectiveness_target_met"] is None
    assert health["average_helpful_count"] is None
    assert health["average_text_length"] is None
    assert health["this_cycle"] == dict.fromkeys(
        ("added", "updated", "merged", "deleted", "pruned"), 0
    )


def test_effectiveness_is_none_when_nothing_was_evaluated(make_playbook) -> None:
    health = compute_health(make_playbook(7))
    assert health["effectiveness_ratio"] is None
    assert health["untested_entries"] == 7


def test_growth_phase_switches_to_refinement_at_100_entries(make_playbook) -> None:
    assert compute_health(make_playbook(99))["growth_phase"] == "growth"
    assert compute_health(make_playbook(100))["growth_phase"] == "refinement"


def test_healthy_band_is_50_to_150_inclusive(make_playbook) -> None:
    in_band = {n: compute_health(make_playbook(n))["in_healthy_band"] for n in (49, 50, 150, 151)}
    assert in_band == {49: False, 50: True, 150: True, 151: False}


def test_invalid_cycle_counts_count_as_zero(make_playbook) -> None:
    health = compute_health(make_playbook(1), {"added": "3", "updated": True, "merged": 2})
    assert health["this_cycle"]["added"] == 0
    assert health["this_cycle"]["updated"] == 0
    assert health["this_cycle"]["merged"] == 2


def test_the_size_in_words_follows_the_healthy_band(make_playbook) -> None:
    from acecode.playbook.health import size_in_words

    assert size_in_words(0).startswith("none yet")
    assert size_in_words(49) == "a small playbook, still growing; 50-150 entries is a healthy size"
    assert size_in_words(50) == size_in_words(150) == "a healthy size (50-150 entries)"
    assert size_in_words(151).startswith("larger than the healthy 50-150 entries")
