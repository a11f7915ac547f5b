"""Turn Claude Code transcript records into flat message dicts.

One message per meaningful unit: a user request, one assistant text, one
thinking block, one tool call, one tool result. Each carries ``role``
("user" or "assistant"), ``kind`` and ``content`` (plain text), plus:

* every message: ``timestamp``, ``uuid``, ``sidechain`` (subagent work),
  ``agent_id`` when the record names its subagent;
* assistant messages: ``message_id``, shared by the blocks of one reply
  (Claude Code writes one reply over several records);
* ``tool_use``: ``tool_name``, ``tool_use_id``, ``tool_input`` (long string
  values clipped); ``content`` is a one-line description of the call;
* ``tool_result``: ``tool_use_id``, ``tool_name`` (resolved from the call),
  ``is_error``, ``images`` (count of images, whose data is never kept).

Kinds: ``prompt`` (typed by the human), ``interrupt``, ``command`` (a slash
command), ``command_output``, ``notification`` (a background task reported back),
``meta`` (context injected by Claude Code or a
hook), ``compact_boundary``, ``compact_summary``, ``text``, ``thinking``,
``tool_use``, ``tool_result``. Assistant ``text`` content is the exact text,
so playbook citations such as ``[pat-001]`` can be scanned from it.

Every stored string is clipped, so the size of the list depends on the
number of messages, not on how large the tool outputs in the file were.
"""

from __future__ import annotations

import hashlib
import re
from collections import OrderedDict
from typing import Any

from acecode.agents.base import MessageReader
from acecode.agents.claude_code.tools import describe_tool_call
from acecode.transcript.reader import TranscriptStats
from acecode.transcript.text import clip, strip_ansi

Message = dict[str, Any]

# Per-kind caps on stored text (characters).
PROMPT_CHARS = 20_000
TEXT_CHARS = 20_000
THINKING_CHARS = 4_000
TOOL_RESULT_CHARS = 4_000
TOOL_INPUT_VALUE_CHARS = 1_000
SUMMARY_CHARS = 20_000
META_CHARS = 2_000
_MAX_INPUT_ITEMS = 50
_MAX_INPUT_DEPTH = 4

_TRACKED_TOOL_IDS = 4096
_TRACKED_MESSAGE_IDS = 64

_COMMAND_NAME = re.compile(r"<command-name>(.*?)</command-name>", re.DOTALL)
_COMMAND_ARGS = re.compile(r"<command-args>(.*?)</command-args>", re.DOTALL)
_COMMAND_OUTPUT = re.compile(
    r"<(local-command-stdout|local-command-stderr|bash-stdout|bash-stderr)>(.*?)</\1>", re.DOTALL
)
_BASH_INPUT = re.compile(r"^<bash-input>(.*?)</bash-input>$", re.DOTALL)
_TOOL_USE_ERROR = re.compile(r"^\s*<tool_use_error>(.*?)</tool_use_error>\s*$", re.DOTALL)
_INTERRUPT_PREFIX = "[Request interrupted by user"


def with_default_kind(message: Message) -> Message:
    """``message``, or for a minimal ``{"role", "content"}`` message (the spec's shape, as
    library callers write it) a copy with the ``kind`` it stands for: a user request
    (``prompt``) or an assistant ``text``."""
    if "kind" in message:
        return message
    return {**message, "kind": "text" if message.get("role") == "assistant" else "prompt"}


