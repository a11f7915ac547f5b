"""Codex rollout files read through the agent seam: the real saved session of docs/codex.md."""

from __future__ import annotations

from pathlib import Path

from acecode.agents import detect_agent, get_agent
from acecode.transcript import iter_messages, read_transcript
from acecode.transcript.condense import condense

SESSION = (
    Path(__file__).parents[1] / "data" / "transcripts" / "codex" / "exec-failing-command.jsonl"
)


def test_a_codex_session_file_is_recognised_and_read_as_codex() -> None:
    assert detect_agent(SESSION).name == "codex"
    messages = read_transcript(SESSION).messages
    kinds = [m["kind"] for m in messages]
    assert kinds.count("prompt") == 1 and kinds.count("tool_use") == 4
    results = [m for m in messages if m["kind"] == "tool_result"]
    assert [r["is_error"] for r in results] == [True, False, False, True]
    assert results[0]["tool_name"] == "exec_command"
    assert "Chunk ID" not in results[0]["content"]
    assert all("Project rule" not in m["content"] for m in messages)  # hook context skipped


def test_the_condenser_names_codex_and_keeps_its_failures() -> None:
    text = condense(iter_messages(SESSION), 2_000, get_agent("codex"))
    assert text.startswith("Codex CLI session, condensed for review")
    assert "CALL (failed): exec_command(cmd='cat tests/test_app.py')" in text
    assert "CALL (failed): apply_patch(files='Update File: app.py'" in text
    assert "<environment_context>" not in text


def test_a_claude_code_transcript_is_still_read_as_claude_code(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    path.write_text('{"type": "user", "message": {"role": "user", "content": "hi"}}\n')
    assert detect_agent(path).name == "claude-code"
    assert [m["kind"] for m in read_transcript(path).messages] == ["prompt"]
