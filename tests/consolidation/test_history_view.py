"""``acecode history`` as a person reads it: one line per cycle, one status for every kind.

The history mixes every kind of journaled change (learned cycles with long transcript
paths, hand edits, an undo, a restore, a git merge, a move to the user layer) with
learning cycles that saved nothing (skipped, failed, nothing new, with long reasons),
as a month of real use does.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from acecode.cli.history_view import LEGEND
from acecode.playbook.operations import apply_operations_with_outcomes
from acecode.project import outcomes
from acecode.project.layer import Layer
from acecode.store import update_playbook
from acecode.store.history import list_cycles, short_id
from support.hang_guard import HANG_GUARD

SESSIONS = Path.home() / ".claude" / "projects" / "-home-dev-a-rather-long-project-name"
LONG_REASON = (
    "reflector: anthropic call failed (3 attempts used): HTTP 529 overloaded_error from "
    "https://llm.example.internal:8443/v1/messages, retry later"
)


def acecode(*args: str, columns: int = 200, code: int = 0) -> subprocess.CompletedProcess[str]:
    result = subprocess.run(
        [sys.executable, "-m", "acecode", *args],
        capture_output=True,
        text=True,
        timeout=HANG_GUARD,
        env={**os.environ, "COLUMNS": str(columns)},
    )
    assert result.returncode == code, result.stdout + result.stderr
    return result


def _transcript(number: int) -> str:
    return str(SESSIONS / f"5f3c1c8e-0b7a-4d2e-9c41-{number:012d}.jsonl")


def _learned(path: Path, ops: list[dict[str, Any]], number: int, kind: str = "learn") -> str:
    """A cycle saved as the learner saves one, with its record in cycles.jsonl."""
    with update_playbook(path) as txn:
        txn.playbook, _ = apply_operations_with_outcomes(txn.playbook, ops)
        txn.meta.update(kind=kind, source="hook", transcript=_transcript(number))
    cycle_id = txn.meta["cycle_id"]
    record = {"cycle_id": cycle_id, "status": "ok", "source": "hook"}
    outcomes.record_outcome(Layer(path), {**record, "finished_at": _now()})
    return cycle_id


def _unsaved(path: Path, status: str, reason: str, number: int) -> str:
    """A learning cycle that saved nothing: only its record in cycles.jsonl."""
    cycle_id = f"{_now().replace('-', '').replace(':', '').replace('T', '-')[:15]}-u{number:05d}"
    outcomes.record_outcome(
        Layer(path),
        {
            "cycle_id": cycle_id,
            "finished_at": _now(),
            "source": "hook",
            "transcript": _transcript(number),
            "status": status,
            "reason": reason,
        },
    )
    return cycle_id


def _now() -> str:
    from datetime import datetime

    return datetime.now().astimezone().isoformat(timespec="seconds")


def _add(text: str, section: str = "PATTERNS & APPROACHES") -> dict[str, Any]:
    return {"type": "ADD", "text": text, "section": section}


@pytest.fixture
def month(project_dir: Path) -> dict[str, str]:
    """Twenty-odd cycles of every kind; returns the id of one of each, by kind."""
    path = project_dir / ".claude" / "playbook.json"
    ids: dict[str, str] = {}
    ids["learn"] = _learned(
        path, [_add(f"tip {i}: run the focused test first") for i in range(3)], 1
    )
    ids["skipped"] = _unsaved(path, "skipped", "session too small to teach anything", 2)
    ids["failed"] = _unsaved(path, "failed", LONG_REASON, 3)
    ids["nothing-new"] = _unsaved(path, "nothing-new", "the LLM found nothing to add", 4)
    acecode("add", "Use uv run for every script", "--section", "USER PREFERENCES")
    acecode("edit", "pat-002", "tip 1 rewritten by hand")
    acecode("forget", "pat-003")
    acecode("undo")  # puts pat-003 back
    _learned(path, [{"type": "DELETE", "target_id": "pat-003", "reason": "obsolete"}], 5)
    acecode("restore", "pat-003")
    with update_playbook(path) as txn:  # what the git merge driver journals
        txn.playbook["sections"]["OTHERS"].append(
            {"name": "oth-001", "text": "From the team branch", "helpful": 2, "harmful": 0}
        )
        txn.meta.update(kind="merge", source="git merge feature")
    acecode("move", "pref-001", "--to", "user")
    for number in range(6, 15):
        _learned(path, [_add(f"rule {number} about the build", "OTHERS")], number)
    return ids


def _rows(table: str) -> list[list[str]]:
    """The table's body rows, split into cells (cells hold single spaces only)."""
    lines = table.splitlines()
    start = next(i for i, line in enumerate(lines) if set(line.strip()) == {"─"}) + 1
    legend = [line.strip() for line in LEGEND.splitlines()]
    body = [line.strip() for line in lines[start:] if line.strip()]
    assert body[-len(legend) :] == legend  # the legend stays whole below the rows
    return [re.split(r" {2,}", line) for line in body[: -len(legend)]]


