"""A playbook edited by hand: counts written as text, odd values, an ID used twice.

What is unambiguous is converted silently; everything else is read as best
it can be and reported in one line per entry naming the file, the entry and
the problem. An ID used twice is renamed, never dropped. Run through the real
``acecode`` command, then saved, as a user would.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from acecode.playbook.operations import apply_structured_operations
from acecode.store import load_playbook, update_playbook
from support.hang_guard import HANG_GUARD

PAT, MIS = "PATTERNS & APPROACHES", "MISTAKES TO AVOID"

HAND_EDITED = {
    "sections": {
        PAT: [
            {"name": "pat-001", "text": "Run pytest -x first.", "helpful": "3", "harmful": " 1 "},
            {"name": "pat-002", "text": "Use uv for installs.", "helpful": 4.0, "harmful": "0.0"},
            {"name": "pat-003", "text": "Read the Makefile.", "helpful": "lots", "harmful": 2.5},
            {"name": "pat-004", "text": "Prefer pathlib.", "helpful": True},
        ],
        MIS: [
            {"name": "mis-001", "text": "Never edit generated files.", "helpful": 2},
            {"name": "pat-001", "text": "Do not commit .env files.", "helpful": "5", "harmful": 1},
            {"name": "mis-001", "text": "Never force-push main.", "helpful": 1},
        ],
    }
}


def show_json(project: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "acecode", "show", "--format", "json"],
        cwd=project,
        capture_output=True,
        text=True,
        timeout=HANG_GUARD,
    )


@pytest.fixture
def playbook(project_dir: Path) -> Path:
    path = project_dir / ".claude" / "playbook.json"
    path.parent.mkdir()
    path.write_text(json.dumps(HAND_EDITED, indent=2), encoding="utf-8")
    return path


def test_unambiguous_counts_are_converted_and_the_rest_reported_per_entry(playbook: Path) -> None:
    result = show_json(playbook.parents[1])

    assert result.returncode == 0, result.stderr
    sections = json.loads(result.stdout)["sections"]
    counts = {e["name"]: (e["helpful"], e["harmful"]) for e in sections[PAT] + sections[MIS]}
    assert counts["pat-001"] == (3, 1)
    assert counts["pat-002"] == (4, 0)
    assert counts["pat-003"] == (0, 2)  # reported: "lots" is no number, 2.5 no whole one
    assert counts["pat-004"] == (0, 0)  # reported: true is no count
    assert sorted(result.stderr.splitlines()) == sorted(
        [
            f"acecode: {playbook}: entry 'pat-003' of section '{PAT}': helpful 'lots' is not "
            "a number; read as 0; harmful 2.5 is not a whole number; read as 2",
            f"acecode: {playbook}: entry 'pat-004' of section '{PAT}': helpful True is not "
            "a count; read as 0",
            f"acecode: {playbook}: entry 'pat-001' in {MIS} repeats an ID used earlier in the "
            "file; renamed 'mis-002', nothing dropped",
            f"acecode: {playbook}: entry 'mis-001' in {MIS} repeats an ID used earlier in the "
            "file; renamed 'mis-003', nothing dropped",
        ]
    )


def test_a_repeated_id_is_renamed_and_saving_keeps_every_entry(playbook: Path) -> None:
    with update_playbook(playbook) as txn:
        txn.playbook = apply_structured_operations(
            txn.playbook, [{"type": "ADD", "section": MIS, "text": "Pin the CI image."}]
        )

    on_disk = json.loads(playbook.read_text(encoding="utf-8"))["sections"]
    assert [(e["name"], e["text"], e["helpful"], e["harmful"]) for e in on_disk[MIS]] == [
        ("mis-001", "Never edit generated files.", 2, 0),
        ("mis-002", "Do not commit .env files.", 5, 1),
        ("mis-003", "Never force-push main.", 1, 0),
        ("mis-004", "Pin the CI image.", 0, 0),
    ]
    assert [e["name"] for e in on_disk[PAT]] == ["pat-001", "pat-002", "pat-003", "pat-004"]
    for entries in on_disk.values():
        for entry in entries:
            assert list(entry) == ["name", "text", "helpful", "harmful"]
            assert all(isinstance(entry[key], int) for key in ("helpful", "harmful"))
    # Saved clean: the next reader has nothing left to report.
    again = show_json(playbook.parents[1])
    assert again.returncode == 0 and again.stderr == ""
    assert load_playbook(playbook)["sections"][MIS][1]["name"] == "mis-002"


def test_a_name_that_is_not_a_string_is_replaced_and_reported(project_dir: Path) -> None:
    path = project_dir / ".claude" / "playbook.json"
    path.parent.mkdir()
    path.write_text(json.dumps({"sections": {"OTHERS": [{"name": 7, "text": "t", "helpful": 1}]}}))

    result = show_json(project_dir)

    [entry] = json.loads(result.stdout)["sections"]["OTHERS"]
    assert entry == {"name": "kpt_001", "text": "t", "helpful": 1, "harmful": 0}
    assert result.stderr == (
        f"acecode: {path}: entry 'kpt_001' of section 'OTHERS': name 7 is not a string\n"
    )
