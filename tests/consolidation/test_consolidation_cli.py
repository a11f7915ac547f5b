"""``acecode stats/history/undo/restore`` as real subprocesses on journaled playbooks."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from acecode.playbook.operations import apply_operations_with_outcomes
from acecode.store import load_playbook, update_playbook
from acecode.store.history import list_cycles, short_id
from support.hang_guard import HANG_GUARD

CLI = [sys.executable, "-m", "acecode"]


def acecode(*args: str) -> subprocess.CompletedProcess[str]:
    """Run the command in a fresh interpreter with the test's isolated environment."""
    env = {**os.environ, "COLUMNS": "200"}  # wide enough that rich keeps ids on one line
    return subprocess.run(
        [*CLI, *args], capture_output=True, text=True, timeout=HANG_GUARD, env=env
    )


def cycle(path: Path, ops: list[dict[str, Any]], **meta: Any) -> str:
    with update_playbook(path) as txn:
        txn.playbook, _ = apply_operations_with_outcomes(txn.playbook, ops)
        txn.meta.update(meta)
    return txn.meta["cycle_id"]


@pytest.fixture
def journaled(project_dir: Path) -> tuple[Path, str, str]:
    """The default playbook after two learning cycles A and B."""
    path = project_dir / ".claude" / "playbook.json"
    first = cycle(
        path,
        [
            {
                "type": "ADD",
                "text": "run pytest -x on the file you touched",
                "section": "PATTERNS & APPROACHES",
            },
            {"type": "ADD", "text": "the user wants small commits", "section": "USER PREFERENCES"},
            {"type": "ADD", "text": "CI runs on two cores", "section": "PROJECT CONTEXT"},
        ],
        kind="learn",
        source="a.jsonl",
    )
    second = cycle(
        path,
        [
            {"type": "DELETE", "target_id": "ctx-001", "reason": "CI changed"},
            {"type": "ADD", "text": "ruff format before commit", "section": "USER PREFERENCES"},
        ],
        kind="learn",
        source="b.jsonl",
        removals={"ctx-001": {"cause": "delete", "reason": "CI changed"}},
    )
    return path, first, second


def test_stats_json_reports_health_and_last_cycle(journaled) -> None:
    result = acecode("stats", "--json")
    assert result.returncode == 0, result.stderr
    metrics = json.loads(result.stdout)
    assert metrics["total_entries"] == 3
    assert metrics["entries_per_section"]["USER PREFERENCES"] == 2
    assert metrics["growth_phase"] == "growth"
    assert metrics["this_cycle"]["added"] == 1 and metrics["this_cycle"]["deleted"] == 1


def test_stats_table(journaled) -> None:
    result = acecode("stats")
    assert result.returncode == 0, result.stderr
    for label in ("effectiveness", "untested entries", "size", "a small playbook, still growing"):
        assert label in result.stdout
    assert "n/a (no evaluations)" in result.stdout


def test_stats_on_a_corrupt_playbook_is_a_one_line_error(project_dir: Path) -> None:
    path = project_dir / "broken.json"
    path.write_text("{not json", encoding="utf-8")
    result = acecode("stats", "--playbook", str(path))
    assert result.returncode == 1
    assert result.stderr.count("\n") == 1
    assert result.stderr.startswith("acecode: ") and "invalid JSON" in result.stderr


def test_history_lists_cycles_with_counts(journaled) -> None:
    _, first, second = journaled
    table = acecode("history", "-n", "1")
    assert table.returncode == 0, table.stderr
    assert short_id(first) not in table.stdout and short_id(second) in table.stdout
    assert "b.jsonl" in table.stdout
    rows = json.loads(acecode("history", "--json").stdout)
    assert [row["cycle_id"] for row in rows] == [first, second]
    assert rows[1]["counts"]["deleted"] == 1 and rows[1]["source"] == "b.jsonl"


def test_history_without_journal(project_dir: Path) -> None:
    result = acecode("history")
    assert result.returncode == 0 and "no history" in result.stdout


def test_undo_without_cycle_undoes_the_last_one(journaled) -> None:
    path, _, second = journaled
    result = acecode("undo")
    assert result.returncode == 0, result.stderr
    assert f"undid cycle {second}" in result.stdout
    texts = {e["text"] for s in load_playbook(path)["sections"].values() for e in s}
    assert "CI runs on two cores" in texts and "ruff format before commit" not in texts
    assert list_cycles(path)[-1].undoes == second


def test_undo_unknown_cycle_fails_cleanly(journaled) -> None:
    result = acecode("undo", "no-such-cycle")
    assert result.returncode == 1
    assert result.stderr.strip() == "acecode: unknown cycle 'no-such-cycle'; see `acecode history`"


def test_undo_conflict_is_refused_then_forced(journaled) -> None:
    path, first, _ = journaled
    third = cycle(path, [{"type": "UPDATE", "target_id": "pat-001", "text": "run pytest -x -q"}])
    refused = acecode("undo", first)
    assert refused.returncode == 1
    assert short_id(third) in refused.stderr and "pat-001" in refused.stderr
    forced = acecode("undo", first, "--force")
    assert forced.returncode == 0, forced.stderr
    assert "kept pat-001" in forced.stdout
    sections = load_playbook(path)["sections"]
    assert [e["text"] for e in sections["PATTERNS & APPROACHES"]] == ["run pytest -x -q"]


def test_restore_a_deleted_entry(journaled) -> None:
    path, _, _ = journaled
    result = acecode("restore", "ctx-001")
    assert result.returncode == 0, result.stderr
    assert "restored ctx-001 into PROJECT CONTEXT" in result.stdout
    assert load_playbook(path)["sections"]["PROJECT CONTEXT"][0]["text"] == "CI runs on two cores"
    missing = acecode("restore", "ctx-404")
    assert missing.returncode == 1 and "no removed entry named 'ctx-404'" in missing.stderr


def test_playbook_option_selects_another_playbook(project_dir: Path) -> None:
    other = project_dir / "elsewhere" / "team.json"
    cid = cycle(other, [{"type": "ADD", "text": "team tip"}], source="team.jsonl")
    rows = json.loads(acecode("history", "--json", "--playbook", str(other)).stdout)
    assert [row["cycle_id"] for row in rows] == [cid]
    assert acecode("undo", "--playbook", str(other)).returncode == 0
    assert load_playbook(other)["sections"]["OTHERS"] == []
    assert not (project_dir / ".claude").exists()  # the default playbook was never touched
