"""The Codex session file in tests/data/transcripts/codex/ holds what SOURCES.md and
docs/codex.md say: the record layout a Codex reader in acecode will have to parse."""

from __future__ import annotations

import json
from collections import Counter
from typing import Any

from transcript_data import TRANSCRIPTS

SESSION = TRANSCRIPTS / "codex" / "exec-failing-command.jsonl"


def session_records() -> list[dict[str, Any]]:
    return [json.loads(line) for line in SESSION.read_text(encoding="utf-8").splitlines()]


def payload_kinds(records: list[dict[str, Any]]) -> Counter[tuple[str, str | None]]:
    return Counter((r["type"], r["payload"].get("type")) for r in records)


def test_every_record_has_the_common_envelope() -> None:
    records = session_records()
    assert len(records) == 38
    assert SESSION.stat().st_size == 55_818
    assert all({"timestamp", "ordinal", "type", "payload"} <= set(r) for r in records)
    assert [r["ordinal"] for r in records] == list(range(len(records)))
    meta = records[0]
    assert meta["type"] == "session_meta"
    assert meta["payload"]["cli_version"] == "0.169.0"
    assert meta["payload"]["cwd"] == "/home/user/project"
    assert meta["payload"]["source"] == "exec"


def test_record_types_are_the_ones_sources_md_lists() -> None:
    kinds = payload_kinds(session_records())
    assert set(kinds) == {
        ("session_meta", None),
        ("event_msg", "task_started"),
        ("event_msg", "thread_settings_applied"),
        ("event_msg", "item_completed"),
        ("event_msg", "token_count"),
        ("event_msg", "task_complete"),
        ("response_item", "message"),
        ("response_item", "function_call"),
        ("response_item", "function_call_output"),
        ("response_item", "custom_tool_call"),
        ("response_item", "custom_tool_call_output"),
        ("world_state", None),
        ("turn_context", None),
        ("token_usage_record", None),
    }


def test_one_prompt_two_shell_calls_one_failed() -> None:
    records = session_records()
    items = [r["payload"] for r in records if r["type"] == "response_item"]
    prompts = [
        i["content"][0]["text"]
        for i in items
        if i["type"] == "message" and i["role"] == "user" and "<environment_context>" not in str(i)
    ]
    assert prompts == ["Show me the app's tests."]
    calls = [json.loads(i["arguments"])["cmd"] for i in items if i["type"] == "function_call"]
    assert calls == ["cat tests/test_app.py", "ls"]
    # The model sees the exit code only inside the output text; the event records carry it.
    outputs = [i["output"] for i in items if i["type"] == "function_call_output"]
    assert "Process exited with code 1" in outputs[0] and "No such file" in outputs[0]
    assert "Process exited with code 0" in outputs[1]
    executed = [
        r["payload"]["item"]
        for r in records
        if r["type"] == "event_msg" and r["payload"]["type"] == "item_completed"
    ]
    commands = [(i["exit_code"], i["status"]) for i in executed if i["type"] == "CommandExecution"]
    assert commands == [(1, "failed"), (0, "completed")]


def test_two_patches_one_applied_one_rejected() -> None:
    records = session_records()
    items = [r["payload"] for r in records if r["type"] == "response_item"]
    patches = [i["input"] for i in items if i["type"] == "custom_tool_call"]
    assert [p.splitlines()[1] for p in patches] == [
        "*** Add File: tests/test_app.py",
        "*** Update File: app.py",
    ]
    outputs = [i["output"] for i in items if i["type"] == "custom_tool_call_output"]
    assert outputs[0].startswith("Exit code: 0") and "A tests/test_app.py" in outputs[0]
    # A rejected patch has no exit code and no FileChange event: only this text says it failed.
    assert outputs[1].startswith("apply_patch verification failed")
    executed = [
        r["payload"]["item"]
        for r in records
        if r["type"] == "event_msg" and r["payload"]["type"] == "item_completed"
    ]
    changes = [i for i in executed if i["type"] == "FileChange"]
    assert [(list(c["changes"]), c["status"]) for c in changes] == [
        (["/home/user/project/tests/test_app.py"], "completed")
    ]


def test_hook_context_is_a_developer_message() -> None:
    items = [r["payload"] for r in session_records() if r["type"] == "response_item"]
    developer = [i["content"][0]["text"] for i in items if i.get("role") == "developer"]
    assert "Project rule: run the tests with make check." in developer
