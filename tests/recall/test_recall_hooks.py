"""Recall at the failing call and the warning before it, through the real hook processes."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from acecode.project.layers import user_playbook_file
from hooks.hook_helpers import run_hook
from recall.recall_helpers import (
    GATE,
    NPM_ERROR,
    NPM_RULE,
    context_of,
    failure_origin,
    gate,
    learned,
    tool_payload,
    write_provenance,
)
from support.hang_guard import HANG_GUARD
from support.playbooks import MIS, entry, written_here

STATUS_RULE = "The status file is STATUS.md (upper case); status.md does not exist."


def npm_project(project: Path, **extra: object) -> None:
    origin = failure_origin("Bash", "cd web && npm test", NPM_ERROR, **extra)
    learned(project, {"mis-001": (NPM_RULE, [origin])})


def npm_failure(project: Path, **fields: object) -> dict:
    fields.setdefault("error", NPM_ERROR)
    call = {"command": "npm test -- --watch=false", "description": "run the tests"}
    return tool_payload(project, "PostToolUseFailure", "Bash", call, **fields)


def exposures(project: Path) -> list[dict]:
    path = project / ".claude" / "acecode" / "experiments" / "exposures.jsonl"
    return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []


def test_a_failure_the_project_learned_from_recalls_its_entry(project_dir: Path) -> None:
    npm_project(project_dir)
    run = gate("post-tool-use-failure", npm_failure(project_dir))
    text = context_of(run)
    assert "[mis-001]" in text and NPM_RULE in text and len(text) <= 1200
    assert run.output()["hookSpecificOutput"]["hookEventName"] == "PostToolUseFailure"
    assert run.stderr == ""
    (record,) = [r for r in exposures(project_dir) if r["event"] == "recall"]
    assert record["session"] == "s-new" and record["entries"][0].startswith("mis-001@")
    assert record["signature"].startswith("Bash | npm test | npm error Missing script")
    assert record["tool"] == "Bash" and record["call"] == "toolu_1"


def test_another_failure_gets_no_answer(project_dir: Path) -> None:
    npm_project(project_dir)
    other = npm_failure(project_dir, error="Exit code 1\nnpm error code ENOENT\nnpm error path x")
    assert context_of(gate("post-tool-use-failure", other)) == ""
    lint = tool_payload(
        project_dir,
        "PostToolUseFailure",
        "Bash",
        {"command": "ruff check ."},
        error='Exit code 1\nnpm error Missing script: "test"',
    )
    # the same error line after another command head is another failure
    assert context_of(gate("post-tool-use-failure", lint)) == ""
    assert exposures(project_dir) == []


def test_the_acecode_hook_command_answers_the_same(project_dir: Path) -> None:
    npm_project(project_dir)
    run = run_hook("post-tool-use-failure", npm_failure(project_dir))
    assert "[mis-001]" in context_of(run)


def test_each_entry_once_per_context_window(project_dir: Path) -> None:
    npm_project(project_dir)
    assert context_of(gate("post-tool-use-failure", npm_failure(project_dir)))
    again = npm_failure(project_dir, tool_use_id="toolu_2")
    assert context_of(gate("post-tool-use-failure", again)) == ""
    # a compaction starts a new context window: SessionStart with source "compact"
    start = {"session_id": "s-new", "source": "compact", "cwd": str(project_dir)}
    assert run_hook("session-start", start).returncode == 0
    after = npm_failure(project_dir, tool_use_id="toolu_3")
    assert "[mis-001]" in context_of(gate("post-tool-use-failure", after))
    # another session is another context
    other = npm_failure(project_dir, session_id="s-other", tool_use_id="toolu_4")
    assert "[mis-001]" in context_of(gate("post-tool-use-failure", other))


def test_one_answer_per_call_however_many_copies_run(project_dir: Path) -> None:
    """Installed in two scopes, Claude Code runs both copies of the hook at once."""
    npm_project(project_dir)
    data = json.dumps(npm_failure(project_dir)).encode()
    copies = [
        subprocess.Popen(
            [*GATE, "post-tool-use-failure"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        for _ in range(3)
    ]
    outputs = [copy.communicate(data, timeout=HANG_GUARD) for copy in copies]
    assert all(copy.returncode == 0 for copy in copies)
    answered = [out for out, err in outputs if out.strip()]
    assert len(answered) == 1, outputs
    assert all(not err for _, err in outputs)
    assert len([r for r in exposures(project_dir) if r["event"] == "recall"]) == 1


def test_at_most_two_entries_and_1200_characters(project_dir: Path) -> None:
    origin = failure_origin("Bash", "npm test", NPM_ERROR)
    long = "Use make check for the tests; " * 15  # about 450 characters each
    learned(project_dir, {f"mis-00{n}": (f"{n}: {long}", [origin]) for n in range(1, 5)})
    text = context_of(gate("post-tool-use-failure", npm_failure(project_dir)))
    assert len(text) <= 1200
    assert text.count("[mis-00") == 2


def test_a_read_failure_recalls_only_the_entry_about_that_file(project_dir: Path) -> None:
    missing = "File does not exist. Note: your current working directory is /old/project."
    learned(
        project_dir,
        {
            "mis-001": (STATUS_RULE, [failure_origin("Read", "/old/project/status.md", missing)]),
            "mis-002": (
                "The settings live in config/settings.toml, not settings.py.",
                [failure_origin("Read", "/old/project/settings.py", missing)],
            ),
        },
    )
    error = f"File does not exist. Note: your current working directory is {project_dir}."
    read = tool_payload(
        project_dir,
        "PostToolUseFailure",
        "Read",
        {"file_path": str(project_dir / "status.md")},
        error=error,
    )
    text = context_of(gate("post-tool-use-failure", read))
    assert "[mis-001]" in text and "[mis-002]" not in text


def test_a_pre_call_warning_from_an_input_pattern(project_dir: Path) -> None:
    """The curator's pattern (or `acecode add --when`), stored in the provenance origin."""
    missing = "File does not exist."
    when = [{"tool": "Read", "field": "file_path", "pattern": r"(^|/)status\.md$"}]
    learned(
        project_dir,
        {"ctx-001": (STATUS_RULE, [failure_origin("Read", "status.md", missing, when=when)])},
    )
    read = tool_payload(
        project_dir, "PreToolUse", "Read", {"file_path": str(project_dir / "status.md")}
    )
    run = gate("pre-tool-use", read)
    text = context_of(run)
    assert "[ctx-001]" in text and STATUS_RULE in text
    assert run.output()["hookSpecificOutput"]["hookEventName"] == "PreToolUse"
    fine = tool_payload(
        project_dir, "PreToolUse", "Read", {"file_path": str(project_dir / "STATUS.md")}
    )
    assert context_of(gate("pre-tool-use", fine)) == ""
    (record,) = [r for r in exposures(project_dir) if r["event"] == "warn"]
    assert record["tool"] == "Read" and record["signature"] is None