@pytest.mark.parametrize("columns", [120, 80])
def test_every_cycle_is_one_line_with_its_whole_id(month: dict[str, str], columns: int) -> None:
    table = acecode("history", columns=columns).stdout
    rows = _rows(table)
    assert len(rows) == 20  # the default limit, one line each
    assert all(len(line) <= columns for line in table.splitlines())
    assert len(table.splitlines()) <= 20 + 7  # title, header, rule, 2 legend lines
    shown = {row[0] for row in rows}
    journaled = {short_id(cycle.cycle_id) for cycle in list_cycles(Path(".claude/playbook.json"))}
    assert len(shown & journaled) >= 14  # whole short ids, never wrapped or cut
    for ref in shown & journaled:  # and each one names its cycle for the other commands
        assert acecode("history", ref, "--json").returncode == 0


def test_one_status_column_says_something_for_every_kind(month: dict[str, str]) -> None:
    rows = _rows(acecode("history", "-n", "0", columns=120).stdout)
    by_kind: dict[str, set[str]] = {}
    for row in rows:
        by_kind.setdefault(row[2], set()).add(row[3])
    assert by_kind["learn"] == {"ok", "skipped", "failed", "nothing-new"}
    assert by_kind["forget"] == {"undone"}
    for kind in ("add", "edit", "undo", "restore", "merge", "move"):
        assert by_kind[kind] == {"ok"}, kind
    failed = next(row for row in rows if row[0] == short_id(month["failed"]))
    assert failed[-1].startswith("reflector: anthropic call failed")
    forget = next(row for row in rows if row[2] == "forget")
    assert forget[4:] == ["-1", f"undone by {forget_undo(rows)}; -pat-003"]
    records = json.loads(acecode("history", "-n", "0", "--json").stdout)
    assert all(record["status"] for record in records)


def forget_undo(rows: list[list[str]]) -> str:
    return next(row[0] for row in rows if row[2] == "undo")


def test_one_cycle_in_full_names_its_session_and_each_entry(month: dict[str, str]) -> None:
    detail = acecode("history", short_id(month["learn"]), columns=80).stdout
    assert detail.startswith(f"cycle {month['learn']}\n")
    assert f"transcript: {_transcript(1)}" in detail
    assert "+ pat-001 (PATTERNS & APPROACHES): tip 0: run the focused test first" in detail
    failed = acecode("history", month["failed"]).stdout
    assert f"status: failed: {LONG_REASON}" in failed
    verbose = acecode("history", "--verbose", "-n", "3").stdout
    assert verbose.count("\ncycle ") == 2 and verbose.startswith("cycle ")
    unknown = acecode("history", "nope", code=1)
    assert unknown.stderr.strip() == "acecode: unknown cycle 'nope'; see `acecode history`"
