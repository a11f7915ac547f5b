"""The real Codex CLI (0.169) offline against the scripted Responses server: what it sends,
what its hooks receive and return, what it saves. These are the facts docs/codex.md
states as measured, kept true for the pinned version; no acecode code runs here yet."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from typing import Any

from codex_driver import CodexHome, exec_events, hook_states
from codex_scripted import CodexScript, apply_patch, exec_command, is_agent_turn
from messages_server import Reply
from responses_server import ResponsesRecorded, ResponsesServer, item_text

from support.hang_guard import wait_until

FAILING = "ls no-such-dir-for-the-test"
FAILURE_TEXT = "No such file or directory"
SPILL_FOOTER = "Full hook output saved to: "
# The events a hook is registered for in these tests, and the fields each payload carries.
COMMON = {"session_id", "transcript_path", "cwd", "hook_event_name", "model"}
PAYLOAD_FIELDS = {
    "SessionStart": COMMON | {"permission_mode", "source"},
    "UserPromptSubmit": COMMON | {"permission_mode", "turn_id", "prompt"},
    "PreCompact": COMMON | {"turn_id", "trigger"},
    "PostCompact": COMMON | {"turn_id", "trigger"},
    "Stop": COMMON | {"permission_mode", "turn_id", "stop_hook_active", "last_assistant_message"},
    "SessionEnd": {"session_id", "transcript_path", "cwd", "hook_event_name", "reason"},
}


def write_hook(codex: CodexHome, root: Path, events: list[str], context: str = "") -> Path:
    """A user-level ``hooks.json`` whose one Python hook logs every payload it gets.

    For SessionStart and UserPromptSubmit it answers ``context`` (when given) as
    ``additionalContext``, prefixed with the event and the source, so the test can
    tell which firing put which text in front of the model. Returns the log file.
    """
    log = root / "hook-payloads.jsonl"
    script = root / "hook.py"
    script.write_text(
        "import json, sys\n"
        "payload = json.load(sys.stdin)\n"
        f"with open({str(log)!r}, 'a') as out:\n"
        "    out.write(json.dumps(payload) + '\\n')\n"
        "event = payload['hook_event_name']\n"
        f"context = {context!r}\n"
        "if context and event in ('SessionStart', 'UserPromptSubmit'):\n"
        "    label = f\"[{event}:{payload.get('source', '')}] \"\n"
        "    output = {'hookEventName': event, 'additionalContext': label + context}\n"
        "    print(json.dumps({'hookSpecificOutput': output}))\n"
    )
    handler = {"type": "command", "command": f"{sys.executable} {script}", "timeout": 30}
    hooks = {event: [{"hooks": [handler]}] for event in events}
    codex.hooks_file.write_text(json.dumps({"hooks": hooks}, indent=2))
    return log


def payloads(log: Path) -> list[dict[str, Any]]:
    if not log.exists():
        return []
    return [json.loads(line) for line in log.read_text().splitlines()]


def fired(log: Path) -> list[tuple[str, str]]:
    """(event, source / reason / trigger) for every hook run so far, in order."""
    detail = ("source", "reason", "trigger")
    return [
        (p["hook_event_name"], next((p[k] for k in detail if k in p), "")) for p in payloads(log)
    ]


def message_texts(request: ResponsesRecorded, role: str | None = None) -> list[str]:
    """The text of every message item (of ``role``, when given), oldest first."""
    return [
        item_text(item) for item in request.items("message") if role is None or item["role"] == role
    ]


def developer_texts(request: ResponsesRecorded) -> list[str]:
    return message_texts(request, "developer")


def records(session_file: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in session_file.read_text().splitlines() if line.strip()]


def test_exec_failing_shell_call_reaches_the_model_and_the_session_file(
    codex: CodexHome, responses_server: ResponsesServer, project_dir: Path
) -> None:
    responses_server.responder = CodexScript(
        agent=(Reply(tool_calls=(exec_command(FAILING),)), Reply("The folder does not exist."))
    )
    result = codex.run_exec(project_dir, "List the folder for me.")
    assert result.returncode == 0, result.stderr

    first, second = responses_server.matching(is_agent_turn)
    assert all(r.path.startswith("/v1/responses") and r.body["stream"] for r in (first, second))
    assert first.user_texts()[-1] == "List the folder for me."
    assert "exec_command" in first.tool_names
    (output,) = second.call_outputs()
    assert FAILURE_TEXT in output and "Process exited with code 2" in output

    events = exec_events(result)
    items = [e["item"] for e in events if e["type"] == "item.completed"]
    command = next(item for item in items if item["type"] == "command_execution")
    assert (command["exit_code"], command["status"]) == (2, "failed")
    thread_id = events[0]["thread_id"]

    (session_file,) = codex.session_files()
    assert re.fullmatch(
        rf"sessions/\d{{4}}/\d\d/\d\d/rollout-[\dT-]+-{thread_id}\.jsonl",
        session_file.relative_to(codex.codex_home).as_posix(),
    )
    saved = records(session_file)
    meta = saved[0]
    assert meta["type"] == "session_meta" and meta["payload"]["cwd"] == str(project_dir)
    assert meta["payload"]["cli_version"] == "0.169.0"
    outputs = [
        r["payload"]["output"]
        for r in saved
        if r["type"] == "response_item" and r["payload"]["type"] == "function_call_output"
    ]
    assert len(outputs) == 1 and FAILURE_TEXT in outputs[0]
    executed = [
        r["payload"]["item"]
        for r in saved
        if r["type"] == "event_msg" and r["payload"]["type"] == "item_completed"
    ]
    assert any(i["type"] == "CommandExecution" and i["exit_code"] == 2 for i in executed)


def test_exec_apply_patch_edits_and_a_rejected_patch(
    codex: CodexHome, responses_server: ResponsesServer, project_dir: Path, tmp_path: Path
) -> None:
    add = "*** Begin Patch\n*** Add File: notes.txt\n+first note\n*** End Patch\n"
    missing = "*** Begin Patch\n*** Update File: gone.txt\n@@\n-a\n+b\n*** End Patch\n"
    responses_server.responder = CodexScript(
        agent=(
            Reply(tool_calls=(apply_patch(add),)),
            Reply(tool_calls=(apply_patch(missing),)),
            Reply("Edited."),
        )
    )
    log = write_hook(codex, tmp_path, ["PreToolUse", "PostToolUse"])
    codex.trust_hooks(codex.hooks_file)
    # Codex offers apply_patch (a "custom" freeform tool) only to a model it knows.
    result = codex.run_exec(project_dir, "Take a note.", "--model", "gpt-5.5")
    assert result.returncode == 0, result.stderr

    assert (project_dir / "notes.txt").read_text() == "first note\n"
    first = responses_server.matching(is_agent_turn)[0]
    assert {"type": "custom", "name": "apply_patch"}.items() <= next(
        t for t in first.body["tools"] if t.get("name") == "apply_patch"
    ).items()
    applied, rejected = responses_server.matching(is_agent_turn)[-1].call_outputs()
    assert applied.startswith("Exit code: 0") and "A notes.txt" in applied
    assert rejected.startswith("apply_patch verification failed") and "gone.txt" in rejected
    # Hooks see the edit as tool "apply_patch" with the patch as its "command"; a rejected
    # patch gets PreToolUse only.
    seen = [(p["hook_event_name"], p["tool_name"], p["tool_input"]) for p in payloads(log)]
    assert seen == [
        ("PreToolUse", "apply_patch", {"command": add}),
        ("PostToolUse", "apply_patch", {"command": add}),
        ("PreToolUse", "apply_patch", {"command": missing}),
    ]


def test_session_start_hook_payload_and_context_reach_the_model(
    codex: CodexHome, responses_server: ResponsesServer, project_dir: Path, tmp_path: Path
) -> None:
    responses_server.responder = CodexScript()
    events = ["SessionStart", "UserPromptSubmit", "Stop", "SessionEnd"]
    log = write_hook(codex, tmp_path, events, context="Rule: run make check first.")
    codex.trust_hooks(codex.hooks_file)

    result = codex.run_exec(project_dir, "What should I know?")
    assert result.returncode == 0, result.stderr
    assert fired(log) == [
        ("SessionStart", "startup"),
        ("UserPromptSubmit", ""),
        ("Stop", ""),
        ("SessionEnd", "other"),
    ]
    thread_id = exec_events(result)[0]["thread_id"]
    (session_file,) = codex.session_files()
    for payload in payloads(log):
        assert set(payload) == PAYLOAD_FIELDS[payload["hook_event_name"]], payload
        assert payload["session_id"] == thread_id
        assert payload["transcript_path"] == str(session_file)
        assert payload["cwd"] == str(project_dir)
    start = payloads(log)[0]
    assert (start["model"], start["permission_mode"]) == ("scripted-model", "bypassPermissions")
    assert payloads(log)[1]["prompt"] == "What should I know?"

    (request,) = responses_server.requests
    order = [
        text
        for text in message_texts(request)
        if "Rule: run make check first." in text or text == "What should I know?"
    ]
    # SessionStart's context comes before the prompt, UserPromptSubmit's right after it,
    # each as a developer message holding exactly the hook's text.
    assert order == [
        "[SessionStart:startup] Rule: run make check first.",
        "What should I know?",
        "[UserPromptSubmit:] Rule: run make check first.",
    ]
    assert "[SessionStart:startup] Rule: run make check first." in developer_texts(request)


def test_an_untrusted_hook_is_skipped_without_a_word(
    codex: CodexHome, responses_server: ResponsesServer, project_dir: Path, tmp_path: Path
) -> None:
    responses_server.responder = CodexScript()
    log = write_hook(codex, tmp_path, ["SessionStart"], context="never seen")

    result = codex.run_exec(project_dir, "Hello.")
    assert result.returncode == 0, result.stderr
    assert payloads(log) == []
    assert "never seen" not in responses_server.requests[0].text
    assert "hook" not in (result.stdout + result.stderr).lower()


def context_reaching_the_model(
    codex: CodexHome, server: ResponsesServer, project: Path, size: int, **handler: Any
) -> str:
    """Run one ``codex exec`` whose SessionStart hook adds ``size`` bytes; return what arrived."""
    text = "BEGIN" + "x" * (size - 10) + "END!!"
    script = project.parent / f"big-{size}.py"
    script.write_text(
        "import json\n"
        "output = {'hookEventName': 'SessionStart', 'additionalContext': " + repr(text) + "}\n"
        "print(json.dumps({'hookSpecificOutput': output}))\n"
    )
    command = {"type": "command", "command": f"{sys.executable} {script}", **handler}
    codex.hooks_file.write_text(json.dumps({"hooks": {"SessionStart": [{"hooks": [command]}]}}))
    codex.trust_hooks(codex.hooks_file)
    before = len(server.requests)
    result = codex.run_exec(project, "Hello.")
    assert result.returncode == 0, result.stderr
    (arrived,) = [t for t in developer_texts(server.requests[before]) if t.count("BEGIN") == 1]
    return arrived


def test_hook_context_is_kept_whole_up_to_10000_bytes(
    codex: CodexHome, responses_server: ResponsesServer, project_dir: Path
) -> None:
    responses_server.responder = CodexScript()
    whole = context_reaching_the_model(codex, responses_server, project_dir, 10_000)
    assert len(whole) == 10_000 and whole.endswith("END!!")

    cut = context_reaching_the_model(codex, responses_server, project_dir, 10_001)
    assert cut.startswith("Warning: truncated output (original token count: 2501)")
    assert "tokens truncated…" in cut and SPILL_FOOTER in cut
    saved = Path(cut.split(SPILL_FOOTER)[1].strip())
    assert saved.is_relative_to(codex.temp_dir / "hook_outputs")
    assert len(saved.read_text().strip()) == 10_001

    # A handler's additionalContextLimit (tokens of about 4 bytes) raises the cap.
    raised = context_reaching_the_model(
        codex, responses_server, project_dir, 30_000, additionalContextLimit=8_000
    )
    assert len(raised) == 30_000 and raised.endswith("END!!")


def test_interactive_session_compact_then_exit(
    codex: CodexHome, responses_server: ResponsesServer, project_dir: Path, tmp_path: Path
) -> None:
    responses_server.responder = CodexScript(
        agent=(Reply(tool_calls=(exec_command(FAILING),)), Reply("The folder does not exist."))
    )
    events = ["SessionStart", "UserPromptSubmit", "PreCompact", "PostCompact", "SessionEnd"]
    log = write_hook(codex, tmp_path, events, context="Rule: keep the playbook short.")
    codex.trust_hooks(codex.hooks_file)

    session = codex.interactive(project_dir)
    try:
        session.submit("List the folder for me.")
        responses_server.wait_for(lambda r: is_agent_turn(r) and bool(r.call_outputs()))
        session.submit("/compact")
        session.submit("And after the compaction?")
        after = responses_server.wait_for(
            lambda r: is_agent_turn(r) and "And after the compaction?" in r.text
        )[-1]
        session.submit("/exit", wait=False)
        assert session.wait_exit() == 0
    finally:
        session.close()

    wait_until(lambda: ("SessionEnd", "other") in fired(log), "SessionEnd (other) in the hook log")
    assert fired(log) == [
        ("SessionStart", "startup"),
        ("UserPromptSubmit", ""),
        ("PreCompact", "manual"),
        ("PostCompact", "manual"),
        ("SessionStart", "compact"),
        ("UserPromptSubmit", ""),
        ("SessionEnd", "other"),
    ]
    for payload in payloads(log):
        assert set(payload) == PAYLOAD_FIELDS[payload["hook_event_name"]], payload
    contexts = [t for t in developer_texts(after) if "Rule: keep the playbook short." in t]
    # The compaction dropped the startup context; the compact source brought the rule back.
    assert contexts == [
        "[SessionStart:compact] Rule: keep the playbook short.",
        "[UserPromptSubmit:] Rule: keep the playbook short.",
    ]
    (session_file,) = codex.session_files()
    assert any(r["type"] == "compacted" for r in records(session_file))


def test_hook_trust_hash_matches_what_codex_writes_on_review(
    codex: CodexHome, responses_server: ResponsesServer, project_dir: Path, tmp_path: Path
) -> None:
    """The driver's trust hash is what Codex itself stores when the user trusts the hooks."""
    responses_server.responder = CodexScript()
    write_hook(codex, tmp_path, ["SessionStart", "UserPromptSubmit", "Stop", "SessionEnd"])
    hooks = json.loads(codex.hooks_file.read_text())
    hooks["hooks"]["SessionStart"].append(
        {"matcher": "startup|compact", "hooks": [{"type": "command", "command": "true"}]}
    )
    limited = {"type": "command", "command": "true", "additionalContextLimit": 6_000}
    hooks["hooks"]["UserPromptSubmit"].append({"hooks": [limited]})
    codex.hooks_file.write_text(json.dumps(hooks))

    session = codex.interactive(project_dir, ready=False)
    try:
        session.wait_display("Hooks need review")
        session.choose(2)  # "Trust all and continue"
        session.wait_idle()
    finally:
        session.close()

    config = codex.config_file.read_text()
    state = r'\[hooks\.state\."([^"]+)"\]\s*\ntrusted_hash = "(sha256:[0-9a-f]{64})"'
    written = dict(re.findall(state, config))
    assert len(written) == 6
    assert written == hook_states(codex.hooks_file)
