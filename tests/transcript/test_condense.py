"""Condensation: every request and every failure reaches the reflector, within the budget."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from transcript_data import TRANSCRIPTS, SourceRow

from acecode.transcript import load_transcript
from acecode.transcript.condense import (
    DEFAULT_BUDGET_TOKENS,
    REPLAY,
    condense,
    fold_paths,
    rendered_root,
)
from acecode.transcript.text import estimate_tokens
from support.hang_guard import HANG_GUARD

REQUEST_CHARS = 200
# Tools whose result holds the user's own words (Claude Code's; Codex has none).
USER_ANSWERS = ("AskUserQuestion", "ExitPlanMode")
ERROR_CHARS = 100


def _norm(text: str) -> str:
    return " ".join(text.split())


def missing_parts(messages: list[dict], rendering: str) -> list[str]:
    """Requests, answers and errors absent from a rendering.

    "Present" means: the first 200 characters of each human request and of each
    answer the user gave to the agent's question (``AskUserQuestion``, a plan's
    approval), and the first 100 characters of each failed tool call's error,
    appear verbatim
    (whitespace collapsed, the project folder the header names written as ``./``)
    in the rendering.
    """
    flat = _norm(rendering)
    root = rendered_root(rendering)
    missing = []
    for message in messages:
        if message["kind"] == "prompt":
            needle = _norm(fold_paths(message["content"], root))[:REQUEST_CHARS]
        elif message["kind"] == "tool_result" and message["is_error"]:
            needle = _norm(fold_paths(message["content"], root))[:ERROR_CHARS]
        elif message["kind"] == "tool_result" and message.get("tool_name") in USER_ANSWERS:
            needle = _norm(fold_paths(message["content"], root))[:REQUEST_CHARS]
        else:
            continue
        if needle not in flat:
            missing.append(needle)
    return missing


def test_every_request_and_error_kept_within_default_budget(source_row: SourceRow) -> None:
    messages = load_transcript(source_row.path)
    rendering = condense(messages)
    assert estimate_tokens(rendering) <= DEFAULT_BUDGET_TOKENS
    assert missing_parts(messages, rendering) == []


@pytest.mark.parametrize(
    "name",
    [
        "claude-code-log/-Users-dain-workspace-claude-code-log-sample/"
        "37f83ec9-f2ea-42a9-925e-0d5c105cb6e8.jsonl",
        "claude-code-viewer/fe5e1c67-53e7-4862-81ae-d0e013e3270b.jsonl",
        "spotter/258c7280-ae70-4798-800f-63464d01a85d.jsonl",
    ],
)
def test_small_budget_still_keeps_requests_and_errors(name: str) -> None:
    """A quarter of the default budget: the volume goes, the requests and failures stay."""
    messages = load_transcript(TRANSCRIPTS / name)
    rendering = condense(messages, 5_000)
    assert estimate_tokens(rendering) <= 5_000
    assert missing_parts(messages, rendering) == []
    assert "omitted to fit the budget" in rendering


@pytest.mark.parametrize("budget", [1, 200, 500, 1_000, 3_000])
def test_any_budget_is_respected(budget: int) -> None:
    path = TRANSCRIPTS / "claude-code-viewer/fe5e1c67-53e7-4862-81ae-d0e013e3270b.jsonl"
    rendering = condense(load_transcript(path), budget)
    assert estimate_tokens(rendering) <= max(budget, 200)
    assert rendering.startswith("Claude Code session")


def _record(role: str, content: object, **extra: object) -> dict:
    message = {"role": role, "content": content}
    if role == "assistant":
        message["id"] = extra.pop("msg_id", "m")
    return {"type": role, "message": message, **extra}


def _call(tool_id: str, name: str, tool_input: dict, msg_id: str) -> dict:
    block = {"type": "tool_use", "id": tool_id, "name": name, "input": tool_input}
    return _record("assistant", [block], msg_id=msg_id)


def _result(tool_id: str, content: object, is_error: bool = False) -> dict:
    block = {
        "type": "tool_result",
        "tool_use_id": tool_id,
        "content": content,
        "is_error": is_error,
    }
    return _record("user", [block])


def _write(path: Path, records: list[dict]) -> Path:
    path.write_text("\n".join(json.dumps(r) for r in records) + "\n", encoding="utf-8")
    return path


def test_errors_and_their_fix_outrank_bulk_output(tmp_path: Path) -> None:
    """Under pressure, file dumps go first; the failure and the edit that fixed it stay."""
    records = [_record("user", "Make the test suite pass")]
    for n in range(60):
        records.append(_call(f"r{n}", "Read", {"file_path": f"src/mod{n}.py"}, f"m{n}"))
        records.append(
            _result(f"r{n}", "\n".join(f"{i}\tcode line {i} of mod{n}" for i in range(300)))
        )
    records += [
        _call("t1", "Bash", {"command": "pytest -x tests/test_api.py"}, "mt1"),
        _result("t1", "Exit code 1\nFAILED tests/test_api.py::test_get - KeyError: 'id'", True),
        _record(
            "assistant", [{"type": "text", "text": "The handler drops the id field."}], msg_id="mx"
        ),
        _call(
            "e1",
            "Edit",
            {"file_path": "src/api.py", "old_string": "del row['id']", "new_string": "pass"},
            "me1",
        ),
        _result("e1", "The file src/api.py has been updated."),
        _call("t2", "Bash", {"command": "pytest -x tests/test_api.py"}, "mt2"),
        _result("t2", "1 passed in 0.1s"),
        _record("assistant", [{"type": "text", "text": "All tests pass now."}], msg_id="my"),
    ]
    rendering = condense(load_transcript(_write(tmp_path / "s.jsonl", records)), 1_500)
    assert estimate_tokens(rendering) <= 1_500
    assert "Make the test suite pass" in rendering
    assert "KeyError: 'id'" in rendering
    assert "del row['id']" in rendering  # the fix, with its key arguments
    assert "The handler drops the id field." in rendering
    assert "All tests pass now." in rendering
    assert "code line 17 of mod3" not in rendering
    assert "omitted to fit the budget" in rendering


def test_repeated_reads_images_and_test_failures_in_output(tmp_path: Path) -> None:
    big = "\n".join(f"line {i}" for i in range(500))
    image = {
        "type": "image",
        "source": {"type": "base64", "media_type": "image/png", "data": "iVBORw0KGgo" * 5000},
    }
    records = [
        _record("user", [{"type": "text", "text": "What does this screenshot show?"}, image]),
        _call("a", "Read", {"file_path": "x.py"}, "m1"),
        _result("a", big),
        _call("b", "Read", {"file_path": "x.py"}, "m2"),
        _result("b", big),
        _call("c", "Bash", {"command": "pytest | tail -3"}, "m3"),
        _result(
            "c",
            "collected 3 items\n"
            + "ok\n" * 300
            + "FAILED tests/t.py::test_x - assert 1 == 2\n1 failed, 2 passed",
        ),
    ]
    rendering = condense(load_transcript(_write(tmp_path / "s.jsonl", records)))
    assert "[image: image/png]" in rendering and "iVBORw0KGgo" not in rendering
    assert f"RESULT of Read: {REPLAY}" in rendering  # the second read, labelled a replay
    assert "line 499" not in rendering  # a file dump is summarised, not copied
    assert "FAILED tests/t.py::test_x - assert 1 == 2" in rendering
    assert "1 failed, 2 passed" in rendering


def test_empty_transcript_and_determinism() -> None:
    assert condense([]).startswith("Claude Code session, condensed for review: 0 messages")
    messages = load_transcript(TRANSCRIPTS / "spotter/short.jsonl")
    assert condense(messages) == condense(messages)


def test_condense_command_prints_exactly_the_llm_input(tmp_path: Path) -> None:
    """`acecode condense` as a real process: stdout equals condense(), nothing added or eaten."""
    path = TRANSCRIPTS / "agtrace/claude_session.jsonl"
    program = (
        "import typer\n"
        "from acecode.cli.condense_cmd import register\n"
        "app = typer.Typer()\n"
        "app.callback()(lambda: None)\n"
        "register(app)\n"
        "app()\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", program, "condense", str(path), "--budget", "700"],
        capture_output=True,
        text=True,
        check=True,
        timeout=HANG_GUARD,
    )
    assert done.stdout == condense(load_transcript(path), 700) + "\n"
    missing = subprocess.run(
        [sys.executable, "-c", program, "condense", str(tmp_path / "nope.jsonl")],
        capture_output=True,
        text=True,
        timeout=HANG_GUARD,
    )
    assert missing.returncode == 1
    assert "transcript not found" in missing.stderr


def test_the_users_answer_to_a_question_is_kept_like_a_request(tmp_path: Path) -> None:
    """Under a budget that leaves out most results, the answer the user gave to the
    agent's question (a tool result, not a prompt) stays, like a request."""
    question = {"questions": [{"question": "The pre-commit hook fails on old code. Fix it?"}]}
    answer = 'User has answered your questions: "Fix it?"="main was clean; fix the issues".'
    records = [_record("user", "Commit the feature")]
    for n in range(60):
        records.append(_call(f"r{n}", "Read", {"file_path": f"src/mod{n}.py"}, f"m{n}"))
        records.append(_result(f"r{n}", "\n".join(f"{i}\tcode {i} of mod{n}" for i in range(300))))
    records += [
        _call("q", "AskUserQuestion", question, "mq"),
        _result("q", answer),
        _call("p", "ExitPlanMode", {"plan": "Fix credo, then commit"}, "mp"),
        _result("p", "User rejected the plan: run dialyzer first."),
    ]
    messages = load_transcript(_write(tmp_path / "s.jsonl", records))
    rendering = condense(messages, 1_200)
    assert estimate_tokens(rendering) <= 1_200
    assert "code 17 of mod3" not in rendering  # the budget did leave results out
    assert f"USER ANSWER to AskUserQuestion: {answer}" in rendering
    assert "USER ANSWER to ExitPlanMode: User rejected the plan: run dialyzer first." in rendering
    assert missing_parts(messages, rendering) == []


