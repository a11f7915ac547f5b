"""`acecode impact` as a user runs it: a real subprocess over real files."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from tests.impact.history import build_history, file_as_claude_code

from support.hang_guard import HANG_GUARD

DATA = Path(__file__).parents[1] / "data" / "transcripts"
PUSH = "Bash | git push | fatal: The current branch <name> has no upstream branch"


def acecode(*args: str, code: int = 0) -> subprocess.CompletedProcess[str]:
    result = subprocess.run(
        [sys.executable, "-m", "acecode", *args],
        capture_output=True,
        text=True,
        timeout=HANG_GUARD,
        env={**os.environ, "COLUMNS": "200"},
    )
    assert result.returncode == code, result.stderr
    return result


def impact_json(*args: str) -> dict:
    return json.loads(acecode("impact", "--json", *args).stdout)


def test_before_and_after_the_entry_learned_from_the_failure(project_dir: Path) -> None:
    history = build_history(project_dir)
    report = impact_json("--transcripts", str(history["folder"]))
    assert report["sessions"] == 4
    assert report["failed_calls"] == 4
    top = report["signatures"][0]
    assert (top["signature"], top["sessions"], top["calls"]) == (PUSH, 3, 3)
    [entry] = report["entries"]
    assert entry["entry"] == "mis-001"
    assert entry["signature"] == PUSH
    assert entry["before"] == {"sessions_with_failure": 2, "sessions": 2}
    assert entry["after"] == {"sessions_with_failure": 1, "sessions": 2}


def test_sessions_started_in_a_subfolder_are_read_by_default(project_dir: Path) -> None:
    """Without ``--transcripts``, the project's sessions are those Claude Code filed for
    its root and for its subfolders: all used the project's playbook."""
    history = build_history(project_dir)
    first, second, third, fourth = history["sessions"]
    file_as_claude_code([first, second], project_dir)
    file_as_claude_code([third, fourth], project_dir / "src" / "app")

    found = impact_json()
    named = impact_json("--transcripts", str(history["folder"]))

    assert found["sessions"] == 4
    assert {k: v for k, v in found.items() if k != "transcripts"} == {
        k: v for k, v in named.items() if k != "transcripts"
    }


def test_citations_are_counted_per_entry_per_iso_week(project_dir: Path) -> None:
    history = build_history(project_dir)
    report = impact_json("--transcripts", str(history["folder"]))
    assert report["citations_per_week"] == {
        "mis-001": {"2026-W12": 1, "2026-W13": 1},
        "pat-002": {"2026-W12": 1},
    }


def test_retire_candidates_skip_cited_tagged_and_young_entries(project_dir: Path) -> None:
    history = build_history(project_dir)
    everything = impact_json("--transcripts", str(history["folder"]))["retire"]
    assert everything["sessions_in_window"] == 4
    # mis-001 and pat-002 were cited, pat-003 tagged by the journaled cycle of session 4,
    # pat-004 was learned after the window began.
    assert [c["entry"] for c in everything["candidates"]] == ["pat-001"]

    last = impact_json("--transcripts", str(history["folder"]), "--sessions", "1")["retire"]
    assert last["window"] == 1
    candidates = {c["entry"]: c for c in last["candidates"]}
    assert sorted(candidates) == ["pat-001", "pat-002", "pat-004"]
    assert candidates["pat-002"]["last_cited"].startswith("2026-03-16")
    assert candidates["pat-001"]["last_cited"] is None


def test_since_keeps_only_later_sessions(project_dir: Path) -> None:
    history = build_history(project_dir)
    report = impact_json("--transcripts", str(history["folder"]), "--since", "2026-03-10")
    assert report["sessions"] == 2
    [entry] = report["entries"]
    assert entry["before"] == {"sessions_with_failure": 0, "sessions": 0}
    assert entry["after"] == {"sessions_with_failure": 1, "sessions": 2}


