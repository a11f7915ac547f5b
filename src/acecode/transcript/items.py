"""The condenser's items (:mod:`acecode.transcript.condense`): what one message
becomes, its priority and its ladder of renderings, from detailed to omitted.

Priorities say what is shortened first when the session does not fit: a request,
an interrupt, a failed call and its error are pinned; file contents and long
outputs go first.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from acecode.text.redact import redact
from acecode.transcript.text import clip, estimate_tokens, one_line

if TYPE_CHECKING:
    from acecode.agents.base import ToolClasses

# Estimated cost of one "[… omitted …]" line.
_OMISSION_TOKENS = 30

# Priorities: higher survives longer.
_P_META = 5
_P_RESULT = 10
_P_COMMAND_OUTPUT = 15
_P_THINKING = 25
_P_NOTIFICATION = 25
_P_CALL = 35
_P_TASK_RESULT = 40
_P_THINKING_AFTER_ERROR = 45
_P_COMMAND = 50
_P_BOUNDARY = 50
_P_TEXT = 60
_P_FIX_CALL = 70
_P_TEXT_AFTER_ERROR = 75
_P_FAILURE_OUTPUT = 80
_P_FINAL_ANSWER = 85
_P_FAILED_CALL = 90
_P_SUMMARY = 92
_P_ERROR = 95
_P_INTERRUPT = 95
_P_REQUEST = 100
_SIDECHAIN_PENALTY = 10

# How many tool calls after a failure count as the attempt to fix it.
_FIX_WINDOW_CALLS = 3
# A compaction summary is kept whole up to this (the reader stores at most 20,000).
SUMMARY_CHARS = 20_000
REPLAY = "[replay] same output as the earlier identical call"
# Arguments that hold a path the project's folder can be folded out of.
_PATH_ARGS = ("file_path", "path", "notebook_path", "workdir", "cwd")
# Paths collected to find the project's folder (the first ones say enough).
_ROOT_SAMPLE = 2_000

FAILURE_SIGNAL = re.compile(
    r"^(?:FAILED|ERROR|FAIL)\b|Traceback \(most recent call last\)|\b[1-9]\d* (?:failed|errors?)\b"
    r"|\berror(?:\[E\d+\])?:|npm ERR!|BUILD FAILED|panicked at|[Ee]xit code [1-9]"
    r"|^E {3}|AssertionError|\bSyntaxError\b|command not found",
    re.MULTILINE,
)


@dataclass(slots=True)
class _Item:
    """One rendered unit with its ladder of renderings."""

    priority: int
    levels: list[str]
    label: str
    pinned: bool = False
    level: int = 0
    tokens: list[int] = field(default_factory=list)
    sidechain: bool = False
    penalty: int = 0  # how far a subagent item was lowered
    base: int = 0  # cost of the longest rendering, before any collapse

    def __post_init__(self) -> None:
        self.tokens = [estimate_tokens(text) + 1 if text else 0 for text in self.levels]

    @property
    def text(self) -> str:
        return self.levels[self.level]

    @property
    def cost(self) -> int:
        return self.tokens[self.level]

    @property
    def omitted(self) -> bool:
        return not self.levels[self.level]


def _never(priority: int) -> bool:
    return False


def _user_side_item(
    tools: ToolClasses, kind: Any, content: str, drop: Callable[[int], bool] = _never
) -> _Item | None:
    if kind == "prompt":
        return _ladder(
            "USER: ", content, _P_REQUEST, (4000, 1500, 600), "request", pinned=True, drop=drop
        )
    if kind == "interrupt":
        return _ladder("USER: ", content, _P_INTERRUPT, (300,), "interrupt", pinned=True, drop=drop)
    if kind == "command":
        return _ladder("USER COMMAND: ", content, _P_COMMAND, (300, 100), "command", drop=drop)
    if kind == "command_output":
        return _ladder(
            "COMMAND OUTPUT: ", content, _P_COMMAND_OUTPUT, (300,), "command output", drop=drop
        )
    if kind == "notification":
        return _ladder(
            "NOTIFICATION: ", content, _P_NOTIFICATION, (600, 200), "notification", drop=drop
        )
    if kind == "compact_boundary":
        return _ladder("--- ", f"{content} ---", _P_BOUNDARY, (200,), "compaction", drop=drop)
    if kind == "compact_summary":
        return _ladder(
            "COMPACTION SUMMARY: ",
            content,
            _P_SUMMARY,
            (SUMMARY_CHARS,),
            "compaction summary",
            pinned=True,
            drop=drop,
        )
    if kind == "meta" and content.strip() and not content.startswith(tools.hidden_context):
        return _ladder("CONTEXT: ", content, _P_META, (300,), "context", drop=drop)
    return None


def _ladder(
    prefix: str,
    content: str,
    priority: int,
    limits: Sequence[int],
    label: str,
    pinned: bool = False,
    tail_share: float = 0.2,
    drop: Callable[[int], bool] = _never,
) -> _Item:
    """An item whose renderings are ``content`` clipped to each of ``limits``.

    An unpinned item that ``drop`` says will be omitted is built omitted, saving the work.
    """
    if not pinned and drop(priority):
        return _Item(priority, [""], label)
    first = redact(clip(content.strip(), limits[0], tail_share))
    levels = [prefix + first]
    for limit in limits[1:]:
        levels.append(prefix + clip(first, limit, tail_share))
    if not pinned:
        levels.append("")
    return _Item(priority, levels, label, pinned)


def _call_item(
    tools: ToolClasses,
    message: dict[str, Any],
    failed: bool,
    fixing: bool,
    drop: Callable[[int], bool] = _never,
) -> _Item:
    name = str(message.get("tool_name") or "?")
    if not failed and drop(_P_FIX_CALL if fixing else _P_CALL):
        return _Item(_P_FIX_CALL if fixing else _P_CALL, [""], name)
    tool_input = message.get("tool_input")
    prefix = "CALL (failed): " if failed else "CALL: "
    levels = [prefix + redact(tools.describe(name, tool_input, limit)) for limit in (300, 100, 40)]
    if failed:
        return _Item(_P_FAILED_CALL, levels, name, pinned=True)
    priority = _P_FIX_CALL if fixing else _P_CALL
    return _Item(priority, [levels[0], levels[1], ""], name)


def _result_item(
    tools: ToolClasses,
    message: dict[str, Any],
    call: dict[str, Any] | None,
    seen: set[int],
    drop: Callable[[int], bool] = _never,
) -> _Item | None:
    name = str(message.get("tool_name") or (call or {}).get("tool_name") or "tool")
    content = str(message.get("content") or "").strip()
    if message.get("is_error"):
        item = _ladder(
            f"ERROR from {name}: ", content, _P_ERROR, (1500, 600, 400), "error", True, 0.25
        )
        return _with_error_line(item, content, f"ERROR from {name}")
    if name in tools.silent:
        return None
    if name in tools.answers:
        return _ladder(
            f"USER ANSWER to {name}: ", content, _P_REQUEST, (1500, 600), "answer", pinned=True
        )
    if name in tools.shell and FAILURE_SIGNAL.search(content):
        if drop(_P_FAILURE_OUTPUT):
            return _Item(_P_FAILURE_OUTPUT, [""], name)
        excerpt = _failure_excerpt(content)
        return _ladder(
            f"FAILURE in {name} output: ", excerpt, _P_FAILURE_OUTPUT, (1500, 600, 300), name
        )
    if name in tools.subagents:
        return _ladder(
            f"RESULT of {name}: ", content, _P_TASK_RESULT, (1500, 500, 150), name, drop=drop
        )
    # Hashed, so a long session keeps one small int per distinct output.
    key = hash((name, _call_target(call), hash(content)))
    if key in seen and content:
        return _Item(_P_RESULT, [f"RESULT of {name}: {REPLAY}", ""], name)
    seen.add(key)
    if not content:
        return _Item(_P_RESULT, [f"RESULT of {name}: (empty)", ""], name)
    if name in tools.quiet:
        lines = content.count("\n") + 1
        if drop(_P_RESULT):
            return _Item(_P_RESULT, [""], name)
        summary = f"({lines} lines) {clip(one_line(content), 160, 0.0)}"
        return _ladder(f"RESULT of {name}: ", summary, _P_RESULT, (200,), name)
    return _ladder(
        f"RESULT of {name}: ", content, _P_RESULT, (600, 150), name, tail_share=0.5, drop=drop
    )


def _with_error_line(item: _Item, content: str, head: str) -> _Item:
    """Show the line that says what failed (:func:`acecode.impact.error_line.error_line`)
    in each rendering that clipped it away: the reflector names failures by it."""
    from acecode.impact.error_line import error_line

    line = redact(clip(error_line(content), 300, 0.0))
    if not line:
        return item
    levels = [
        text if not text or line in text else text.replace(head, f"{head} ({line})", 1)
        for text in item.levels
    ]
    if levels != item.levels:
        item.levels = levels
        item.__post_init__()
    return item


def _call_target(call: dict[str, Any] | None) -> str:
    if not call:
        return ""
    tool_input = call.get("tool_input")
    if not isinstance(tool_input, dict):
        return ""
    for key in ("file_path", "command", "cmd", "pattern", "url", "path", "query"):
        if key in tool_input:
            return str(tool_input[key])
    return ""


def _failure_excerpt(content: str) -> str:
    """The lines that report the failure, with one line of context, then the output's end."""
    lines = content.splitlines()
    keep: set[int] = set()
    for number, line in enumerate(lines):
        if FAILURE_SIGNAL.search(line):
            keep.update((number - 1, number, number + 1))
    picked = [lines[n] for n in sorted(keep) if 0 <= n < len(lines)]
    tail = lines[-5:]
    excerpt = "\n".join(picked[:40])
    rest = [line for line in tail if line not in picked]
    if rest:
        excerpt += "\n…\n" + "\n".join(rest)
    return excerpt