def test_cd_into_the_folder_one_is_already_in_is_warned(project_dir: Path) -> None:
    when = [{"tool": "Bash", "field": "command", "pattern": r"^cd\s+(\./)?{cwd_name}/?(\s|$|&&|;)"}]
    error = "Exit code 1\n/bin/bash: line 1: cd: build: No such file or directory"
    rule = "After `cd build` the shell stays in build: do not cd into it again."
    learned(
        project_dir,
        {"mis-001": (rule, [failure_origin("Bash", "cd build && cmake ..", error, when=when)])},
    )
    inside = str(project_dir / "build")
    call = {"command": "cd build && cmake ..", "description": "configure"}
    warned = tool_payload(project_dir, "PreToolUse", "Bash", call, cwd=inside)
    assert "[mis-001]" in context_of(gate("pre-tool-use", warned))
    first = tool_payload(project_dir, "PreToolUse", "Bash", call, session_id="s-2")
    assert context_of(gate("pre-tool-use", first)) == ""  # from the project root it is right


def test_recall_before_false_turns_the_warning_off_only(project_dir: Path) -> None:
    when = [{"tool": "Bash", "field": "command", "pattern": r"^npm test\b"}]
    npm_project(project_dir, when=when)
    (project_dir / ".claude" / "acecode.toml").write_text("recall_before = false\n")
    before = tool_payload(project_dir, "PreToolUse", "Bash", {"command": "npm test"})
    assert context_of(gate("pre-tool-use", before)) == ""
    assert "[mis-001]" in context_of(gate("post-tool-use-failure", npm_failure(project_dir)))


