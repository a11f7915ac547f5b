"""The learning cycle end to end: real transcript file, real HTTP LLM, real playbook file."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from acecode.pipeline import run_cycle_sync
from acecode.store import load_playbook, save_playbook
from support.hang_guard import HANG_GUARD
from support.pipeline import is_curator, write_transcript

REFLECTION = {
    "analysis": "pytest failed on a missing yaml module; [pat-001] helped.",
    "bullet_tags": [
        {"name": "pat-001", "tag": "helpful", "rationale": "cited and applied"},
        {"name": "pat-404", "tag": "harmful", "rationale": "no such entry"},
    ],
}
CURATION = {
    "reasoning": "Record the missing dependency lesson.",
    "operations": [
        {
            "type": "ADD",
            "text": "Install PyYAML before running the test suite; it is an undeclared dependency.",
            "section": "MISTAKES TO AVOID",
        },
        {"type": "DELETE", "target_id": "oth-999", "reason": "stale"},
    ],
}


def router(system: str, prompt: str) -> str:
    return json.dumps(CURATION if is_curator(system, prompt) else REFLECTION)


@pytest.fixture
def playbook_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    project = tmp_path / "project"
    (project / ".claude").mkdir(parents=True)
    monkeypatch.setenv("CLAUDE_PROJECT_DIR", str(project))
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    path = project / ".claude" / "playbook.json"
    save_playbook(
        {
            "version": "1.0",
            "last_updated": None,
            "sections": {
                "PATTERNS & APPROACHES": [
                    {"name": "pat-001", "text": "Run pytest -x first.", "helpful": 1, "harmful": 0}
                ]
            },
        },
        path,
    )
    return path


def test_cycle_applies_tags_and_operations_and_reports(routed_llm, playbook_file, tmp_path):
    llm = routed_llm(router)
    transcript = write_transcript(
        tmp_path / "s.jsonl", "Please fix the failing tests", "Fixed it, following [pat-001]."
    )

    report = run_cycle_sync(transcript)

    saved = load_playbook(playbook_file)
    assert saved["sections"]["PATTERNS & APPROACHES"][0]["helpful"] == 2
    mistakes = saved["sections"]["MISTAKES TO AVOID"]
    assert [e["name"] for e in mistakes] == ["mis-001"]
    assert mistakes[0]["text"].startswith("Install PyYAML")
    assert report.saved and report.status == "ok" and report.llm_ok
    assert report.cited_ids == ["pat-001"]
    assert [t["name"] for t in report.tags_applied] == ["pat-001"]
    assert report.tags_skipped == [
        {"name": "pat-404", "tag": "harmful", "reason": "unknown entry or tag"}
    ]
    assert [(o["type"], o["applied"]) for o in report.operations] == [
        ("ADD", True),
        ("DELETE", False),
    ]
    assert "not found" in report.operations[1]["reason"]
    # Reflector, curator and the safety review of the one ADD text: 3 x (100 + 20).
    assert report.tokens["total_tokens"] == 360
    assert report.tokens["by_role"]["safety_review"]["calls"] == 1
    assert (report.entries_before, report.entries_after) == (1, 2)
    # The reflector saw the failing tool call; the curator never saw the transcript.
    assert len(llm.bodies) == 3
    assert "No module named" in llm.bodies[0]
    assert "No module named" not in llm.bodies[1]
    assert "No module named" not in llm.bodies[2]


def test_dry_run_reports_but_saves_nothing(routed_llm, playbook_file, tmp_path):
    routed_llm(router)
    before = playbook_file.read_bytes()
    transcript = write_transcript(tmp_path / "s.jsonl", "fix tests", "done [pat-001]")

    report = run_cycle_sync(transcript, dry_run=True)

    assert playbook_file.read_bytes() == before
    assert not report.saved
    assert report.operations[0]["applied"] is True
    assert report.entries_after == 2


def test_empty_transcript_makes_no_llm_call(routed_llm, playbook_file, tmp_path):
    llm = routed_llm(router)
    empty = tmp_path / "empty.jsonl"
    empty.write_text("", encoding="utf-8")

    report = run_cycle_sync(empty)

    assert (report.status, report.reason) == ("skipped", "the transcript has no messages")
    assert llm.bodies == []


def test_unparseable_llm_reply_leaves_playbook_unchanged(routed_llm, playbook_file, tmp_path):
    routed_llm(lambda system, prompt: "I cannot answer in JSON today.")
    before = load_playbook(playbook_file)
    transcript = write_transcript(tmp_path / "s.jsonl", "fix tests", "done")

    report = run_cycle_sync(transcript)

    assert load_playbook(playbook_file)["sections"] == before["sections"]
    assert report.status == "failed"
    assert report.reason.startswith("reflector: the reply contained no JSON object")
    assert not report.saved


def test_secrets_in_the_transcript_never_reach_the_llm(routed_llm, playbook_file, tmp_path):
    llm = routed_llm(router)
    key = "AKIA" + "Q3EGRT5NWXAMPLE7"
    token = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"
    transcript = write_transcript(
        tmp_path / "s.jsonl",
        f"deploy with AWS_ACCESS_KEY_ID={key} and GITHUB_TOKEN={token}",
        "done",
        error=f"fatal: could not read from https://user:{token}@github.com/org/repo.git",
    )

    run_cycle_sync(transcript)

    assert llm.bodies, "the reflector was called"
    for body in llm.bodies:
        assert key not in body
        assert token not in body


LESSONS = {
    "alpha": "Run the database migrations before starting the API server locally.",
    "beta": "Prefer pathlib over os.path in new file-handling code.",
}


def _learn_process(transcript: Path, env: dict[str, str]) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-m", "acecode", "learn", str(transcript), "--json"],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def test_two_cycles_started_together_lose_nothing(routed_llm, playbook_file, tmp_path):
    # Each reflector call waits for the other's: both cycles have read the same
    # snapshot before either saves, however the machine schedules the two processes.
    both_started = threading.Barrier(2)

    def by_marker(system: str, prompt: str) -> str:
        marker = "alpha" if "MARKER-alpha" in prompt else "beta"
        if is_curator(system, prompt):
            text = LESSONS[marker]
            return json.dumps({"reasoning": marker, "operations": [{"type": "ADD", "text": text}]})
        both_started.wait(HANG_GUARD)
        return json.dumps({"analysis": f"MARKER-{marker} session", "bullet_tags": []})

    routed_llm(by_marker)
    env = {**os.environ, "ACECODE_LLM_TIMEOUT": str(HANG_GUARD)}  # held calls must not retry
    first = write_transcript(tmp_path / "a.jsonl", "MARKER-alpha fix it", "ok")
    second = write_transcript(tmp_path / "b.jsonl", "MARKER-beta fix it", "ok")

    processes = [_learn_process(first, env), _learn_process(second, env)]
    outputs = [p.communicate(timeout=HANG_GUARD) for p in processes]

    for process, (out, err) in zip(processes, outputs, strict=True):
        assert process.returncode == 0, err
        assert json.loads(out)[0]["saved"] is True
    texts = [e["text"] for e in load_playbook(playbook_file)["sections"]["OTHERS"]]
    assert sorted(texts) == sorted(LESSONS.values())
    assert sorted(e["name"] for e in load_playbook(playbook_file)["sections"]["OTHERS"]) == [
        "oth-001",
        "oth-002",
    ]


def test_learn_dry_run_prints_each_change_and_saves_nothing(routed_llm, playbook_file, tmp_path):
    routed_llm(router)
    before = playbook_file.read_bytes()
    transcript = write_transcript(tmp_path / "s.jsonl", "fix tests", "done [pat-001]")

    result = subprocess.run(
        [sys.executable, "-m", "acecode", "learn", str(transcript), "--dry-run"],
        env=dict(os.environ),
        capture_output=True,
        text=True,
        timeout=HANG_GUARD,
    )

    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0].startswith("cycle ") and "[ok]" in lines[0]
    assert "  ADD     mis-001: Install PyYAML before running the test suite" in result.stdout
    assert "  SKIP    DELETE: target_id 'oth-999' not found" in result.stdout
    assert playbook_file.read_bytes() == before


def test_learn_names_a_missing_transcript_in_one_line(playbook_file, tmp_path):
    result = subprocess.run(
        [sys.executable, "-m", "acecode", "learn", str(tmp_path / "nope.jsonl")],
        env=dict(os.environ),
        capture_output=True,
        text=True,
        timeout=HANG_GUARD,
    )

    assert result.returncode == 1
    assert result.stderr.strip() == (
        f"acecode: {tmp_path / 'nope.jsonl'}: no such transcript file or folder"
    )


def test_a_secret_from_the_llm_never_lands_in_playbook_report_or_diagnostics(
    routed_llm, playbook_file, tmp_path
):
    token = "ghp_" + "Z9y8X7w6V5u4T3s2R1q0P9o8N7m6L5k4J3i2"
    leaky = {
        "reasoning": f"the session used {token}",
        "operations": [
            {"type": "ADD", "text": f"Authenticate the GitHub CLI with the token {token}."},
            {"type": "UPDATE", "target_id": "pat-001", "text": f"Run pytest -x; GH_TOKEN={token}"},
            {"type": "UPDATE", "target_id": "pat-404", "text": f"Export GH_TOKEN={token} first."},
        ],
    }

    def router(system: str, prompt: str) -> str:
        if is_curator(system, prompt):
            return json.dumps(leaky)
        return json.dumps({"analysis": f"token {token} was printed", "bullet_tags": []})

    routed_llm(router)
    project = playbook_file.parent.parent
    (project / ".claude" / "diagnostic_mode").touch()
    transcript = write_transcript(tmp_path / "s.jsonl", "set up gh", "done")

    report = run_cycle_sync(transcript)

    assert report.saved
    written = [p for p in (project / ".claude").rglob("*") if p.is_file()]
    assert any(path.suffix == ".txt" for path in written), "diagnostics were written"
    assert any(path.suffix == ".sqlite" for path in written), "the journal was written"
    for path in written:
        assert token.encode() not in path.read_bytes(), path
    assert "[REDACTED:" in playbook_file.read_text(encoding="utf-8")
