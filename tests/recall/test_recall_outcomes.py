"""What recall did, as `acecode impact` shows it: recalled, warned, and the next try."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

from tests.impact.history import SessionWriter

from acecode.recall.outcomes import like, recall_stats
from recall.recall_helpers import NPM_ERROR, NPM_RULE, failure_origin, gate, learned, tool_payload
from support.hang_guard import HANG_GUARD

DATA = Path(__file__).parents[1] / "data" / "transcripts"


def impact_json(*args: str) -> dict:
    result = subprocess.run(
        [sys.executable, "-m", "acecode", "impact", "--json", *args],
        capture_output=True,
        text=True,
        timeout=HANG_GUARD,
    )
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def _session(folder: Path, name: str, retry_fails: bool | None) -> Path:
    writer = SessionWriter(folder, name, 1).prompt("run the tests")
    writer.bash("cd web && npm test", NPM_ERROR, error=True)  # toolu_<name>_1
    writer.bash("ls", "package.json", error=False)
    if retry_fails is not None:
        writer.bash("npm test -- --ci", NPM_ERROR if retry_fails else "ok", error=retry_fails)
    return writer.write()


def test_recalls_and_warnings_are_counted_with_the_next_try(tmp_path: Path) -> None:
    ok, failed, never = (
        _session(tmp_path, n, r) for n, r in (("a", False), ("b", True), ("c", None))
    )
    records = [
        {
            "event": "recall",
            "session": "a",
            "entries": ["mis-001@1"],
            "call": "toolu_a_1",
            "transcript": str(ok),
        },
        {
            "event": "recall",
            "session": "b",
            "entries": ["mis-001@1"],
            "call": "toolu_b_1",
            "transcript": str(tmp_path / "gone.jsonl"),
        },
        {
            "event": "warn",
            "session": "c",
            "entries": ["mis-001@1", "ctx-002@2"],
            "call": "toolu_c_1",
            "transcript": str(never),
        },
        {"event": "start", "session": "a", "entries": ["mis-001@1"]},
    ]
    stats = recall_stats(records, {"b": failed})  # b's path is gone: found by its session
    assert stats["mis-001"].as_dict() == {
        "entry": "mis-001",
        "recalled": 2,
        "warned": 1,
        "tried_again": 2,
        "succeeded_next": 1,
    }
    assert stats["ctx-002"].as_dict()["tried_again"] == 0


def test_the_same_call_is_the_same_command_head_or_file() -> None:
    assert like("Bash", {"command": "cd web && npm test"}) == like(
        "exec_command", {"cmd": "npm test -- --ci"}
    )
    assert like("Bash", {"command": "npm test"}) != like("Bash", {"command": "npm run build"})
    assert like("Read", {"file_path": "/p/status.md"}) == "Read | status.md"


def test_impact_shows_what_recall_did(project_dir: Path) -> None:
    learned(project_dir, {"mis-001": (NPM_RULE, [failure_origin("Bash", "npm test", NPM_ERROR)])})
    transcript = _session(project_dir, "s-new", retry_fails=False)
    payload = tool_payload(
        project_dir,
        "PostToolUseFailure",
        "Bash",
        {"command": "cd web && npm test"},
        error=NPM_ERROR,
        tool_use_id="toolu_s-new_1",
        transcript_path=str(transcript),
    )
    assert gate("post-tool-use-failure", payload).stdout
    report = impact_json("--transcripts", str(transcript))
    assert report["recall"] == [
        {"entry": "mis-001", "recalled": 1, "warned": 0, "tried_again": 1, "succeeded_next": 1}
    ]


def test_impact_reads_the_projects_codex_sessions(project_dir: Path, home_dir: Path) -> None:
    """Issue 29: `acecode impact` counted only Claude Code's sessions."""
    rollout = home_dir / ".codex" / "sessions" / "2026" / "11" / "23" / "rollout-x.jsonl"
    rollout.parent.mkdir(parents=True)
    text = (DATA / "codex" / "exec-failing-command.jsonl").read_text()
    rollout.write_text(text.replace('"/home/user/project"', json.dumps(str(project_dir))))
    (project_dir / ".git").mkdir()
    report = impact_json()
    assert report["sessions"] == 1 and report["failed_calls"] >= 1
    assert any(s["tool"] == "exec_command" for s in report["signatures"])
    shutil.rmtree(rollout.parent.parent.parent.parent)
    assert impact_json()["sessions"] == 0


def test_doctor_says_what_recall_did_in_the_last_sessions(project_dir: Path) -> None:
    learned(project_dir, {"mis-001": (NPM_RULE, [failure_origin("Bash", "npm test", NPM_ERROR)])})
    payload = tool_payload(
        project_dir, "PostToolUseFailure", "Bash", {"command": "npm test"}, error=NPM_ERROR
    )
    assert gate("post-tool-use-failure", payload).stdout
    result = subprocess.run(
        [sys.executable, "-m", "acecode", "doctor"],
        capture_output=True,
        text=True,
        timeout=HANG_GUARD,
    )
    lines = result.stdout[result.stdout.index("recall at the tool call") :].splitlines()
    assert lines[1].strip() == "recall after a failed call: on; warning before a call: on"
    assert lines[2].strip().startswith("1 entry can be recalled: 1 after a failure")
    assert lines[3].strip() == (
        "in the last 1 session: 1 recall after a failure, 0 warnings before a call (mis-001 x1)"
    )


def test_doctor_warns_when_the_hooks_predate_recall(project_dir: Path, home_dir: Path) -> None:
    learned(project_dir, {"mis-001": (NPM_RULE, [failure_origin("Bash", "npm test", NPM_ERROR)])})
    settings = home_dir / ".claude" / "settings.json"
    settings.parent.mkdir(parents=True, exist_ok=True)
    old = {"type": "command", "command": "/old/acecode hook session-start", "timeout": 10}
    settings.write_text(json.dumps({"hooks": {"SessionStart": [{"hooks": [old]}]}}))
    result = subprocess.run(
        [sys.executable, "-m", "acecode", "doctor"],
        capture_output=True,
        text=True,
        timeout=HANG_GUARD,
    )
    assert (
        f"[warning] {settings} has no PreToolUse or PostToolUseFailure hook: run "
        "`acecode install` again to add them"
    ) in " ".join(result.stdout.split())
