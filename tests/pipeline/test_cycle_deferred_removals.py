"""The removal budget in the open (issue 17): a DELETE it defers is counted in the cycle
line, the curator is told the limit, and the next cycle applies the deferred DELETE
when the budget allows (or drops it, saying why, when its entry changed).

Real cycles against the scripted Anthropic server on 127.0.0.1; ``acecode doctor`` as a
user runs it.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from acecode.pipeline import run_cycle_sync
from acecode.store import load_playbook, save_playbook
from acecode.store.history import get_cycle
from support.hang_guard import HANG_GUARD
from support.pipeline import (
    DISTINCT_TIPS,
    PLAIN_REFLECTION,
    is_curator,
    make_playbook,
    request_prompt,
    write_transcript,
)

TIPS = list(DISTINCT_TIPS[:10])
DELETE_2 = {"type": "DELETE", "target_id": "pat-002", "reason": "pathlib is already the rule"}
DELETE_3 = {"type": "DELETE", "target_id": "pat-003", "reason": "the logger moved"}


def curator_plays(*turns: list[dict[str, Any]]) -> Callable[[str, str], str]:
    """Route: the curator answers each turn's operations in order (the last repeats);
    anything else gets a plain reflection."""
    script = list(turns)

    def route(system: str, prompt: str) -> str:
        if not is_curator(system, prompt):
            return PLAIN_REFLECTION
        operations = script.pop(0) if len(script) > 1 else script[0]
        return json.dumps({"reasoning": "scripted", "operations": operations})

    return route


def curator_prompts(llm: Any) -> list[str]:
    prompts = [request_prompt(body) for body in llm.bodies]
    return [prompt for prompt in prompts if "you are the curator" in prompt.lower()]


def names() -> list[str]:
    return [e["name"] for e in load_playbook()["sections"]["PATTERNS & APPROACHES"]]


def doctor() -> str:
    result = subprocess.run(
        [sys.executable, "-m", "acecode", "doctor"],
        capture_output=True,
        text=True,
        timeout=HANG_GUARD,
        env={**os.environ, "COLUMNS": "250"},
    )
    return result.stdout


def test_a_deferred_delete_is_shown_and_applied_by_the_next_cycle(
    routed_llm, project_dir: Path, tmp_path: Path
) -> None:
    make_playbook(project_dir / ".claude" / "playbook.json", TIPS)  # 10 entries: 1 removal
    llm = routed_llm(curator_plays([DELETE_2, DELETE_3], []))

    first = run_cycle_sync(write_transcript(tmp_path / "a.jsonl", "tidy up", "done"))

    assert "pat-002" not in names() and "pat-003" in names()
    assert ", 1 operation applied, 0 skipped, 1 deferred by the removal budget, " in (
        first.summary()
    )
    assert "At most 1 removal this cycle" in curator_prompts(llm)[0]
    [held] = first.curation["quality_assurance"]["deferred"]
    assert held["operation"]["target_id"] == "pat-003" and "budget" in held["reason"]
    assert "1 removal deferred by the removal budget (max_removal_ratio), applied by the " in (
        doctor()
    )
    assert f"DELETE pat-003 (cycle {first.cycle_id})" in doctor()

    # The next curator proposes nothing; the deferred DELETE fits the new budget.
    second = run_cycle_sync(write_transcript(tmp_path / "b.jsonl", "more work", "done"))

    assert "pat-003" not in names() and len(names()) == 8
    assert "At most 0 removals this cycle" in curator_prompts(llm)[1]  # the carried one first
    assert ", 1 operation applied, 0 skipped, 0 held" in second.summary()
    assert not (project_dir / ".claude" / "acecode" / "deferred-removals.json").exists()
    journal = get_cycle(project_dir / ".claude" / "playbook.json", second.cycle_id)
    [deleted] = [op for op in journal.operations if op["action"] == "entries_deleted"]
    assert deleted["name"] == "pat-003"
    assert deleted["reason"] == (
        f"the logger moved (deferred from cycle {first.cycle_id} by the removal budget)"
    )
    assert "removal deferred" not in doctor()


def test_a_deferred_delete_of_an_entry_changed_since_is_dropped_with_its_reason(
    routed_llm, project_dir: Path, tmp_path: Path
) -> None:
    playbook = project_dir / ".claude" / "playbook.json"
    make_playbook(playbook, TIPS)
    routed_llm(curator_plays([DELETE_2, DELETE_3], []))
    first = run_cycle_sync(write_transcript(tmp_path / "a.jsonl", "tidy up", "done"))
    edited = load_playbook(playbook)
    edited["sections"]["PATTERNS & APPROACHES"][1]["text"] = "Log with structlog from app.log."
    save_playbook(edited, playbook)

    second = run_cycle_sync(write_transcript(tmp_path / "b.jsonl", "more work", "done"))

    assert "pat-003" in names()
    assert (
        f"deferred DELETE pat-003 (cycle {first.cycle_id}) dropped: pat-003 was changed since"
        in second.warnings
    )
    assert not (project_dir / ".claude" / "acecode" / "deferred-removals.json").exists()