def test_a_user_layer_entry_is_recalled_in_any_project(project_dir: Path) -> None:
    user = Path(user_playbook_file())
    user.parent.mkdir(parents=True)
    user.write_text(
        json.dumps({"version": "1.0", "sections": {MIS: [entry("u-mis-001", NPM_RULE, 1)]}})
    )
    written_here(user)
    write_provenance(user.parent, {"u-mis-001": [failure_origin("Bash", "npm test", NPM_ERROR)]})
    (project_dir / ".git").mkdir()
    assert "[u-mis-001]" in context_of(gate("post-tool-use-failure", npm_failure(project_dir)))


def test_a_held_back_entry_is_neither_recalled_nor_warned(project_dir: Path) -> None:
    """With experiments on, an entry the session's draw holds back stays out of its recall
    too, so the randomised effect measures the whole feature."""
    when = [{"tool": "Bash", "field": "command", "pattern": r"^npm test\b"}]
    npm_project(project_dir, when=when)
    env = {"ACECODE_EXPERIMENTS": "1", "ACECODE_HOLDBACK_RATE": "1", "ACECODE_HOLDBACK_MAX": "3"}
    start = run_hook("session-start", {"session_id": "s-new", "source": "startup"}, env=env)
    assert "mis-001" not in start.context()  # held back at session start...
    before = tool_payload(project_dir, "PreToolUse", "Bash", {"command": "npm test"})
    assert context_of(gate("pre-tool-use", before, env=env)) == ""  # ...before the call
    assert context_of(gate("post-tool-use-failure", npm_failure(project_dir), env=env)) == ""
    # with experiments off the same calls get it
    assert "[mis-001]" in context_of(gate("post-tool-use-failure", npm_failure(project_dir)))


def test_codex_post_tool_use_recalls_on_a_failed_output(project_dir: Path) -> None:
    npm_project(project_dir)
    payload = tool_payload(
        project_dir,
        "PostToolUse",
        "Bash",
        {"command": "npm test"},
        tool_response='npm error Missing script: "test"\nnpm error To see a list, run npm run\n',
        turn_id="turn-1",
    )
    run = run_hook("post-tool-use", payload, command=[*GATE, "post-tool-use", "--agent", "codex"])
    assert "[mis-001]" in context_of(run)
    ok = {**payload, "tool_response": "all 12 tests passed\n", "tool_use_id": "call_2"}
    ok_run = run_hook("post-tool-use", ok, command=[*GATE, "post-tool-use", "--agent", "codex"])
    assert context_of(ok_run) == ""


def test_bad_payloads_get_one_stderr_line_and_no_answer(project_dir: Path) -> None:
    npm_project(project_dir)
    for data in (b"{not json", b"[1, 2]", json.dumps({"session_id": "s"}).encode()):
        for event in ("pre-tool-use", "post-tool-use-failure"):
            run = gate(event, data)
            assert (run.returncode, run.stdout) == (0, ""), run
            assert run.stderr.count("\n") == 1 and run.stderr.startswith("acecode:"), run.stderr


def test_no_playbook_no_trace(project_dir: Path) -> None:
    """A project where acecode has nothing: no answer, no file written."""
    call = tool_payload(project_dir, "PreToolUse", "Bash", {"command": "npm test"})
    assert gate("pre-tool-use", call) == gate("pre-tool-use", call)
    assert context_of(gate("pre-tool-use", call)) == ""
    assert not (project_dir / ".claude").exists()
