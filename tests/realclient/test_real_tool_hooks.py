"""What the pinned CLIs do with tool hooks, measured before recall was built on them.

A logging hook answers every ``PreToolUse``, ``PostToolUse`` and
``PostToolUseFailure`` with a marker as ``additionalContext``; the scripted model
makes failing and succeeding calls; the tests assert which events fired with which
payload and where each marker reached the model (docs/claude-code.md, docs/codex.md:
"Tool hooks"). No acecode code runs here.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from claude_driver import ClaudeHome
from codex_driver import CodexHome
from codex_scripted import CodexScript, exec_command
from messages_server import MessagesServer, Recorded, Reply, ToolCall
from responses_server import ResponsesServer, item_text
from scripted import Script, bash, is_agent_turn

EVENTS = ("PreToolUse", "PostToolUse", "PostToolUseFailure")
HOOK = r"""
import json, os, sys
payload = json.load(sys.stdin)
with open(os.environ["TOOL_HOOK_LOG"], "a") as log:
    log.write(json.dumps(payload) + "\n")
event = payload["hook_event_name"]
marker = f"MARKER-{event}-{payload.get('tool_use_id')}"
print(json.dumps({"hookSpecificOutput": {"hookEventName": event, "additionalContext": marker}}))
"""


def _hook(tmp_path: Path) -> tuple[dict[str, Any], Path]:
    script = tmp_path / "tool_hook.py"
    script.write_text(HOOK)
    handler = {"type": "command", "command": f"{sys.executable} {script}", "timeout": 30}
    return handler, tmp_path / "tool-hooks.jsonl"


def _fired(log: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in log.read_text().splitlines()] if log.exists() else []


def _by_tool_results(steps: list[Reply]) -> Script:
    """The agent's step ``i`` answers the request holding ``i`` tool results in all."""
    script = Script()

    def respond(request: Recorded) -> Reply:
        if not is_agent_turn(request):
            return script(request)
        results = sum(
            block.get("type") == "tool_result"
            for message in request.body.get("messages", [])
            if isinstance(message.get("content"), list)
            for block in message["content"]
        )
        return steps[min(results, len(steps) - 1)]

    return respond  # type: ignore[return-value]


