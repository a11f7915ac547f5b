"""The project's instructions in the learning cycle (issue 30): real cycles against a
content-routed Anthropic wire server on 127.0.0.1 playing the reflector, the curator
and the judge, in a project with a real CLAUDE.md.

- The reflector and the curator are shown the instructions' digest, as data.
- A proposed text that repeats an instruction (near-verbatim, or judged the same, or
  less specific) is not applied, and the report names the instruction.
- A proposed text that contradicts one is held for review with both texts and the
  judge's reason; the playbook is unchanged.
- A text the judge calls different, or more specific than the instruction, is learned.
- After the cycle, the entries that repeat an instruction are recorded, and the
  session-start injection leaves them out until the instruction changes.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from acecode.hooks import rendered
from acecode.pipeline import run_cycle_sync
from acecode.quarantine.queue import list_pending
from acecode.store import load_playbook
from support.hang_guard import HANG_GUARD
from support.pipeline import (
    curator_says,
    is_curator,
    is_judge,
    judged_pairs,
    make_playbook,
    request_prompt,
    write_transcript,
)

PAT = "PATTERNS & APPROACHES"
PNPM = "Use pnpm, never npm, to install packages in this repository."
PNPM_PARAPHRASE = "In this repository install packages with pnpm instead of npm."
NPM = "Use npm, never pnpm, to install packages in this repository."
PNPM_DETAIL = "Use pnpm with --frozen-lockfile to install packages in CI for this repository."
UNRELATED = "Run database migrations with make migrate before starting the API server."
CLAUDE_MD = f"# Shop\n\n## Tooling\n- {PNPM}\n- Keep commits small and focused.\n"


def acecode(*args: str) -> subprocess.CompletedProcess[str]:
    """``python -m acecode ARGS`` as a user runs it (doctor's exit status is not the point)."""
    return subprocess.run(
        [sys.executable, "-m", "acecode", *args],
        capture_output=True,
        text=True,
        timeout=HANG_GUARD,
        env={**os.environ, "COLUMNS": "250"},
    )


def add(text: str) -> dict[str, str]:
    return {"type": "ADD", "text": text, "section": PAT}


def texts() -> list[str]:
    return [entry["text"] for entry in load_playbook()["sections"][PAT]]


@pytest.fixture
def claude_md(project_dir: Path) -> Path:
    (project_dir / ".claude").mkdir(exist_ok=True)
    path = project_dir / "CLAUDE.md"
    path.write_text(CLAUDE_MD)
    return path


@pytest.fixture
def transcript(tmp_path: Path) -> Path:
    return write_transcript(tmp_path / "s.jsonl", "set up the repository", "done")


def verdicts_by_label(label: dict[str, str | dict]) -> object:
    """A judge that answers a pair of the pnpm instruction and a text by the text's label
    (``specific``: "text" or "instruction", the side named by what it is), and any other
    pair "different"."""

    def verdict(first: str, second: str) -> str | dict | None:
        if PNPM not in (first, second):
            return "different"
        text = second if first == PNPM else first
        answer = label.get(text, "different")
        if isinstance(answer, dict) and "specific" in answer:
            side = text if answer["specific"] == "text" else PNPM
            return {**answer, "specific": "A" if side == first else "B"}
        return answer

    return verdict


def test_the_roles_see_the_instructions_and_a_repeat_is_not_added(
    routed_llm, claude_md, transcript
):
    verbatim = PNPM.lower().rstrip(".") + "!"  # the same words: no judge needed
    llm = routed_llm(curator_says(add(verbatim), add(UNRELATED)))

    report = run_cycle_sync(transcript)

    prompts = [request_prompt(body) for body in llm.bodies]
    curator = [p for p in prompts if is_curator("", p)]
    reflector = [p for p in prompts if "You are the reflector of acecode" in p]
    for prompt in (curator[0], reflector[0]):
        block = prompt[prompt.index("<project-instructions>") :]
        assert block.startswith(f"<project-instructions>\n## CLAUDE.md\n- {PNPM}\n")
    assert texts() == [UNRELATED]
    [repeat] = report.instruction_repeats
    assert repeat["text"] == verbatim
    assert repeat["instruction"]["file"] == "CLAUDE.md" and repeat["instruction"]["line"] == 4
    assert "1 already in the instructions" in report.summary()


def test_judged_same_less_specific_and_contradicting_texts_stay_out(
    routed_llm, claude_md, transcript
):
    less = "Install packages with a package manager."
    judge = verdicts_by_label(
        {
            PNPM_PARAPHRASE: "same",
            NPM: {"verdict": "conflicting", "reason": "npm against pnpm"},
            PNPM_DETAIL: {"verdict": "more_specific", "specific": "text"},
            less: {"verdict": "more_specific", "specific": "instruction"},
            UNRELATED: "different",
        }
    )
    llm = routed_llm(
        curator_says(
            add(PNPM_PARAPHRASE),
            add(NPM),
            add(PNPM_DETAIL),
            add(less),
            add(UNRELATED),
            judge=judge,
        )
    )

    report = run_cycle_sync(transcript)

    asked = [pair for body in llm.bodies for pair in judged_pairs(request_prompt(body))]
    assert any(pair["A"] == PNPM and pair["B"] == NPM for pair in asked)
    assert texts() == [PNPM_DETAIL, UNRELATED]
    assert sorted(r["text"] for r in report.instruction_repeats) == sorted([PNPM_PARAPHRASE, less])
    [held] = list_pending()
    assert (held.text, held.rule) == (NPM, "instructions")
    assert all(part in held.detail for part in (PNPM, "CLAUDE.md:4", "npm against pnpm"))
    assert [item["text"] for item in report.held_for_review] == [NPM]
    assert not report.curation["de_duplication_results"]["judge"]["new_conflicts"]


def test_an_entry_that_repeats_an_instruction_is_left_out_until_the_instruction_changes(
    routed_llm, claude_md, project_dir, transcript
):
    make_playbook(project_dir / ".claude" / "playbook.json", [PNPM_PARAPHRASE, UNRELATED])
    before = rendered.session_start(str(project_dir))
    assert PNPM_PARAPHRASE in before["text"]
    routed_llm(curator_says(judge=verdicts_by_label({PNPM_PARAPHRASE: "same"})))

    run_cycle_sync(transcript)

    overlap = json.loads((project_dir / ".claude/acecode/instruction-overlap.json").read_text())
    assert [(e["name"], e["kind"], e["label"], e["line"]) for e in overlap["entries"]] == [
        ("pat-001", "repeats", "CLAUDE.md", 4)
    ]
    start = rendered.session_start(str(project_dir))
    assert PNPM_PARAPHRASE not in start["text"] and UNRELATED in start["text"]
    assert [(r["name"], r["instruction"]) for r in start["repeats"]] == [("pat-001", PNPM)]
    assert "pat-001" not in rendered.topup_index(str(project_dir))["names"]
    assert rendered.session_start(str(project_dir)) == start  # served from the cache

    shown = acecode("show", "--injected")
    assert shown.stdout == start["text"] + "\n"  # stdout is exactly what the hook injects
    assert f"[pat-001] repeats CLAUDE.md:4: “{PNPM}”" in shown.stderr
    doctor = acecode("doctor").stdout
    assert f"[pat-001] repeats CLAUDE.md:4: “{PNPM}”" in doctor
    assert "instruction files: 1 loaded at every session start: CLAUDE.md" in doctor
    assert "1 entry repeat an instruction" in doctor
    assert "0 entries contradict an instruction" in doctor

    claude_md.write_text(CLAUDE_MD.replace(f"- {PNPM}\n", ""))
    again = rendered.session_start(str(project_dir))
    assert PNPM_PARAPHRASE in again["text"] and not again.get("repeats")


def test_codex_gets_every_entry(routed_llm, claude_md, project_dir, transcript):
    make_playbook(project_dir / ".claude" / "playbook.json", [PNPM_PARAPHRASE])
    routed_llm(curator_says(judge=verdicts_by_label({PNPM_PARAPHRASE: "same"})))
    run_cycle_sync(transcript)

    assert PNPM_PARAPHRASE not in rendered.session_start(str(project_dir))["text"]
    assert PNPM_PARAPHRASE in rendered.session_start(str(project_dir), agent="codex")["text"]


def test_a_judge_call_is_not_made_for_instruction_pairs_it_answered_before(
    routed_llm, claude_md, project_dir, transcript
):
    make_playbook(project_dir / ".claude" / "playbook.json", [PNPM_PARAPHRASE])
    llm = routed_llm(curator_says(judge=verdicts_by_label({PNPM_PARAPHRASE: "same"})))
    run_cycle_sync(transcript)
    run_cycle_sync(transcript, relearn=True)

    judged = [b for b in llm.bodies if is_judge("", request_prompt(b))]
    assert len(judged) == 1
