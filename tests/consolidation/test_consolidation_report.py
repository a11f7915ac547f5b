"""The curation report: built from a guarded cycle, written beside the playbook, journaled."""

from __future__ import annotations

import json
import re
from datetime import datetime
from pathlib import Path

from acecode.consolidation.guards import RemovalBudget, guard_operations, prune_within_budget
from acecode.consolidation.report import build_report, journal_meta
from acecode.playbook.operations import apply_operations_with_outcomes
from acecode.playbook.scoring import apply_bullet_tags_detailed
from acecode.store import update_playbook
from acecode.store.history import get_cycle, list_cycles
from acecode.store.reports import write_report

SECTIONS = (
    "processing_summary",
    "integration_actions",
    "de_duplication_results",
    "playbook_health_metrics",
    "quality_assurance",
    "warnings",
    "tokens",
)


def _seed(path: Path, make_playbook) -> None:
    # 30 entries, 6 per section: budget 3; oth-001 and oth-002 are harmful enough to prune.
    playbook = make_playbook(30, lambda i: (0, 5) if i in (4, 9) else (1, 0))
    with update_playbook(path) as txn:
        txn.playbook = playbook
        txn.meta.update(kind="seed", source="test")


def _learning_cycle(path: Path) -> dict:
    """A cycle the way the pipeline runs it: tags, guard, operations, prune, report, save."""
    ops = [
        {"type": "ADD", "text": "use uv run for scripts", "section": "PATTERNS & APPROACHES"},
        {"type": "UPDATE", "target_id": "pat-002", "text": "updated " * 12, "reason": "sharper"},
        {"type": "MERGE", "source_ids": ["mis-001", "mis-002"], "merged_text": "too short"},
        {"type": "DELETE", "target_id": "ctx-001", "reason": "project moved to uv"},
        {"type": "DELETE", "target_id": "ctx-002"},
        {
            "type": "MERGE",
            "source_ids": ["pref-001", "pref-002", "pref-003"],
            "merged_text": "merged " * 20,
        },
        {"type": "UPDATE", "target_id": "nope-001", "text": "x"},
    ]
    tags = [{"name": "pat-003", "tag": "helpful"}, {"name": "oth-001", "tag": "harmful"}]
    with update_playbook(path) as txn:
        budget = RemovalBudget.for_playbook(txn.playbook, 0.10)
        playbook, applied_tags = apply_bullet_tags_detailed(txn.playbook, tags)
        guarded = guard_operations(playbook, ops, budget, 0.6)
        playbook, outcomes = apply_operations_with_outcomes(playbook, guarded.allowed)
        playbook, pruned, deferred_prunes = prune_within_budget(playbook, budget)
        report = build_report(
            cycle_id="cycle-1",
            before=txn.original,
            after=playbook,
            source="/sessions/abc.jsonl",
            operations=guarded.allowed,
            outcomes=outcomes,
            guard=guarded,
            budget=budget,
            pruned=pruned,
            deferred_prunes=deferred_prunes,
            dedup_groups=[
                {
                    "kept": "pat-003",
                    "section": "PATTERNS & APPROACHES",
                    "merged": [{"name": "pat-004", "section": "P", "similarity": 0.93}],
                }
            ],
            dedup_threshold=0.85,
            ladder_decisions=[{"action": "credit", "matched_name": "pat-003", "similarity": 0.95}],
            bullet_tags=applied_tags,
            tokens={"input": 1200, "output": 300},
            now=datetime(2025, 3, 4, 5, 6, 7).astimezone(),
        )
        txn.playbook = playbook
        txn.meta.update(journal_meta(report))
    return report