class MessageBuilder(MessageReader):
    """Converts records one at a time; remembers only bounded recent context."""

    def __init__(self, stats: TranscriptStats) -> None:
        self._stats = stats
        self._tool_names: OrderedDict[str, str] = OrderedDict()
        self._seen_blocks: OrderedDict[str, set[str]] = OrderedDict()

    def convert(self, record: dict[str, Any]) -> list[Message]:
        """The messages one record contributes (often none)."""
        record_type = record.get("type")
        if record_type == "user":
            messages = self._user(record)
        elif record_type == "assistant":
            messages = self._assistant(record)
        elif record_type == "system":
            messages = self._system(record)
        else:
            self._stats.skipped_types[str(record_type)] += 1
            return []
        self._stats.messages += len(messages)
        return messages

    # --- record kinds ------------------------------------------------------------------------

    def _user(self, record: dict[str, Any]) -> list[Message]:
        message = record.get("message")
        if not isinstance(message, dict):
            self._stats.skipped_types["user:no-message"] += 1
            return []
        content = message.get("content")
        if record.get("isCompactSummary"):
            text = _plain_text(content)
            return [self._base(record, "user", "compact_summary", clip(text, SUMMARY_CHARS))]
        if isinstance(content, str):
            return [self._user_text(record, content)]
        if not isinstance(content, list):
            self._stats.skipped_types["user:no-content"] += 1
            return []
        out: list[Message] = []
        texts: list[str] = []
        for block in content:
            if not isinstance(block, dict):
                continue
            block_type = block.get("type")
            if block_type == "tool_result":
                out.append(self._tool_result(record, block))
            elif block_type == "text":
                texts.append(str(block.get("text") or ""))
            elif block_type == "image":
                texts.append(_image_marker(block))
            elif block_type == "document":
                texts.append("[document]")
            else:
                self._stats.unknown_blocks[f"user:{block_type}"] += 1
        if texts:
            out.insert(0, self._user_text(record, "\n".join(texts)))
        return out

    def _user_text(self, record: dict[str, Any], text: str) -> Message:
        if record.get("isMeta"):
            return self._base(record, "user", "meta", clip(strip_ansi(text), META_CHARS))
        stripped = text.strip()
        name = _COMMAND_NAME.search(stripped)
        if name and stripped.startswith(("<command-name>", "<command-message>")):
            args = _COMMAND_ARGS.search(stripped)
            command = name.group(1).strip()
            if args and args.group(1).strip():
                command = f"{command} {args.group(1).strip()}"
            return self._base(record, "user", "command", clip(command, META_CHARS))
        bash_input = _BASH_INPUT.match(stripped)
        if bash_input:
            # A "!" shell command typed by the user in bash mode.
            command = f"! {bash_input.group(1).strip()}"
            return self._base(record, "user", "command", clip(command, META_CHARS))
        output = _COMMAND_OUTPUT.match(stripped)
        if output:
            body = strip_ansi(output.group(2)).strip()
            return self._base(record, "user", "command_output", clip(body, META_CHARS))
        if stripped.startswith(_INTERRUPT_PREFIX):
            return self._base(record, "user", "interrupt", clip(stripped, META_CHARS))
        if stripped.startswith("<task-notification>"):
            return self._base(record, "user", "notification", clip(stripped, META_CHARS))
        return self._base(record, "user", "prompt", clip(text, PROMPT_CHARS))

    def _tool_result(self, record: dict[str, Any], block: dict[str, Any]) -> Message:
        tool_use_id = str(block.get("tool_use_id") or "")
        raw = block.get("content")
        images = 0
        if isinstance(raw, list):
            parts: list[str] = []
            for item in raw:
                if not isinstance(item, dict):
                    continue
                item_type = item.get("type")
                if item_type == "text":
                    parts.append(str(item.get("text") or ""))
                elif item_type == "image":
                    images += 1
                    parts.append(_image_marker(item))
                elif item_type == "tool_reference":
                    parts.append(f"[tool reference: {item.get('tool_name', '?')}]")
                else:
                    parts.append(f"[{item_type}]")
            text = "\n".join(parts)
        else:
            text = "" if raw is None else str(raw)
        error = _TOOL_USE_ERROR.match(text)
        if error:
            text = error.group(1)
        message = self._base(
            record, "user", "tool_result", clip(strip_ansi(text), TOOL_RESULT_CHARS)
        )
        message["tool_use_id"] = tool_use_id
        message["tool_name"] = self._tool_names.get(tool_use_id, "")
        message["is_error"] = bool(block.get("is_error"))
        message["images"] = images
        return message

    def _assistant(self, record: dict[str, Any]) -> list[Message]:
        message = record.get("message")
        if not isinstance(message, dict):
            self._stats.skipped_types["assistant:no-message"] += 1
            return []
        message_id = str(message.get("id") or record.get("uuid") or "")
        content = message.get("content")
        if isinstance(content, str):
            content = [{"type": "text", "text": content}]
        if not isinstance(content, list):
            return []
        seen = self._blocks_seen(message_id)
        out: list[Message] = []
        for block in content:
            if not isinstance(block, dict):
                continue
            key = _block_key(block)
            if key in seen:
                self._stats.duplicate_blocks += 1
                continue
            seen.add(key)
            converted = self._assistant_block(record, block)
            if converted is not None:
                converted["message_id"] = message_id
                if record.get("isApiErrorMessage"):
                    converted["api_error"] = True
                out.append(converted)
        return out

    def _assistant_block(self, record: dict[str, Any], block: dict[str, Any]) -> Message | None:
        block_type = block.get("type")
        if block_type == "text":
            text = str(block.get("text") or "")
            if not text.strip():
                return None
            return self._base(record, "assistant", "text", clip(text, TEXT_CHARS))
        if block_type == "thinking":
            text = str(block.get("thinking") or "")
            if not text.strip():
                return None
            return self._base(record, "assistant", "thinking", clip(text, THINKING_CHARS))
        if block_type == "redacted_thinking":
            return None
        if block_type in ("tool_use", "server_tool_use"):
            name = str(block.get("name") or "?")
            tool_use_id = str(block.get("id") or "")
            tool_input = _clip_input(block.get("input"), 0)
            self._remember_tool(tool_use_id, name)
            message = self._base(
                record, "assistant", "tool_use", describe_tool_call(name, tool_input)
            )
            message["tool_name"] = name
            message["tool_use_id"] = tool_use_id
            message["tool_input"] = tool_input
            if isinstance(record.get("cwd"), str):
                # Where the call ran: a learned input pattern may name the folder.
                message["cwd"] = record["cwd"]
            return message
        self._stats.unknown_blocks[f"assistant:{block_type}"] += 1
        return None

    def _system(self, record: dict[str, Any]) -> list[Message]:
        subtype = record.get("subtype")
        if subtype == "compact_boundary":
            meta = record.get("compactMetadata") or {}
            trigger = meta.get("trigger", "?") if isinstance(meta, dict) else "?"
            text = f"Conversation compacted (trigger: {trigger})"
            return [self._base(record, "user", "compact_boundary", text)]
        if subtype == "local_command":
            return [self._user_text(record, str(record.get("content") or ""))]
        self._stats.skipped_types[f"system:{subtype}"] += 1
        return []

    # --- helpers -----------------------------------------------------------------------------

    def _base(self, record: dict[str, Any], role: str, kind: str, content: str) -> Message:
        message: Message = {
            "role": role,
            "kind": kind,
            "content": content,
            "timestamp": record.get("timestamp"),
            "uuid": record.get("uuid"),
            "sidechain": bool(record.get("isSidechain")),
        }
        if record.get("agentId"):
            message["agent_id"] = str(record["agentId"])
        return message

    def _remember_tool(self, tool_use_id: str, name: str) -> None:
        self._tool_names[tool_use_id] = name
        if len(self._tool_names) > _TRACKED_TOOL_IDS:
            self._tool_names.popitem(last=False)

    def _blocks_seen(self, message_id: str) -> set[str]:
        seen = self._seen_blocks.get(message_id)
        if seen is None:
            seen = set()
            self._seen_blocks[message_id] = seen
            if len(self._seen_blocks) > _TRACKED_MESSAGE_IDS:
                self._seen_blocks.popitem(last=False)
        return seen