def test_default_folder_is_the_projects_claude_code_sessions(project_dir: Path) -> None:
    from acecode.agents.claude_code.sessions import sessions_dir

    history = build_history(project_dir)
    target = sessions_dir(project_dir)
    target.parent.mkdir(parents=True)
    history["folder"].rename(target)
    report = impact_json()
    assert report["sessions"] == 4
    assert report["transcripts"] == str(target)


def test_tables_name_every_part(project_dir: Path) -> None:
    history = build_history(project_dir)
    out = acecode("impact", "--transcripts", str(history["folder"])).stdout
    for title in (
        "Failure signatures",
        "Failures before and after the entry learned from them",
        "Citations per week",
        "Retire candidates: not cited or tagged in the last 4 sessions (of 20 asked)",
    ):
        assert title in out
    assert "2 of 2 sessions" in out and "1 of 2 sessions" in out
    assert "git push" in out and "pat-001" in out


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            ("--since", "last tuesday"),
            "--since 'last tuesday' is not a date (YYYY-MM-DD or an ISO time)",
        ),
        (("--transcripts", "nowhere"), "nowhere: no such transcript file or folder"),
    ],
)
def test_bad_input_is_one_line_naming_the_problem(args: tuple[str, ...], message: str) -> None:
    result = acecode("impact", *args, code=1)
    assert result.stderr.strip() == f"acecode: {message}"


def test_damaged_provenance_is_one_warning_and_the_rest_of_the_report(project_dir: Path) -> None:
    history = build_history(project_dir)
    provenance = project_dir / ".claude" / "acecode" / "provenance.json"
    provenance.write_text("{not json")
    result = acecode("impact", "--json", "--transcripts", str(history["folder"]))
    assert "provenance unreadable" in result.stderr and "provenance.json" in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1
    report = json.loads(result.stdout)
    assert report["entries"] == [] and report["sessions"] == 4


def _raw_failed_calls(path: Path) -> int:
    """Independent count: tool_result blocks marked is_error in the raw JSON lines."""
    count = 0
    for line in path.read_text(encoding="utf-8").splitlines():
        try:
            record = json.loads(line)
        except ValueError:
            continue
        content = (
            (record.get("message") or {}).get("content") if record.get("type") == "user" else None
        )
        if isinstance(content, list):
            count += sum(
                1
                for block in content
                if isinstance(block, dict)
                and block.get("type") == "tool_result"
                and block.get("is_error")
            )
    return count


def test_real_transcripts_every_failed_call_is_counted_once() -> None:
    files = [p for p in DATA.rglob("*.jsonl") if not p.name.startswith("agent-acompact-")]
    codex = DATA / "codex"  # Codex rollouts: read through their own agent's reader
    claude_files = [p for p in files if codex not in p.parents]
    expected = sum(_raw_failed_calls(p) for p in claude_files)
    report = impact_json("--transcripts", str(DATA))
    codex_report = impact_json("--transcripts", str(codex))
    assert report["files"] == len(files)
    assert codex_report["files"] == len(files) - len(claude_files)
    failed = report["failed_calls"] + report["declined_calls"]
    assert failed - codex_report["failed_calls"] - codex_report["declined_calls"] == expected
    by_key = {s["signature"]: s for s in report["signatures"]}
    edit = by_key["Edit | File has not been read yet. Read it first before writing to it"]
    assert edit["sessions"] >= 3
    assert report["citations_per_week"] == {}  # none of these sessions had a playbook


def test_one_transcript_file_is_read_as_learn_reads_it() -> None:
    # Issue 17: `impact --transcripts FILE` refused the single file `learn` accepts.
    transcript = (
        DATA
        / "claude-code-log"
        / "-src-experiments-claude_p"
        / ("2b4ed4c0-b905-41de-9238-273db3ec737a.jsonl")
    )
    report = impact_json("--transcripts", str(transcript))
    assert (report["sessions"], report["files"]) == (1, 1)
    assert report["failed_calls"] + report["declined_calls"] == _raw_failed_calls(transcript)
    out = acecode("impact", "--transcripts", str(transcript)).stdout
    assert out.startswith(f"1 session (1 file) in {transcript}")