def test_claude_code_tool_hooks_fire_and_their_context_reaches_the_model(
    claude: ClaudeHome, server: MessagesServer, project_dir: Path, tmp_path: Path
) -> None:
    handler, log = _hook(tmp_path)
    hooks = {event: [{"matcher": "*", "hooks": [handler]}] for event in EVENTS}
    settings = {"hooks": hooks, "permissions": {"allow": ["Bash", "Read", "Edit"]}}
    claude.settings_file.write_text(json.dumps(settings))
    (project_dir / "build").mkdir()
    (project_dir / "a.txt").write_text("hello\n")
    edit = {"file_path": str(project_dir / "a.txt"), "old_string": "l", "new_string": "L"}
    server.responder = _by_tool_results(
        [
            Reply(tool_calls=(bash("ls /no-such-dir-for-the-test"),)),  # toolu_000001
            Reply(tool_calls=(ToolCall("Read", {"file_path": "status.md"}),)),  # 3
            Reply(tool_calls=(ToolCall("Edit", edit),)),  # 5: not read yet
            Reply(tool_calls=(ToolCall("Read", {"file_path": str(project_dir / "a.txt")}),)),
            Reply(tool_calls=(ToolCall("Edit", edit),)),  # 9: "l" is there twice
            Reply(tool_calls=(bash("cd build"),)),  # 11
            Reply(tool_calls=(bash("cd build && ls"),)),  # 13: already in build
            Reply("Done."),
        ]
    )
    result = claude.run_print(project_dir, "go", env=claude.env(TOOL_HOOK_LOG=str(log)))
    assert result.returncode == 0, result.stderr
    fired = [(p["hook_event_name"], p["tool_use_id"]) for p in _fired(log)]
    assert fired == [
        ("PreToolUse", "toolu_000001"),
        ("PostToolUseFailure", "toolu_000001"),
        ("PreToolUse", "toolu_000003"),
        ("PostToolUseFailure", "toolu_000003"),
        # toolu_000005 and toolu_000009: Edit's own checks refuse the call before any hook
        ("PreToolUse", "toolu_000007"),
        ("PostToolUse", "toolu_000007"),
        ("PreToolUse", "toolu_000011"),
        ("PostToolUse", "toolu_000011"),
        ("PreToolUse", "toolu_000013"),
        ("PostToolUseFailure", "toolu_000013"),
    ]
    payloads = {(p["hook_event_name"], p["tool_use_id"]): p for p in _fired(log)}
    failed = payloads[("PostToolUseFailure", "toolu_000001")]
    assert failed["tool_input"]["command"] == "ls /no-such-dir-for-the-test"
    assert failed["error"].startswith("Exit code 2\nls: cannot access")
    assert failed["is_interrupt"] is False and "tool_response" not in failed
    # Read's relative path arrives absolute, before and after the call
    read = payloads[("PreToolUse", "toolu_000003")]["tool_input"]["file_path"]
    assert read == str(project_dir / "status.md")
    assert payloads[("PostToolUseFailure", "toolu_000003")]["error"].startswith(
        "File does not exist."
    )
    # the payload's cwd follows the shell: after `cd build` it ends in build
    assert payloads[("PreToolUse", "toolu_000011")]["cwd"] == str(project_dir)
    assert payloads[("PreToolUse", "toolu_000013")]["cwd"] == str(project_dir / "build")
    assert "cd: build: No such file" in payloads[("PostToolUseFailure", "toolu_000013")]["error"]

    last = server.matching(is_agent_turn)[-1].body["messages"]
    answers = [m["content"] for m in last if m["role"] == "user" and isinstance(m["content"], list)]
    first = next(blocks for blocks in answers if blocks[0].get("tool_use_id") == "toolu_000001")
    # both contexts reach the model in the same message as the result, after it
    assert first[0]["type"] == "tool_result" and first[0]["is_error"] is True
    texts = [block.get("text", "") for block in first[1:]]
    assert "PreToolUse:Bash hook additional context: MARKER-PreToolUse-toolu_000001" in texts[0]
    assert "MARKER-PostToolUseFailure-toolu_000001" in texts[1]
    refused = next(blocks for blocks in answers if blocks[0].get("tool_use_id") == "toolu_000005")
    assert len(refused) == 1 and "File has not been read yet" in refused[0]["content"]


def test_codex_tool_hooks_fire_and_their_context_reaches_the_model(
    codex: CodexHome, responses_server: ResponsesServer, project_dir: Path, tmp_path: Path
) -> None:
    handler, log = _hook(tmp_path)
    codex.hooks_file.write_text(json.dumps({"hooks": {e: [{"hooks": [handler]}] for e in EVENTS}}))
    codex.trust_hooks(codex.hooks_file)
    responses_server.responder = CodexScript(
        agent=[
            Reply(tool_calls=(exec_command("ls /no-such-dir-for-the-test"),)),
            Reply(tool_calls=(exec_command("echo ok"),)),
            Reply("Done."),
        ]
    )
    result = codex.run_exec(project_dir, "go", env=codex.env(TOOL_HOOK_LOG=str(log)))
    assert result.returncode == 0, result.stderr
    fired = _fired(log)
    # no PostToolUseFailure in 0.169: PostToolUse after every call, failed or not
    assert [(p["hook_event_name"], p["tool_name"]) for p in fired] == [
        ("PreToolUse", "Bash"),
        ("PostToolUse", "Bash"),
        ("PreToolUse", "Bash"),
        ("PostToolUse", "Bash"),
    ]
    failed = fired[1]
    assert failed["tool_input"] == {"command": "ls /no-such-dir-for-the-test"}
    # the output text only: neither an exit code nor an error flag says it failed
    assert failed["tool_response"].startswith("ls: cannot access")
    assert set(failed) - {"tool_response"} == set(fired[0])
    call_id = failed["tool_use_id"]

    items = responses_server.requests[-1].input
    start = next(i for i, item in enumerate(items) if item.get("call_id") == call_id)
    following = items[start + 1 : start + 4]
    # each context is a developer message between the call and its output
    assert [item["type"] for item in following] == ["message", "message", "function_call_output"]
    assert item_text(following[0]) == f"MARKER-PreToolUse-{call_id}"
    assert item_text(following[1]) == f"MARKER-PostToolUse-{call_id}"
    assert "Process exited with code 2" in following[2]["output"]