def _block_key(block: dict[str, Any]) -> str:
    """Identity of a block within one reply, to drop blocks written twice."""
    if block.get("type") in ("tool_use", "server_tool_use") and block.get("id"):
        return f"tool:{block['id']}"
    body = str(block.get("text") or block.get("thinking") or block.get("data") or "")
    digest = hashlib.blake2b(body.encode("utf-8", "replace"), digest_size=12).hexdigest()
    return f"{block.get('type')}:{digest}"


def _plain_text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(
            str(b.get("text") or "")
            for b in content
            if isinstance(b, dict) and b.get("type") == "text"
        )
    return ""


def _image_marker(block: dict[str, Any]) -> str:
    source = block.get("source")
    media = source.get("media_type") if isinstance(source, dict) else None
    return f"[image: {media}]" if media else "[image]"


def _clip_input(value: Any, depth: int) -> Any:
    """A copy of a tool input with long strings and lists clipped."""
    if isinstance(value, str):
        return clip(value, TOOL_INPUT_VALUE_CHARS)
    if depth >= _MAX_INPUT_DEPTH:
        return value if isinstance(value, int | float | bool) or value is None else "…"
    if isinstance(value, dict):
        return {
            str(k): _clip_input(v, depth + 1) for k, v in list(value.items())[:_MAX_INPUT_ITEMS]
        }
    if isinstance(value, list):
        return [_clip_input(v, depth + 1) for v in value[:_MAX_INPUT_ITEMS]]
    return value
