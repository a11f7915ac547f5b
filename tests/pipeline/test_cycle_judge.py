"""The judge in the learning cycle (issue 11): embeddings propose, a judge decides.

Every test runs real cycles against a content-routed Anthropic wire server on
127.0.0.1 that plays the reflector, the curator and the judge.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from acecode.dedup.judgements import judgements_path, open_conflicts
from acecode.llm import retry
from acecode.pipeline import run_cycle_sync
from acecode.store import load_playbook
from acecode.store.history import list_cycles
from support.hang_guard import HANG_GUARD
from support.pipeline import (
    curator_says,
    is_curator,
    judged_pairs,
    make_playbook,
    request_prompt,
    write_transcript,
)

PAT = "PATTERNS & APPROACHES"
SINGLE = "Use single quotes for string literals in the TypeScript code."
DOUBLE = "Use double quotes for string literals in the TypeScript code."
TESTS = "Run the unit tests with pytest -x before committing any change."
TESTS_PARAPHRASE = "Before you commit a change, run the unit tests with pytest -x."
TESTS_VERBATIM = "run the unit tests with pytest -x before committing any changes!"
PYTEST_DETAIL = "Run the unit tests with `pytest -x -q tests/unit` before committing any change."


def add(text: str) -> dict[str, str]:
    return {"type": "ADD", "text": text, "section": PAT}


def entries() -> list[tuple[str, str, int]]:
    return [(e["name"], e["text"], e["helpful"]) for e in load_playbook()["sections"][PAT]]


def prompts(llm) -> list[str]:
    return [request_prompt(body) for body in llm.bodies]


def judge_calls(llm) -> list[str]:
    return [prompt for prompt in prompts(llm) if judged_pairs(prompt)]


def last_curator_prompt(llm) -> str:
    return [prompt for prompt in prompts(llm) if is_curator("", prompt)][-1]


@pytest.fixture
def playbook_path(project_dir: Path) -> Path:
    (project_dir / ".claude").mkdir(exist_ok=True)
    return project_dir / ".claude" / "playbook.json"


@pytest.fixture
def transcript(tmp_path: Path) -> Path:
    return write_transcript(tmp_path / "s.jsonl", "fix the tests", "done")


@pytest.fixture
def no_retry_wait(monkeypatch: pytest.MonkeyPatch) -> None:
    async def instant(seconds: float) -> None:
        return None

    monkeypatch.setattr(retry, "delay", instant)


def test_a_paraphrase_is_credited_only_when_judged_the_same(routed_llm, playbook_path, transcript):
    make_playbook(playbook_path, [TESTS])
    llm = routed_llm(curator_says(add(TESTS_PARAPHRASE), judge=lambda a, b: "same"))

    report = run_cycle_sync(transcript)

    assert entries() == [("pat-001", TESTS, 2)]
    assert [p["A"] for p in judged_pairs(judge_calls(llm)[0])] == [TESTS]
    assert len(judge_calls(llm)) == 1
    assert report.tokens["by_role"]["judge"] == {
        "calls": 1,
        "attempts": 1,
        "input_tokens": 100,
        "output_tokens": 20,
    }
    assert report.tokens["total_tokens"] == 120 * len(llm.bodies)  # the judge's included
    judge = report.curation["de_duplication_results"]["judge"]
    assert (judge["pairs_asked"], judge["verdicts"]) == (1, {"same": 1})


@pytest.mark.parametrize(
    "failure",
    [
        pytest.param(lambda a, b: 500, id="server-errors"),
        pytest.param(lambda a, b: {"verdict": "maybe"}, id="unparseable-verdict"),
        pytest.param(lambda a, b: None, id="pair-missing"),
    ],
)
def test_without_a_verdict_only_near_verbatim_duplicates_merge(
    routed_llm, playbook_path, transcript, no_retry_wait, failure
):
    make_playbook(playbook_path, [TESTS, SINGLE])
    llm = routed_llm(
        curator_says(add(TESTS_PARAPHRASE), add(TESTS_VERBATIM), add(DOUBLE), judge=failure)
    )

    report = run_cycle_sync(transcript)

    assert entries() == [
        ("pat-001", TESTS, 2),  # credited by the near-verbatim ADD, and only by it
        ("pat-002", SINGLE, 1),
        ("pat-003", TESTS_PARAPHRASE, 0),
        ("pat-004", DOUBLE, 0),
    ]
    assert report.status == "ok" and report.learned
    judge = report.curation["de_duplication_results"]["judge"]
    assert judge["pairs_asked"] >= 2 and judge["unanswered"] == judge["pairs_asked"]
    assert len(judge_calls(llm)) == (3 if judge["call_failed"] else 1)


def test_a_garbage_reply_is_no_verdict(routed_llm, playbook_path, transcript):
    make_playbook(playbook_path, [SINGLE])
    routed_llm(lambda system, prompt: _garbage_judge(system, prompt, add(DOUBLE)))

    run_cycle_sync(transcript)

    assert entries() == [("pat-001", SINGLE, 1), ("pat-002", DOUBLE, 0)]


def _garbage_judge(system: str, prompt: str, operation: dict) -> str:
    if judged_pairs(prompt):
        return "They look the same to me."
    return curator_says(operation)(system, prompt)


def test_one_pair_left_out_of_the_reply_keeps_its_rules(routed_llm, playbook_path, transcript):
    make_playbook(playbook_path, [TESTS, SINGLE])
    routed_llm(
        curator_says(
            add(TESTS_PARAPHRASE),
            add(DOUBLE),
            judge=lambda a, b: "same" if (a, b) == (TESTS, TESTS_PARAPHRASE) else None,
        )
    )

    run_cycle_sync(transcript)

    assert entries() == [("pat-001", TESTS, 2), ("pat-002", SINGLE, 1), ("pat-003", DOUBLE, 0)]


def test_a_failed_judge_merges_near_verbatim_entries_only(
    routed_llm, playbook_path, transcript, no_retry_wait
):
    make_playbook(playbook_path, [TESTS, SINGLE, TESTS_VERBATIM, DOUBLE, TESTS_PARAPHRASE])
    routed_llm(curator_says(judge=lambda a, b: 500))

    report = run_cycle_sync(transcript)

    assert entries() == [
        ("pat-001", TESTS, 2),
        ("pat-002", SINGLE, 1),
        ("pat-004", DOUBLE, 1),
        ("pat-005", TESTS_PARAPHRASE, 1),
    ]
    judge = report.curation["de_duplication_results"]["judge"]
    assert judge["call_failed"] and judge["unanswered"] == judge["pairs_asked"]


def test_a_cycle_without_a_provider_changes_nothing(playbook_path, transcript):
    make_playbook(playbook_path, [TESTS, SINGLE, TESTS_VERBATIM])
    before = playbook_path.read_bytes()

    report = run_cycle_sync(transcript)

    assert (report.status, report.learned) == ("failed", False)
    assert playbook_path.read_bytes() == before


def test_the_update_rung_applies_a_more_specific_verdict(routed_llm, playbook_path, transcript):
    make_playbook(playbook_path, [TESTS])
    specific = {"verdict": "more_specific", "specific": "B"}
    routed_llm(curator_says(add(PYTEST_DETAIL), judge=lambda a, b: specific))

    report = run_cycle_sync(transcript)

    assert entries() == [("pat-001", PYTEST_DETAIL, 2)]
    decision = report.curation["de_duplication_results"]["ladder_decisions"][0]
    assert (decision["action"], decision["rung"]) == ("update", "more_specific")


def test_semantic_dedup_in_the_cycle_merges_only_judged_pairs(
    routed_llm, playbook_path, transcript
):
    make_playbook(playbook_path, [SINGLE, TESTS, DOUBLE, TESTS_PARAPHRASE])
    verdicts = {(SINGLE, DOUBLE): "conflicting", (TESTS, TESTS_PARAPHRASE): "same"}
    routed_llm(curator_says(judge=lambda a, b: verdicts.get((a, b), "different")))

    report = run_cycle_sync(transcript)

    assert entries() == [("pat-001", SINGLE, 1), ("pat-002", TESTS, 2), ("pat-003", DOUBLE, 1)]
    merged = report.curation["de_duplication_results"]["consolidations"]
    assert [(g["kept"], g["merged"][0]["name"], g["merged"][0]["basis"]) for g in merged] == [
        ("pat-002", "pat-004", "judged same")
    ]


def test_no_candidate_pair_means_no_judge_call(routed_llm, playbook_path, transcript):
    make_playbook(playbook_path, ["Never commit API keys or secrets to the git repository."])
    llm = routed_llm(curator_says(add("Name Go test files after the file they test.")))

    report = run_cycle_sync(transcript)

    assert judge_calls(llm) == []
    assert "judge" not in report.tokens["by_role"]
    assert report.curation["de_duplication_results"]["judge"]["skipped"] == "no candidate pairs"


def test_a_stored_verdict_is_reused_without_a_call(routed_llm, playbook_path, tmp_path):
    make_playbook(playbook_path, [TESTS])
    llm = routed_llm(curator_says(add(TESTS_PARAPHRASE), judge=lambda a, b: "different"))
    run_cycle_sync(write_transcript(tmp_path / "a.jsonl", "first", "done"))
    assert len(judge_calls(llm)) == 1

    llm.router = curator_says(judge=lambda a, b: "same")  # would merge, if it were asked
    run_cycle_sync(write_transcript(tmp_path / "b.jsonl", "second", "done"))

    assert len(judge_calls(llm)) == 1
    assert [name for name, _, _ in entries()] == ["pat-001", "pat-002"]


def test_a_dry_run_asks_the_judge_but_writes_nothing(routed_llm, playbook_path, transcript):
    make_playbook(playbook_path, [TESTS])
    before, state = playbook_path.read_bytes(), state_files(playbook_path)
    routed_llm(curator_says(add(TESTS_PARAPHRASE), judge=lambda a, b: "conflicting"))

    report = run_cycle_sync(transcript, dry_run=True)

    assert report.curation["de_duplication_results"]["judge"]["verdicts"] == {"conflicting": 1}
    assert playbook_path.read_bytes() == before
    assert state_files(playbook_path) == state


def state_files(playbook_path: Path) -> list[tuple[str, bytes]]:
    """Every file of the state folder with its content (saving a playbook creates the folder)."""
    folder = playbook_path.parent / "acecode"
    return sorted((str(f), f.read_bytes()) for f in folder.rglob("*") if f.is_file())


def review(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "acecode", "review", *args],
        capture_output=True,
        text=True,
        timeout=HANG_GUARD,
        env={**os.environ, "COLUMNS": "200"},
    )


def test_a_conflict_keeps_both_rules_is_listed_in_review_and_reaches_the_curator(
    routed_llm, playbook_path, tmp_path
):
    make_playbook(playbook_path, [SINGLE])
    reason = "single against double quotes"
    llm = routed_llm(
        curator_says(add(DOUBLE), judge=lambda a, b: {"verdict": "conflicting", "reason": reason})
    )
    run_cycle_sync(write_transcript(tmp_path / "a.jsonl", "quotes", "done"))

    assert entries() == [("pat-001", SINGLE, 1), ("pat-002", DOUBLE, 0)]  # never credited
    [conflict] = open_conflicts(load_playbook(), playbook_path)
    assert (conflict.names, conflict.reason) == (("pat-001", "pat-002"), reason)
    listed = review()
    assert listed.returncode == 0, listed.stderr
    for expected in (conflict.id, "pat-001", "pat-002", SINGLE, DOUBLE, reason):
        assert expected in listed.stdout

    run_cycle_sync(write_transcript(tmp_path / "b.jsonl", "more quotes", "done"))
    assert f"- [pat-001] and [pat-002]: {reason}" in last_curator_prompt(llm)
    assert len(judge_calls(llm)) == 1  # the pair was judged once

    dismissed = review("dismiss", conflict.id)
    assert dismissed.returncode == 0, dismissed.stderr
    assert "No conflicting rules." in review().stdout
    run_cycle_sync(write_transcript(tmp_path / "c.jsonl", "again", "done"))
    assert "# Conflicting entries\n(none)" in last_curator_prompt(llm)
    assert [name for name, _, _ in entries()] == ["pat-001", "pat-002"]


def test_resolving_a_conflict_deletes_the_other_rule_and_is_journaled(
    routed_llm, playbook_path, transcript
):
    make_playbook(playbook_path, [SINGLE])
    routed_llm(curator_says(add(DOUBLE), judge=lambda a, b: "conflicting"))
    run_cycle_sync(transcript)
    [conflict] = open_conflicts(load_playbook(), playbook_path)

    wrong = review("resolve", conflict.id, "--keep", "pat-009")
    assert wrong.returncode == 1 and wrong.stderr.strip().count("\n") == 0
    done = review("resolve", conflict.id[:6], "--keep", "pat-002")

    assert done.returncode == 0, done.stderr
    assert f"deleted [pat-001] {SINGLE}" in done.stdout
    assert entries() == [("pat-002", DOUBLE, 0)]
    assert list_cycles(playbook_path)[-1].kind == "review"
    assert "No conflicting rules." in review().stdout


def test_a_broken_verdict_file_is_reported_and_left_untouched(
    routed_llm, playbook_path, transcript, capsys
):
    make_playbook(playbook_path, [TESTS])
    broken = judgements_path(playbook_path)
    broken.parent.mkdir(parents=True, exist_ok=True)
    broken.write_text("{not json", encoding="utf-8")
    routed_llm(curator_says(add(TESTS_PARAPHRASE), judge=lambda a, b: "same"))

    run_cycle_sync(transcript)

    assert entries() == [("pat-001", TESTS, 2)]  # this cycle's verdict still applies
    assert broken.read_text(encoding="utf-8") == "{not json"
    assert "judgements.json" in capsys.readouterr().err
    listed = review()
    assert listed.returncode == 1 and "judgements.json" in listed.stderr


def test_learn_dry_run_shows_the_conflict_and_writes_nothing(routed_llm, playbook_path, transcript):
    make_playbook(playbook_path, [SINGLE])
    before, state = playbook_path.read_bytes(), state_files(playbook_path)
    routed_llm(curator_says(add(DOUBLE), judge=lambda a, b: "conflicting"))

    done = subprocess.run(
        [sys.executable, "-m", "acecode", "learn", str(transcript), "--dry-run"],
        capture_output=True,
        text=True,
        timeout=HANG_GUARD,
        env={**os.environ, "COLUMNS": "300"},
    )

    assert done.returncode == 0, done.stderr
    assert f"CONFLICT {SINGLE} <-> {DOUBLE} (both kept)" in done.stdout
    assert f"ADD     pat-002: {DOUBLE}" in done.stdout
    assert playbook_path.read_bytes() == before
    assert state_files(playbook_path) == state


@pytest.mark.parametrize("verdict", ["same", None])
def test_an_update_onto_another_rule_is_dropped_only_when_judged_the_same(
    routed_llm, playbook_path, transcript, verdict
):
    secrets = "Never commit API keys or secrets to the git repository."
    make_playbook(playbook_path, [TESTS, secrets])
    update = {"type": "UPDATE", "target_id": "pat-002", "text": TESTS_PARAPHRASE}
    routed_llm(curator_says(update, judge=lambda a, b: verdict))

    run_cycle_sync(transcript)

    if verdict == "same":
        assert entries() == [("pat-001", TESTS, 2), ("pat-002", secrets, 1)]
    else:
        assert entries() == [("pat-001", TESTS, 1), ("pat-002", TESTS_PARAPHRASE, 1)]


SINGLE_SPECIFIC = (
    "Use single quotes for string literals in the TypeScript code; the lint rule quotes: "
    "['error', 'single'] enforces it."
)


@pytest.mark.parametrize(
    "missed",
    [
        pytest.param("different", id="opposite judged different from the specific text"),
        pytest.param(
            {"verdict": "more_specific", "specific": "A"},
            id="opposite judged a less specific form of the specific text",
        ),
    ],
)
def test_a_conflict_with_a_folded_rule_keeps_both_sides_and_is_shown(
    routed_llm, playbook_path, tmp_path, missed
):
    """A general rule folded into a specific one first; its opposite then meets only the
    specific text, and the judge misses the conflict there (issue 18, item 6). The conflict
    found against the folded rule keeps both sides and shows them in review."""
    make_playbook(playbook_path, [SINGLE_SPECIFIC])

    def judge(first: str, second: str):
        pair = {first, second}
        if pair == {SINGLE_SPECIFIC, SINGLE}:
            return {
                "verdict": "more_specific",
                "specific": "A" if first == SINGLE_SPECIFIC else "B",
            }
        if pair == {SINGLE_SPECIFIC, DOUBLE}:
            return missed
        if pair == {SINGLE, DOUBLE}:
            return {"verdict": "conflicting", "reason": "single against double quotes"}
        return "different"

    llm = routed_llm(curator_says(add(SINGLE), judge=judge))
    run_cycle_sync(write_transcript(tmp_path / "a.jsonl", "quotes", "done"))
    assert entries() == [("pat-001", SINGLE_SPECIFIC, 2)]  # the general rule was folded

    llm.router = curator_says(add(DOUBLE), judge=judge)
    report = run_cycle_sync(write_transcript(tmp_path / "b.jsonl", "more quotes", "done"))

    asked = [{pair["A"], pair["B"]} for call in judge_calls(llm) for pair in judged_pairs(call)]
    assert {SINGLE, DOUBLE} in asked  # the opposite was judged against the folded rule
    assert entries() == [("pat-001", SINGLE_SPECIFIC, 2), ("pat-002", DOUBLE, 0)]
    decision = report.curation["de_duplication_results"]["ladder_decisions"][0]
    assert (decision["action"], decision["reason"]) == (
        "add",
        "judged conflicting with a rule folded into the entry; both kept",
    )
    [conflict] = open_conflicts(load_playbook(), playbook_path)
    assert set(conflict.names) == {"pat-001", "pat-002"}
    assert conflict.folded == SINGLE
    listed = review()
    assert listed.returncode == 0, listed.stderr
    flat = " ".join(listed.stdout.split())
    for expected in (conflict.id, "pat-001", "pat-002", "found against", "folded into"):
        assert expected in flat
