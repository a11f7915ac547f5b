"""Reading real Claude Code transcripts: counts match SOURCES.md, every record shape is handled."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

from transcript_data import TRANSCRIPTS, SourceRow

from acecode.transcript import (
    find_subagent_transcripts,
    iter_messages,
    load_transcript,
    read_transcript,
)

SHORT = TRANSCRIPTS / "spotter" / "short.jsonl"
COMPACT = TRANSCRIPTS / "agentlogs" / "compact.jsonl"
INLINE_SIDECHAIN = TRANSCRIPTS / "agentlogs" / "subagent.jsonl"
WITH_IMAGE = (
    TRANSCRIPTS
    / "claude-code-log/-Users-dain-workspace-claude-code-log-sample"
    / "0d3a8e6f-290f-4105-a327-a2496e5e2a83.jsonl"
)
NEWEST = (
    TRANSCRIPTS
    / "claude-code-log/-experiments-worktrees/ef958aa1-0e93-49f0-bb71-150f63befcd1.jsonl"
)
LEGACY_SESSION = (
    TRANSCRIPTS
    / "claude-code-log/-Users-dain-workspace-coderabbit-review-helper"
    / "cb2e607c-c758-415a-8b45-c49e4631906a.jsonl"
)
SPOTTER_LONG = TRANSCRIPTS / "spotter" / "258c7280-ae70-4798-800f-63464d01a85d.jsonl"


def test_real_transcript_counts_match_sources(source_row: SourceRow) -> None:
    """Tool calls, failures, human prompts and interrupts equal the counts in SOURCES.md."""
    result = read_transcript(source_row.path)
    messages = result.messages
    kinds = Counter(m["kind"] for m in messages)
    main = Counter(m["kind"] for m in messages if not m["sidechain"])
    failed = [m for m in messages if m["kind"] == "tool_result" and m["is_error"]]
    assert kinds["tool_use"] == source_row.tool_calls
    assert len(failed) == source_row.failed
    assert main["prompt"] == source_row.prompts
    assert main["interrupt"] == source_row.interrupts
    assert result.stats.records == source_row.records
    assert result.stats.bad_lines == 0
    assert (kinds["compact_boundary"] + kinds["compact_summary"] > 0) == source_row.compaction
    assert {m["role"] for m in messages} <= {"user", "assistant"}
    assert all(isinstance(m["content"], str) for m in messages)


def test_every_tool_result_names_its_tool(source_row: SourceRow) -> None:
    """Results are linked to their call, so a failure says which tool failed."""
    messages = load_transcript(source_row.path)
    call_ids = {m["tool_use_id"] for m in messages if m["kind"] == "tool_use"}
    for message in messages:
        if message["kind"] == "tool_result" and message["tool_use_id"] in call_ids:
            assert message["tool_name"], message


def test_split_assistant_reply_keeps_blocks_in_order_with_shared_id() -> None:
    messages = load_transcript(SHORT)
    reply = [m for m in messages if m["role"] == "assistant"]
    assert [m["kind"] for m in reply] == ["thinking", "text", "tool_use", "tool_use"]
    assert {m["message_id"] for m in reply} == {"msg_01MKH1ccEGrZGNPvu8pYiiQa"}
    text = next(m for m in reply if m["kind"] == "text")
    assert text["content"] == (
        "Let me check the project structure and try running the server to see the error."
    )
    bash = next(m for m in reply if m["kind"] == "tool_use")
    assert bash["tool_name"] == "Bash"
    assert bash["tool_input"]["command"] == "mix phx.server 2>&1 | head -80"


def test_rejected_calls_interrupt_and_slash_command() -> None:
    messages = load_transcript(SHORT)
    errors = [m for m in messages if m["kind"] == "tool_result" and m["is_error"]]
    assert [m["tool_name"] for m in errors] == ["Bash", "Glob"]
    assert all("doesn't want to proceed" in m["content"] for m in errors)
    kinds = [m["kind"] for m in messages]
    assert kinds[0] == "prompt"
    assert "interrupt" in kinds
    command = next(m for m in messages if m["kind"] == "command")
    assert command["content"] == "/model"
    output = next(m for m in messages if m["kind"] == "command_output")
    assert "\x1b" not in output["content"] and "Kept model as" in output["content"]


def test_compaction_boundary_then_summary_and_meta() -> None:
    messages = load_transcript(COMPACT)
    kinds = [m["kind"] for m in messages]
    boundary = kinds.index("compact_boundary")
    assert kinds[boundary + 1] == "compact_summary"
    assert "trigger: manual" in messages[boundary]["content"]
    assert messages[boundary + 1]["content"].startswith("This session is being continued")
    assert "meta" in kinds
    assert [m["content"] for m in messages if m["kind"] == "command"] == ["/clear", "/compact"]
    assert [m["content"] for m in messages if m["kind"] == "prompt"] == ["how are you doing"]


def test_long_session_with_compaction_and_progress_records() -> None:
    result = read_transcript(SPOTTER_LONG)
    kinds = Counter(m["kind"] for m in result.messages)
    assert kinds["compact_boundary"] == 1
    assert kinds["compact_summary"] == 1
    assert result.stats.skipped_types["progress"] == 1333
    # Background task notifications are not human requests.
    assert kinds["notification"] == 2


def test_inline_sidechain_records_are_marked() -> None:
    messages = load_transcript(INLINE_SIDECHAIN)
    sidechain = [m for m in messages if m["sidechain"]]
    assert sidechain and any(m["role"] == "assistant" for m in sidechain)
    assert next(m["kind"] for m in messages if not m["sidechain"]) == "prompt"


def test_images_are_replaced_by_a_marker_never_kept() -> None:
    raw = WITH_IMAGE.read_text(encoding="utf-8")
    assert '"type":"image"' in raw.replace(" ", "")
    messages = load_transcript(WITH_IMAGE)
    marked = [m for m in messages if "[image" in m["content"]]
    assert marked
    longest_run = max(len(word) for m in messages for word in m["content"].split() or [""])
    assert longest_run < 5000


def test_tool_result_block_content_and_tool_references() -> None:
    messages = load_transcript(NEWEST)
    references = [m for m in messages if "[tool reference:" in m["content"]]
    assert references and all(m["kind"] == "tool_result" for m in references)
    # attachment, permission-mode, last-prompt and new system subtypes are skipped, not fatal
    stats = read_transcript(NEWEST).stats
    assert stats.skipped_types["attachment"] == 49
    assert stats.skipped_types["permission-mode"] == 8


def test_unknown_types_blocks_and_duplicates(tmp_path: Path) -> None:
    reply = {
        "type": "assistant",
        "uuid": "a1",
        "message": {
            "id": "msg_1",
            "role": "assistant",
            "content": [
                {"type": "text", "text": "Applied [pat-001] here."},
                {"type": "tool_use", "id": "toolu_1", "name": "Read", "input": {"file_path": "x"}},
            ],
        },
    }
    records = [
        {"type": "brand-new-record", "payload": 1},
        {"type": "user", "message": {"role": "user", "content": "please fix it"}},
        reply,
        reply,  # Claude Code sometimes writes the same blocks twice
        {
            "type": "assistant",
            "message": {"id": "msg_1", "content": [{"type": "hologram", "data": "?"}]},
        },
        {
            "type": "user",
            "message": {
                "role": "user",
                "content": [
                    {
                        "type": "tool_result",
                        "tool_use_id": "toolu_1",
                        "is_error": True,
                        "content": [
                            {"type": "text", "text": "<tool_use_error>nope</tool_use_error>"}
                        ],
                    }
                ],
            },
        },
    ]
    path = tmp_path / "s.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in records) + "\n", encoding="utf-8")
    result = read_transcript(path)
    kinds = [m["kind"] for m in result.messages]
    assert kinds == ["prompt", "text", "tool_use", "tool_result"]
    assert result.messages[1]["content"] == "Applied [pat-001] here."
    assert (
        result.messages[3] | {"is_error": True, "tool_name": "Read", "content": "nope"}
        == (result.messages[3])
    )
    assert result.stats.duplicate_blocks == 2
    assert result.stats.skipped_types["brand-new-record"] == 1
    assert result.stats.unknown_blocks["assistant:hologram"] == 1


def test_missing_file_is_an_empty_transcript(tmp_path: Path) -> None:
    assert load_transcript(tmp_path / "nope.jsonl") == []
    assert load_transcript(tmp_path) == []  # a folder is not a transcript either
    assert list(iter_messages(tmp_path / "nope.jsonl")) == []


def test_nested_subagents_found_and_read() -> None:
    found = find_subagent_transcripts(NEWEST)
    assert len(found) == 6
    assert all(p.parent.name == "subagents" for p in found)
    for path in found:
        messages = load_transcript(path)
        assert messages and all(m["sidechain"] for m in messages)
        assert {m.get("agent_id") for m in messages} == {path.stem.removeprefix("agent-")}


def test_legacy_flat_subagents_matched_by_session_id() -> None:
    found = find_subagent_transcripts(LEGACY_SESSION)
    assert [p.name for p in found] == [
        "agent-2b93909d.jsonl",
        "agent-645808c9.jsonl",
        "agent-ea02459f.jsonl",
    ]
    other = (
        TRANSCRIPTS
        / "claude-code-log/-src-deep-manifest/a7da6a22-facc-4fcd-8bab-f83c87862004.jsonl"
    )
    assert [p.name for p in find_subagent_transcripts(other)] == ["agent-c8d9b115.jsonl"]


def test_compaction_side_agents_left_out_unless_asked() -> None:
    default = find_subagent_transcripts(SPOTTER_LONG)
    everything = find_subagent_transcripts(SPOTTER_LONG, include_compaction=True)
    assert [p.name for p in default] == ["agent-a881341.jsonl"]
    assert sorted(p.name for p in everything) == [
        "agent-a881341.jsonl",
        "agent-acompact-fffbd0.jsonl",
    ]


def test_session_without_subagents(tmp_path: Path) -> None:
    session = tmp_path / "abc.jsonl"
    session.write_text("", encoding="utf-8")
    (tmp_path / "agent-x.jsonl").write_text('{"sessionId": "other"}\n', encoding="utf-8")
    assert find_subagent_transcripts(session) == []
