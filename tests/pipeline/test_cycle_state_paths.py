"""Issue 21's goal: followed from the cycle's entry, the playbook enters each module
at most twice.

A real cycle (real transcript, real HTTP LLM on 127.0.0.1, real files) runs under
the profiler of :mod:`support.path_flow`, which counts every call site that hands
the playbook file or its state folder from one acecode module to another. The
table it prints on failure says which sites hand it over.
"""

from __future__ import annotations

import json
from pathlib import Path

from acecode.pipeline import run_cycle_sync
from acecode.project.layers import user_playbook_file
from acecode.store import load_playbook, save_playbook
from support.path_flow import watching
from support.pipeline import curator_says, write_transcript
from support.playbooks import entry

MAX_ENTRIES = 2
RULES = [
    entry("pat-001", "Run pytest -x before pushing.", 2),
    entry("pat-002", "Prefer pathlib.Path over os.path in new code.", 1),
    entry("pat-003", "Log with the structlog logger, never with print.", 0, 3),
]


def _cycle_flow(
    project: Path, routed_llm, tmp_path: Path, *operations: dict, user_layer: bool = False
) -> dict[str, int]:
    playbook = project / ".claude" / "playbook.json"
    save_playbook({"sections": {"PATTERNS & APPROACHES": [dict(rule) for rule in RULES]}}, playbook)
    watched = [playbook, playbook.parent / "acecode"]
    if user_layer:
        user = Path(user_playbook_file())
        save_playbook(
            {"sections": {"USER PREFERENCES": [entry("u-pref-001", "Be terse.", 1)]}}, user
        )
        watched += [user, user.parent / "acecode"]
    routed_llm(curator_says(*operations))
    transcript = write_transcript(
        tmp_path / "s.jsonl", "the tests fail on import", "Fixed [pat-001].", error="ImportError"
    )
    with watching(*watched) as flow:
        report = run_cycle_sync(transcript)
    assert report.status == "ok", report.reason
    print(flow.table())  # shown with `pytest -s`: where the path still goes
    entries = flow.entries()
    assert entries, "the profiler saw no entry at all: it measures nothing"
    crowded = {module: count for module, count in entries.items() if count > MAX_ENTRIES}
    assert not crowded, f"modules entered more than {MAX_ENTRIES} times:\n{flow.table()}"
    return entries


def test_a_cycle_that_adds_updates_and_deletes_hands_the_playbook_to_each_module_at_most_twice(
    project, routed_llm, tmp_path
):
    _cycle_flow(
        project,
        routed_llm,
        tmp_path,
        {"type": "ADD", "section": "PATTERNS & APPROACHES", "text": "Install with `uv sync`."},
        {"type": "UPDATE", "target_id": "pat-002", "text": "Use pathlib.Path for file paths."},
        {"type": "DELETE", "target_id": "pat-003", "reason": json.dumps("proved harmful")},
    )


def test_a_cycle_that_learns_into_both_layers_hands_each_playbook_to_each_module_at_most_twice(
    project, routed_llm, tmp_path
):
    entries = _cycle_flow(
        project,
        routed_llm,
        tmp_path,
        {"type": "ADD", "section": "PATTERNS & APPROACHES", "text": "Install with `uv sync`."},
        {
            "type": "ADD",
            "section": "USER PREFERENCES",
            "text": "Answer in English.",
            "scope": "user",
        },
        {"type": "UPDATE", "target_id": "u-pref-001", "text": "Be terse; no headings."},
        user_layer=True,
    )
    # The scenario reached the user layer's stages: its playbook was written.
    user_texts = [
        rule["text"] for rule in load_playbook(user_playbook_file())["sections"]["USER PREFERENCES"]
    ]
    assert "Answer in English." in user_texts, entries
