"""``acecode learn FOLDER``: every session in the folder, oldest first, as a user runs it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from support.hang_guard import HANG_GUARD
from support.pipeline import is_curator, write_transcript

REFLECTION = {"analysis": "pytest failed on a missing yaml module.", "bullet_tags": []}
CURATION = {"reasoning": "nothing new", "operations": []}


def router(system: str, prompt: str) -> str:
    return json.dumps(CURATION if is_curator(system, prompt) else REFLECTION)


def learn(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "acecode", "learn", *args],
        capture_output=True,
        text=True,
        timeout=HANG_GUARD,
    )


def session(path: Path, mtime: int) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    write_transcript(path, f"request in {path.name}", "Done.")
    os.utime(path, (mtime, mtime))
    return path


def test_a_folder_learns_every_session_in_it_oldest_first(routed_llm, tmp_path):
    llm = routed_llm(router)
    folder = tmp_path / "sessions"
    newer = session(folder / "a-newer.jsonl", 3_000)
    older = session(folder / "b-older.jsonl", 1_000)
    subagent = session(folder / "b-older" / "subagents" / "agent-x1.jsonl", 2_000)
    session(folder / "agent-acompact-9.jsonl", 500)  # Claude Code's compaction helper
    (folder / "notes.txt").write_text("not a transcript")

    result = learn(str(folder), "--json")

    assert result.returncode == 0, result.stderr
    reports = json.loads(result.stdout)
    assert [r["transcript"] for r in reports] == [str(older), str(subagent), str(newer)]
    # learned, and the router's curator proposes nothing: "nothing-new", not "ok"
    assert all(r["status"] == "nothing-new" for r in reports)
    assert len(llm.bodies) == 6  # reflector and curator for each of the three

    again = learn(str(folder), "--skip-subagents", "--json")

    assert again.returncode == 0, again.stderr
    reports = json.loads(again.stdout)
    assert [r["transcript"] for r in reports] == [str(older), str(newer)]
    assert len(llm.bodies) == 6  # all learned before: no LLM call


def test_a_folder_without_transcripts_is_named_in_one_line(tmp_path):
    empty = tmp_path / "empty"
    empty.mkdir()
    (empty / "notes.txt").write_text("no sessions here")

    result = learn(str(empty))

    assert result.returncode == 1
    assert result.stderr == (
        f"acecode: {empty}: a folder with no session transcripts (*.jsonl) in it or below\n"
    )
    missing = learn(str(tmp_path / "missing.jsonl"))
    assert missing.returncode == 1
    assert (
        missing.stderr
        == f"acecode: {tmp_path / 'missing.jsonl'}: no such transcript file or folder\n"
    )


def test_a_file_that_is_not_a_transcript_is_one_error_line_and_exit_1(routed_llm, tmp_path):
    # Issue 17: `acecode learn README.md` reported 497 unreadable lines and exited 0.
    llm = routed_llm(router)
    readme = tmp_path / "README.md"
    readme.write_text("# A project\n\nSome prose.\n\n- a list item\n", encoding="utf-8")
    session_file = session(tmp_path / "s.jsonl", 1_000)

    alone = learn(str(readme))

    assert alone.returncode == 1
    assert alone.stderr.splitlines() == [
        f"acecode: {readme}: not a transcript (no line of it is a JSON record)"
    ]
    assert alone.stdout == "" and llm.bodies == []

    both = learn(str(readme), str(session_file), "--json")

    assert both.returncode == 1  # the README is refused, the session still learns
    assert [r["transcript"] for r in json.loads(both.stdout)] == [str(session_file)]
    assert "not a transcript" in both.stderr and len(llm.bodies) == 2