def test_boilerplate_is_folded_and_nothing_a_reviewer_needs_is_lost(tmp_path: Path) -> None:
    """The project folder named once, silent results of successful edits and to-do updates
    left out (their failures kept), a shell call shown by its command alone, a written
    file by its first lines."""
    root = "/home/dev/work/shop"
    body = "name: CI\non:\n  push:\n    branches: [main]\n" + "x: 1\n" * 40
    records = [
        _record("user", f"Add CI to {root} and fix {root}/src/app.py"),
        _call("w", "Write", {"file_path": f"{root}/.github/ci.yml", "content": body}, "m1"),
        _result("w", f"File created successfully at: {root}/.github/ci.yml"),
        _call("t", "TodoWrite", {"todos": [{"content": "ci", "status": "done"}]}, "m2"),
        _result("t", "Todos have been modified successfully. Ensure that you continue"),
        _call("e", "Edit", {"file_path": f"{root}/src/app.py", "old_string": "a"}, "m3"),
        _result("e", "String to replace not found in file.", True),
        _call(
            "b", "Bash", {"command": f"cd {root} && pytest", "description": "Run the tests"}, "m4"
        ),
        _result("b", "3 passed"),
    ]
    rendering = condense(load_transcript(_write(tmp_path / "s.jsonl", records)))
    assert rendered_root(rendering) == root
    assert root not in rendering.split("\n", 1)[1]  # named in the header only
    assert "USER: Add CI to . and fix ./src/app.py" in rendering
    assert "file_path='./.github/ci.yml'" in rendering
    assert "'name: CI ⏎ on: ⏎ push:'" in rendering and "44 lines" in rendering
    assert "File created successfully" not in rendering
    assert "Todos have been modified" not in rendering
    assert "ERROR from Edit: String to replace not found in file." in rendering
    assert "CALL: Bash(command='cd . && pytest')" in rendering
    assert "Run the tests" not in rendering
    assert "A call without a result line succeeded." in rendering


def test_a_compaction_summary_is_never_cut(tmp_path: Path) -> None:
    summary = "This session is being continued. " + " ".join(f"fact{i}" for i in range(1_800))
    records = [
        _record("user", "Carry on with the migration"),
        {"type": "user", "isCompactSummary": True, "message": {"role": "user", "content": summary}},
    ]
    rendering = condense(load_transcript(_write(tmp_path / "s.jsonl", records)), 8_000)
    assert 15_000 < len(summary) < 20_000  # within what the reader keeps of a summary
    assert _norm(summary) in _norm(rendering)
    assert "chars cut" not in rendering


def test_paths_outside_one_project_folder_are_left_as_they_are(tmp_path: Path) -> None:
    records = [
        _call("a", "Read", {"file_path": "/etc/hosts"}, "m1"),
        _call("b", "Read", {"file_path": "/usr/lib/python3/site.py"}, "m2"),
    ]
    rendering = condense(load_transcript(_write(tmp_path / "s.jsonl", records)))
    assert rendered_root(rendering) == ""
    assert "/etc/hosts" in rendering and "/usr/lib/python3/site.py" in rendering