def test_report_has_every_section_with_reasons(project_dir: Path, make_playbook) -> None:
    path = project_dir / ".claude" / "playbook.json"
    _seed(path, make_playbook)
    report = _learning_cycle(path)
    assert all(section in report for section in SECTIONS)
    actions = report["integration_actions"]
    assert [a["name"] for a in actions["new_entries_added"]] == ["pat-007"]
    (updated,) = actions["existing_entries_updated"]
    assert (updated["name"], updated["reason"], updated["operation_index"]) == (
        "pat-002",
        "sharper",
        1,
    )
    # budget 3: two DELETEs spend 2, the 3-way MERGE (cost 2) is deferred, one prune fits
    assert [a["name"] for a in actions["entries_deleted"]] == ["ctx-001", "ctx-002"]
    assert actions["entries_deleted"][0]["reason"] == "project moved to uv"
    assert actions["entries_deleted"][1]["operation_index"] == 4
    (pruned,) = actions["entries_pruned"]
    assert pruned["name"] == "oth-001"  # the harmful tag made it the most harmful
    assert "harmful 6" in pruned["reason"]
    assert actions["entries_marked_harmful"] == [{"name": "oth-001", "rationale": ""}]
    qa = report["quality_assurance"]
    rejected = {item["index"]: item["reason"] for item in qa["rejected_operations"]}
    assert set(rejected) == {2, 6}
    assert "loses detail" in rejected[2]
    assert "not found" in rejected[6]
    assert [d.get("index", d.get("name")) for d in qa["deferred"]] == [5, "oth-002"]
    assert qa["removal_budget"] == {
        "start_entries": 30,
        "limit": 3,
        "used": 3,
        "max_removal_ratio": 0.1,
    }
    summary = report["processing_summary"]
    assert summary["operations_received"] == 7
    assert summary["operations_applied"] == 4
    assert summary["operations_deferred"] == 1
    assert summary["prunes_deferred"] == 1
    assert (summary["entries_before"], summary["entries_after"]) == (30, 28)
    dedup = report["de_duplication_results"]
    assert dedup["consolidations"][0]["merged"][0]["similarity"] == 0.93
    assert dedup["semantic_matches_found"] == 2 and dedup["merges_performed"] == 1
    health = report["playbook_health_metrics"]
    assert health["total_entries"] == 28
    assert health["this_cycle"] == {
        "added": 1,
        "updated": 1,
        "merged": 0,
        "deleted": 2,
        "pruned": 1,
    }
    assert report["tokens"] == {"input": 1200, "output": 300}


def test_report_counts_match_the_journal(project_dir: Path, make_playbook) -> None:
    path = project_dir / ".claude" / "playbook.json"
    _seed(path, make_playbook)
    report = _learning_cycle(path)
    cycle = list_cycles(path)[-1]
    assert cycle.cycle_id == "cycle-1" and cycle.kind == "learn"
    assert cycle.source == "/sessions/abc.jsonl"
    for key, value in report["playbook_health_metrics"]["this_cycle"].items():
        assert cycle.counts[key] == value
    causes = {c.name: c.cause for c in get_cycle(path, "cycle-1").changes if c.after is None}
    assert causes == {"ctx-001": "delete", "ctx-002": "delete", "oth-001": "prune"}
    assert cycle.meta["deferred"] == report["quality_assurance"]["deferred"]


def test_write_report_under_dated_folder(project_dir: Path, make_playbook) -> None:
    path = project_dir / ".claude" / "playbook.json"
    _seed(path, make_playbook)
    report = _learning_cycle(path)
    written = write_report(path, report)
    assert written.parent == project_dir / ".claude" / "acecode" / "reports" / "2025-03-04"
    assert re.fullmatch(r"curation_20250304T050607_cycle-1\.json", written.name)
    assert json.loads(written.read_text(encoding="utf-8")) == report
    assert not [p for p in written.parent.iterdir() if p.name.endswith(".tmp")]


def test_collapse_is_warned_in_the_report(make_playbook) -> None:
    before = make_playbook(10)
    after = make_playbook(7)
    report = build_report(cycle_id="c", before=before, after=after, warnings=["earlier"])
    assert report["warnings"][0] == "earlier"
    assert "shrank by 30%" in report["warnings"][1]
    assert report["quality_assurance"]["removal_budget"] is None


def test_unsafe_cycle_id_gives_a_safe_file_name(project_dir: Path, make_playbook) -> None:
    report = build_report(cycle_id="../../evil id", before=make_playbook(1), after=make_playbook(1))
    written = write_report(project_dir / "playbook.json", report)
    assert written.parent.parent == project_dir / "acecode" / "reports"
    assert "/" not in written.name.removeprefix("curation_") and " " not in written.name
