"""Turn Codex CLI session records (``rollout-*.jsonl``) into acecode's flat messages.

Every line is ``{"timestamp", "type", "payload"}`` (docs/codex.md, measured
with 0.169). The model-visible items are ``response_item`` records: user,
assistant and developer ``message``\\ s, ``function_call`` /
``custom_tool_call`` and their ``*_output``, ``reasoning``; a compaction is
one ``compacted`` record. The messages have the shape of
:mod:`acecode.agents.claude_code.messages` (``role``, ``kind``, ``content``,
``tool_name``, ``tool_use_id``, ``tool_input``, ``is_error``...), so the
rest of acecode reads both agents alike.

What Codex does not say in a flag, the reader works out: a shell call failed
when its output says ``Process exited with code N`` with N not 0, or its
``CommandExecution`` event says ``failed``; a patch failed when its output
starts with ``apply_patch verification failed`` or says a non-zero exit code.
``developer`` messages (the system prompt, the skills list and hook context,
acecode's own injection among them) are not the session's work and are
skipped; the ``<environment_context>`` block and AGENTS.md instructions,
which Codex sends as ``user`` messages, become ``meta``.
"""

from __future__ import annotations

import json
import re
from collections import OrderedDict
from typing import Any

from acecode.agents.base import Message, MessageReader
from acecode.transcript.reader import TranscriptStats
from acecode.transcript.text import clip, strip_ansi

PROMPT_CHARS = 20_000
TEXT_CHARS = 20_000
THINKING_CHARS = 4_000
TOOL_RESULT_CHARS = 4_000
TOOL_INPUT_VALUE_CHARS = 1_000
SUMMARY_CHARS = 20_000
META_CHARS = 2_000
_TRACKED_CALLS = 4096

# User messages Codex writes itself, recognised by their opening.
_CONTEXT_OPENINGS = ("<environment_context>", "<user_instructions>", "# AGENTS.md instructions")
_EXIT_CODE = re.compile(r"^(?:Process exited with code|Exit code:) (-?\d+)$", re.MULTILINE)
_PATCH_FAILED = "apply_patch verification failed"
# Bookkeeping lines at the top of a shell call's output, before ``Output:``.
_OUTPUT_HEADER = re.compile(r"^(?:Chunk ID|Wall time|Original token count|Output):.*$\n?", re.M)


