"""Recall with the real CLIs: a learned entry reaches the model at the tool call it is about.

acecode is installed as a user installs it; the project's playbook holds entries
learned earlier (their provenance names the failed call); the scripted model then
makes that call again. Every assertion is on the request the model received next.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

from claude_driver import ClaudeHome
from codex_driver import CodexHome
from codex_scripted import CodexScript, exec_command, is_agent_turn
from messages_server import MessagesServer, Reply, ToolCall
from responses_server import ResponsesRecorded, ResponsesServer, item_text
from scripted import Script, bash
from scripted import is_agent_turn as is_claude_turn

from recall.recall_helpers import failure_origin, learned
from support.hang_guard import HANG_GUARD

MISSING_SCRIPT = 'npm error Missing script: "test"'
NPM_RULE = "This project has no npm test script: run the tests with `make check`."
STATUS_RULE = "The status file is STATUS.md in upper case; status.md does not exist."


def acecode(env: dict[str, str], *args: str, cwd: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "acecode", *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=HANG_GUARD,
    )
    assert done.returncode == 0, done.stdout + done.stderr


def npm_project(project: Path) -> None:
    """A project whose `npm test` fails the way an earlier session learned, with the entry."""
    npm = project / "bin" / "npm"
    npm.parent.mkdir()
    npm.write_text(f"#!/bin/sh\necho '{MISSING_SCRIPT}' >&2\necho 'npm error' >&2\nexit 1\n")
    npm.chmod(0o755)
    error = f"Exit code 1\n{MISSING_SCRIPT}\nnpm error\n"
    learned(project, {"mis-001": (NPM_RULE, [failure_origin("Bash", "npm test", error)])})


def exposures(project: Path) -> list[dict[str, Any]]:
    path = project / ".claude" / "acecode" / "experiments" / "exposures.jsonl"
    return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []


def _user_blocks(messages: list[dict[str, Any]], call_id: str) -> list[dict[str, Any]]:
    """The user message that answers ``call_id``: its tool result and what came with it."""
    return next(
        m["content"]
        for m in messages
        if m["role"] == "user"
        and isinstance(m["content"], list)
        and m["content"][0].get("tool_use_id") == call_id
    )


def test_claude_code_recalls_the_entry_at_a_failure_it_was_learned_from(
    claude: ClaudeHome, server: MessagesServer, project_dir: Path
) -> None:
    npm_project(project_dir)
    acecode(claude.env(), "install", "--scope", "user", cwd=project_dir)
    settings = json.loads(claude.settings_file.read_text())
    settings["permissions"] = {"allow": ["Bash"]}
    claude.settings_file.write_text(json.dumps(settings))
    server.responder = Script(agent=(Reply(tool_calls=(bash("./bin/npm test"),)), Reply("Ok.")))

    result = claude.run_print(project_dir, "Run the tests.")
    assert result.returncode == 0, result.stderr
    after = server.matching(is_claude_turn)[-1].body["messages"]
    result_block, *context = _user_blocks(after, "toolu_000001")
    assert result_block["is_error"] is True and MISSING_SCRIPT in result_block["content"]
    (recall,) = [b["text"] for b in context if "acecode recall" in b.get("text", "")]
    assert "PostToolUseFailure:Bash hook additional context" in recall
    assert f"[mis-001] {NPM_RULE}" in recall
    (record,) = [r for r in exposures(project_dir) if r["event"] == "recall"]
    assert record["call"] == "toolu_000001" and record["entries"][0].startswith("mis-001@")


def test_claude_code_warns_before_a_call_an_input_pattern_names(
    claude: ClaudeHome, server: MessagesServer, project_dir: Path
) -> None:
    (project_dir / "STATUS.md").write_text("# Status\nall green\n")
    when = [{"tool": "Read", "field": "file_path", "pattern": r"(^|/)status\.md$"}]
    missing = "File does not exist."
    origin = failure_origin("Read", "status.md", missing, when=when)
    learned(project_dir, {"ctx-001": (STATUS_RULE, [origin])}, section="PROJECT CONTEXT")
    acecode(claude.env(), "install", "--scope", "user", cwd=project_dir)
    read = ToolCall("Read", {"file_path": str(project_dir / "status.md")})
    read_right = ToolCall("Read", {"file_path": str(project_dir / "STATUS.md")})
    server.responder = Script(
        agent=(Reply(tool_calls=(read,)), Reply(tool_calls=(read_right,)), Reply("All green."))
    )

    result = claude.run_print(project_dir, "What does the status file say?")
    assert result.returncode == 0, result.stderr
    after = server.matching(is_claude_turn)[-1].body["messages"]
    texts = [b.get("text", "") for b in _user_blocks(after, "toolu_000001")[1:]]
    (warning,) = [t for t in texts if "acecode reminder" in t]
    assert "PreToolUse:Read hook additional context" in warning
    assert f"[ctx-001] {STATUS_RULE}" in warning
    # the right file gets no warning (nor anything else from acecode)
    assert not any("acecode" in b.get("text", "") for b in _user_blocks(after, "toolu_000003")[1:])
    assert [r["event"] for r in exposures(project_dir) if r["event"] in ("warn", "recall")] == [
        "warn"
    ]


def test_codex_recalls_the_entry_after_a_failed_command(
    codex: CodexHome, responses_server: ResponsesServer, project_dir: Path
) -> None:
    npm_project(project_dir)
    codex.trust(project_dir)
    acecode(codex.env(), "install", "--agent", "codex", cwd=project_dir)
    responses_server.responder = CodexScript(
        agent=(Reply(tool_calls=(exec_command("./bin/npm test"),)), Reply("Ok."))
    )

    result = codex.run_exec(project_dir, "Run the tests.")
    assert result.returncode == 0, result.stderr
    last = responses_server.matching(is_agent_turn)[-1]
    assert isinstance(last, ResponsesRecorded)
    items = last.input
    call = next(i for i, item in enumerate(items) if item.get("type") == "function_call")
    texts = [item_text(item) for item in items[call + 1 :] if item.get("type") == "message"]
    (recall,) = [text for text in texts if "acecode recall" in text]
    assert f"[mis-001] {NPM_RULE}" in recall
    (record,) = [r for r in exposures(project_dir) if r["event"] == "recall"]
    assert record["agent"] == "codex"