class RolloutReader(MessageReader):
    """Converts Codex records one at a time; remembers only recent calls."""

    def __init__(self, stats: TranscriptStats) -> None:
        self._stats = stats
        self._calls: OrderedDict[str, str] = OrderedDict()  # call id -> tool name
        self._failed_calls: set[str] = set()
        self._sidechain = False

    def convert(self, record: dict[str, Any]) -> list[Message]:
        """The messages one record contributes (often none)."""
        record_type = str(record.get("type"))
        payload = record.get("payload")
        if not isinstance(payload, dict):
            self._stats.skipped_types[f"{record_type}:no-payload"] += 1
            return []
        if record_type == "response_item":
            messages = self._item(record, payload)
        elif record_type == "compacted":
            messages = self._compacted(record, payload)
        elif record_type == "event_msg":
            self._event(payload)
            return []
        else:
            if record_type == "session_meta":
                self._sidechain = isinstance(payload.get("source"), dict)
            self._stats.skipped_types[record_type] += 1
            return []
        self._stats.messages += len(messages)
        return messages

    # --- record kinds ------------------------------------------------------------------------

    def _item(self, record: dict[str, Any], item: dict[str, Any]) -> list[Message]:
        item_type = item.get("type")
        if item_type == "message":
            return self._message(record, item)
        if item_type in ("function_call", "custom_tool_call", "local_shell_call"):
            return [self._call(record, item)]
        if item_type in ("function_call_output", "custom_tool_call_output"):
            return [self._output(record, item)]
        if item_type == "reasoning":
            text = "\n".join(
                str(part.get("text") or "")
                for part in item.get("summary") or ()
                if isinstance(part, dict)
            )
            if text.strip():
                return [self._base(record, "assistant", "thinking", clip(text, THINKING_CHARS))]
            return []
        self._stats.unknown_blocks[f"response_item:{item_type}"] += 1
        return []

    def _message(self, record: dict[str, Any], item: dict[str, Any]) -> list[Message]:
        role = item.get("role")
        text = _text_of(item.get("content"))
        if role == "assistant":
            if not text.strip():
                return []
            message = self._base(record, "assistant", "text", clip(text, TEXT_CHARS))
            message["message_id"] = str(item.get("id") or "")
            return [message]
        if role == "user":
            stripped = text.strip()
            if not stripped:
                return []
            if stripped.startswith(_CONTEXT_OPENINGS):
                return [self._base(record, "user", "meta", clip(strip_ansi(text), META_CHARS))]
            return [self._base(record, "user", "prompt", clip(text, PROMPT_CHARS))]
        self._stats.skipped_types[f"message:{role}"] += 1
        return []

    def _call(self, record: dict[str, Any], item: dict[str, Any]) -> Message:
        from acecode.agents.codex.tools import describe_codex_call

        name = str(item.get("name") or item.get("type") or "?")
        call_id = str(item.get("call_id") or item.get("id") or "")
        if "input" in item:
            tool_input: Any = {"input": item.get("input")}
        else:
            tool_input = _arguments(item.get("arguments", item.get("action")))
        tool_input = _clip_values(tool_input)
        self._calls[call_id] = name
        if len(self._calls) > _TRACKED_CALLS:
            self._calls.popitem(last=False)
        message = self._base(record, "assistant", "tool_use", describe_codex_call(name, tool_input))
        message.update(tool_name=name, tool_use_id=call_id, tool_input=tool_input)
        return message

    def _output(self, record: dict[str, Any], item: dict[str, Any]) -> Message:
        call_id = str(item.get("call_id") or "")
        raw = item.get("output")
        text = raw if isinstance(raw, str) else _text_of(raw) or json.dumps(raw)
        failed = call_id in self._failed_calls or _failed_output(text)
        shown = _OUTPUT_HEADER.sub("", text) if "Chunk ID:" in text else text
        message = self._base(
            record, "user", "tool_result", clip(strip_ansi(shown), TOOL_RESULT_CHARS)
        )
        message.update(
            tool_use_id=call_id,
            tool_name=self._calls.get(call_id, ""),
            is_error=failed,
            images=0,
        )
        return message

    def _event(self, payload: dict[str, Any]) -> None:
        """Remember shell calls Codex reports as failed (the event precedes the output)."""
        item = payload.get("item")
        if (
            payload.get("type") == "item_completed"
            and isinstance(item, dict)
            and item.get("status") == "failed"
        ):
            self._failed_calls.add(str(item.get("id") or ""))
            if len(self._failed_calls) > _TRACKED_CALLS:
                self._failed_calls.clear()

    def _compacted(self, record: dict[str, Any], payload: dict[str, Any]) -> list[Message]:
        messages = [self._base(record, "user", "compact_boundary", "Conversation compacted")]
        summary = str(payload.get("message") or "")
        if summary.strip():
            messages.append(
                self._base(record, "user", "compact_summary", clip(summary, SUMMARY_CHARS))
            )
        return messages

    def _base(self, record: dict[str, Any], role: str, kind: str, content: str) -> Message:
        return {
            "role": role,
            "kind": kind,
            "content": content,
            "timestamp": record.get("timestamp"),
            "uuid": None,
            "sidechain": self._sidechain,
        }


def _text_of(content: Any) -> str:
    """The text parts of a message's content list (``input_text``, ``output_text``)."""
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        return ""
    parts = []
    for part in content:
        if isinstance(part, dict):
            if isinstance(part.get("text"), str):
                parts.append(part["text"])
            elif part.get("type") in ("input_image", "image"):
                parts.append("[image]")
    return "\n".join(parts)


def _arguments(raw: Any) -> Any:
    """A call's arguments: Codex stores them as a JSON string."""
    if isinstance(raw, str):
        try:
            return json.loads(raw)
        except ValueError:
            return {"arguments": raw}
    return raw if raw is not None else {}


def _clip_values(value: Any) -> Any:
    if isinstance(value, str):
        return clip(value, TOOL_INPUT_VALUE_CHARS)
    if isinstance(value, dict):
        return {str(k): _clip_values(v) for k, v in list(value.items())[:50]}
    if isinstance(value, list):
        return [_clip_values(v) for v in value[:50]]
    return value


def _failed_output(text: str) -> bool:
    """Whether a call's output says it failed (Codex sets no error flag)."""
    if text.lstrip().startswith(_PATCH_FAILED):
        return True
    match = _EXIT_CODE.search(text[:2000])
    return match is not None and match.group(1) != "0"
