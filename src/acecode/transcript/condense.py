"""Render a session for the reflector LLM within a token budget.

The reflector must see what went right and wrong: every user request, the
assistant's reasoning and answers, each tool call with its key arguments,
every failed call with its error, test and build failures, and what was done
next. What it does not need is most of the volume of a session: file
contents, long command output, repeated reads, images.

How the budget is met: every message becomes an *item* with a priority and a
ladder of renderings, from detailed to short to omitted. Items start at their
most detailed rendering; while the total is over budget, the lowest-priority
items are shortened one step at a time (largest saving first), and a class is
exhausted before the next one up is touched. User requests, interrupts, failed
calls and their errors are *pinned*: they get shorter but are never omitted
unless the budget is too small to hold even their shortest forms. Omitted
runs are replaced by one line that says what was left out, so the reviewer
knows the gap is there.

Every rendering is redacted (:func:`acecode.redact.redact`) before it is
measured, and the result is redacted once more as a safety net.

What costs tokens without telling the reviewer anything is folded: the
project's folder, written out in every path, is named once in the header and
paths below it are shown relative (``./src/app.py``); a successful result of
a file-writing or to-do tool (the agent's ``silent`` tools) is left out, as
its call says what was done; a shell call's ``description`` repeats its
command and is not shown. A result identical to an earlier one of the same
call is marked as a replay. A compaction summary, the densest account of
the session, is never cut, and the user's answer to a question the agent asked
(the result of an ``answers`` tool) is kept like a request.
"""

from __future__ import annotations

import heapq
import re
import sys
from collections import Counter, OrderedDict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from acecode.redact import redact
from acecode.transcript.text import clip, estimate_tokens, one_line

if TYPE_CHECKING:
    from acecode.agents.base import Agent, ToolClasses

# Every request, failed call and the agent's reply after each failure of the 44 shared
# sessions fit in 8,000 tokens (bench/condense_bench.py); the rest is context.
DEFAULT_BUDGET_TOKENS = 10_000
MIN_BUDGET_TOKENS = 200

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
# The folder must be shared by this share of the paths, and be at least this deep.
_ROOT_SHARE = 0.6
_ROOT_MIN_PARTS = 3

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


def condense(
    messages: Iterable[dict[str, Any]],
    budget_tokens: int | None = None,
    agent: Agent | None = None,
) -> str:
    """The session as the reflector sees it: redacted, within ``budget_tokens``.

    ``messages`` may be a stream (:func:`acecode.transcript.iter_messages`): it is
    read once, and memory follows the budget, not the length of the session.
    ``agent`` (default: :data:`acecode.agents.DEFAULT_AGENT`) says which tools are
    shells, reads and subagents, and names the session in the header.
    """
    from acecode.agents import get_agent

    agent = agent or get_agent()
    budget = max(MIN_BUDGET_TOKENS, budget_tokens or DEFAULT_BUDGET_TOKENS)
    builder = _ItemBuilder(budget, agent.tools, agent.label)
    for message in messages:
        builder.add(message)
    items = builder.finish()
    header = builder.header()
    target = budget - estimate_tokens(header) - 1
    rendered = _fit_and_render(items, target)
    text = redact(f"{header}\n{rendered}" if rendered else header)
    if estimate_tokens(text) > budget:
        text = _hard_trim(text, budget)
    return _encodable(text)


def _encodable(text: str) -> str:
    """``text`` with lone surrogates replaced by U+FFFD.

    A transcript line holding half an emoji escape (``"\\ud83d"``) is valid
    JSON, but the string it decodes to cannot be encoded as UTF-8: the LLM
    request and ``acecode condense``'s output would both fail on it.
    """
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return text.encode("utf-8", "surrogatepass").decode("utf-8", "replace")
    return text


# --- items ---------------------------------------------------------------------------------------

# Calls remembered until their result arrives (results follow their call closely).
_TRACKED_CALLS = 4096
_MAX_PRIORITY = _P_REQUEST + 1


class _ItemBuilder:
    """Turns a stream of messages into items, in one pass, in memory bounded by the budget.

    Fitting (see :func:`_fit`) exhausts priority classes from the bottom up and
    stops once the total fits. So when the items of priority above ``p``
    already cost more than the budget at their longest renderings, every item
    of priority ``p`` or lower ends at its last rendering whatever else comes:
    omitted, or its shortest form if pinned. Such items are *collapsed* to that
    rendering as they arrive, so a session of a million small records keeps one
    small object per message instead of its whole ladder. The fit, and so the
    output, is the same as without collapsing: nothing is dropped that the
    fitter would have kept, and pinned items keep their shortest form.

    What a message's item looks like can depend on later messages: a call is
    marked failed when an error result for it arrives, the last assistant text
    of the main thread is the final answer, and subagent items are marked and
    lowered only when the session also has main-thread messages. Those are
    settled when the result arrives or in :meth:`finish`, always in the
    direction that keeps the collapse decisions valid.
    """

    def __init__(self, budget: int, tools: ToolClasses, label: str) -> None:
        self.budget = budget
        self.tools = tools
        self.label = label
        self.items: list[_Item] = []
        self.calls: OrderedDict[str, tuple[int, dict[str, Any]]] = OrderedDict()
        self.seen_outputs: set[int] = set()
        self.calls_since_error = _FIX_WINDOW_CALLS
        self.text_since_error = True
        self.final_answer = -1
        self.all_sidechain = True
        self.kinds: Counter[str] = Counter()
        self.messages = 0
        self.failed = 0
        # Longest-rendering cost per priority, and the highest priority whose items
        # (and all below) are certain to end at their last rendering.
        self.class_cost = [0] * (_MAX_PRIORITY + 1)
        self.collapse_below = 0
        self.next_check = 1024
        self.next_sweep = 4096
        self.placeholders: dict[tuple[str, int, bool, int], _Item] = {}
        self.paths: list[str] = []
        self.root = ""

    def _collect_paths(self, tool_input: Any) -> None:
        if len(self.paths) >= _ROOT_SAMPLE or not isinstance(tool_input, dict):
            return
        for key in _PATH_ARGS:
            value = tool_input.get(key)
            if isinstance(value, str) and value.startswith("/"):
                self.paths.append(value)

    def add(self, message: dict[str, Any]) -> None:
        self.messages += 1
        kind = message.get("kind")
        self.kinds[str(kind)] += 1
        sidechain = bool(message.get("sidechain"))
        if not sidechain:
            self.all_sidechain = False
        content = str(message.get("content") or "")
        cutoff = self.collapse_below
        penalty = _SIDECHAIN_PENALTY if sidechain else 0

        def drop(priority: int) -> bool:
            """True when an unpinned item of ``priority`` is certain to be omitted."""
            return max(1, priority - penalty) < cutoff

        item: _Item | None = None
        if kind == "tool_use":
            tool_use_id = str(message.get("tool_use_id") or "")
            self._collect_paths(message.get("tool_input"))
            fixing = self.calls_since_error < _FIX_WINDOW_CALLS
            self.calls_since_error += 1
            item = _call_item(self.tools, message, False, fixing, drop)
            self.calls[tool_use_id] = (len(self.items), message)
            self.calls.move_to_end(tool_use_id)
            if len(self.calls) > _TRACKED_CALLS:
                self.calls.popitem(last=False)
        elif kind == "tool_result":
            tool_use_id = str(message.get("tool_use_id") or "")
            tracked = self.calls.get(tool_use_id)
            call = tracked[1] if tracked else None
            if message.get("is_error"):
                self.failed += 1
                if tracked:
                    self._mark_failed(tracked[0], tracked[1])
            item = _result_item(self.tools, message, call, self.seen_outputs, drop)
            if item is not None and (message.get("is_error") or item.priority == _P_FAILURE_OUTPUT):
                self.calls_since_error = 0
                self.text_since_error = False
        elif kind == "text":
            priority = _P_TEXT if self.text_since_error else _P_TEXT_AFTER_ERROR
            self.text_since_error = True
            # The main thread's latest text may be the final answer: never dropped early.
            keep = _never if not sidechain else drop
            item = _ladder("ASSISTANT: ", content, priority, (2000, 800, 300), "text", drop=keep)
            if not sidechain:
                self.final_answer = len(self.items)
        elif kind == "thinking":
            priority = _P_THINKING if self.text_since_error else _P_THINKING_AFTER_ERROR
            item = _ladder("THINKING: ", content, priority, (1200, 400, 150), "thinking", drop=drop)
        else:
            item = _user_side_item(self.tools, kind, content, drop)
        if item is None:
            return
        item.label = sys.intern(item.label)
        if sidechain:
            # Lowered now as in a mixed session; undone in finish() if all is subagent work.
            item.sidechain = True
            if not item.pinned:
                lowered = max(1, item.priority - _SIDECHAIN_PENALTY)
                item.penalty = item.priority - lowered
                item.priority = lowered
        item.base = item.tokens[0]
        self.class_cost[item.priority] += item.base
        self.items.append(item)
        if item.priority < self.collapse_below and len(self.items) - 1 != self.final_answer:
            self._collapse(len(self.items) - 1)
        if len(self.items) >= self.next_check:
            self._update_cutoff()

    def _mark_failed(self, index: int, call: dict[str, Any]) -> None:
        old = self.items[index]
        if old.pinned:
            return
        item = _call_item(self.tools, call, True, False)
        item.label = sys.intern(item.label)
        item.sidechain = old.sidechain
        item.base = item.tokens[0]
        # A failed call is pinned, so its priority only rises: collapse decisions stay valid.
        self.class_cost[old.priority] -= old.base
        self.class_cost[item.priority] += item.base
        self.items[index] = item

    def _update_cutoff(self) -> None:
        self.next_check = len(self.items) + 1024
        above = 0
        cutoff = 0
        for priority in range(_MAX_PRIORITY, -1, -1):
            if above > self.budget:
                cutoff = priority + 1
                break
            above += self.class_cost[priority]
        if cutoff > self.collapse_below:
            self.collapse_below = cutoff
        if len(self.items) >= self.next_sweep:
            self.next_sweep = 2 * len(self.items)
            for index, item in enumerate(self.items):
                if item.priority < self.collapse_below and index != self.final_answer:
                    self._collapse(index)

    def _collapse(self, index: int) -> None:
        """Keep only the rendering the item at ``index`` is certain to end at.

        An omitted item becomes a shared placeholder: a session of a million
        omitted tool calls costs a list of a million references, no more. Its
        cost leaves the class totals; it only counted for classes below its
        own, which are already past the cutoff.
        """
        item = self.items[index]
        if item.pinned:
            if len(item.levels) > 1:
                item.levels = [item.levels[-1]]
                item.tokens = [item.tokens[-1]]
            return
        key = (item.label, item.priority, item.sidechain, item.penalty)
        shared = self.placeholders.get(key)
        if shared is None:
            shared = _Item(item.priority, [""], item.label, False, 0, [], item.sidechain)
            shared.penalty = item.penalty
            self.placeholders[key] = shared
        if shared is not item:
            self.class_cost[item.priority] -= item.base
            self.items[index] = shared

    def finish(self) -> list[_Item]:
        if self.final_answer >= 0:
            self.items[self.final_answer].priority = _P_FINAL_ANSWER
        self.root = project_root(self.paths)
        fold = _path_folder(self.root)
        for item in self.items:
            if fold is not None and not item.omitted:
                item.levels = [fold(text) for text in item.levels]
                item.__post_init__()
            if not item.sidechain or item.omitted:  # an omitted item's priority is moot
                continue
            if self.all_sidechain:
                item.priority += item.penalty
            else:
                item.levels = [f"[subagent] {text}" if text else text for text in item.levels]
                item.__post_init__()
        return self.items

    def header(self) -> str:
        kinds = self.kinds
        parts = [
            f"{self.messages} messages",
            f"{kinds['prompt']} user requests",
            f"{kinds['tool_use']} tool calls ({self.failed} failed)",
        ]
        if kinds["compact_boundary"]:
            parts.append(f"{kinds['compact_boundary']} compactions")
        header = f"{self.label} session, condensed for review: {'; '.join(parts)}."
        if self.root:
            header += f" Paths are relative to {self.root} (shown as ./)."
        return header + " A call without a result line succeeded."


def project_root(paths: Sequence[str]) -> str:
    """The deepest folder that at least ``_ROOT_SHARE`` of ``paths`` lie in, or "" when
    none is deep enough to be a project's (``/Users/me`` is not)."""
    if not paths:
        return ""
    counts: Counter[str] = Counter()
    for path in paths:
        parts = path.split("/")[1:-1]
        for depth in range(_ROOT_MIN_PARTS, len(parts) + 1):
            counts["/" + "/".join(parts[:depth])] += 1
    needed = _ROOT_SHARE * len(paths)
    shared = [folder for folder, count in counts.items() if count >= needed]
    return max(shared, key=len, default="")


def _path_folder(root: str) -> Callable[[str], str] | None:
    """A function writing ``root/x`` as ``./x`` and ``root`` itself as ``.``."""
    if not root:
        return None
    inside = re.compile(re.escape(root) + r"(?=/|(?![\w.-]))")

    def fold(text: str) -> str:
        return inside.sub(".", text) if root in text else text

    return fold


def fold_paths(text: str, root: str) -> str:
    """``text`` with the project folder ``root`` folded as the condenser folds it."""
    fold = _path_folder(root)
    return fold(text) if fold is not None else text


def rendered_root(rendering: str) -> str:
    """The folder a rendering's paths are relative to (its header says), or ""."""
    match = re.search(r"Paths are relative to (.+?) \(shown as \./\)\.", rendering[:2000])
    return match.group(1) if match else ""


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
        return _ladder(
            f"ERROR from {name}: ", content, _P_ERROR, (1500, 600, 400), "error", True, 0.25
        )
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


# --- fitting -------------------------------------------------------------------------------------


def _fit_and_render(items: list[_Item], target: int) -> str:
    """Shorten items until the rendering fits ``target`` tokens, then render it."""
    total = sum(item.cost for item in items)
    runs = sum(
        1 for i, item in enumerate(items) if item.omitted and not (i and items[i - 1].omitted)
    )
    while True:
        total, runs = _fit(items, target, total, runs)
        rendered = _render(items)
        measured = estimate_tokens(rendered)
        if measured <= target or not _shorten_any(items):
            if measured > target:
                return _hard_trim(rendered, target)
            return rendered
        total = sum(item.cost for item in items) + (measured - total)


def _fit(items: list[_Item], target: int, total: int, runs: int) -> tuple[int, int]:
    """Walk priorities upwards, shortening the biggest items first, until under ``target``."""
    for priority in sorted({item.priority for item in items}):
        if total + runs * _OMISSION_TOKENS <= target:
            break
        # A heap of (-saving, index): the biggest saving first, the earliest item on ties.
        # Only the item just shortened changes its saving, so each step costs log n and a
        # session of 100,000 messages fits in seconds instead of hours.
        heap = [
            (-_saving(item), i)
            for i, item in enumerate(items)
            if item.priority == priority and _can_shorten(item)
        ]
        heapq.heapify(heap)
        while heap and total + runs * _OMISSION_TOKENS > target:
            _, index = heapq.heappop(heap)
            total, runs = _step_down(items, index, total, runs)
            if _can_shorten(items[index]):
                heapq.heappush(heap, (-_saving(items[index]), index))
    if total + runs * _OMISSION_TOKENS > target:
        total, runs = _drop_pinned(items, target, total, runs)
    return total, runs


def _can_shorten(item: _Item) -> bool:
    return item.level < len(item.levels) - 1


def _saving(item: _Item) -> int:
    """Tokens saved by shortening ``item`` one step."""
    return item.cost - item.tokens[item.level + 1]


def _step_down(items: list[_Item], index: int, total: int, runs: int) -> tuple[int, int]:
    item = items[index]
    total -= item.cost
    item.level += 1
    total += item.cost
    if item.omitted:
        left = index > 0 and items[index - 1].omitted
        right = index + 1 < len(items) and items[index + 1].omitted
        runs += 1 - left - right
    return total, runs


def _drop_pinned(items: list[_Item], target: int, total: int, runs: int) -> tuple[int, int]:
    """Last resort when even the shortest forms overflow: omit items, least important first."""
    order = sorted(range(len(items)), key=lambda i: (items[i].priority, i))
    for index in order:
        if total + runs * _OMISSION_TOKENS <= target:
            break
        item = items[index]
        if item.omitted:
            continue
        item.levels.append("")
        item.tokens.append(0)
        total -= item.cost
        item.level = len(item.levels) - 1
        left = index > 0 and items[index - 1].omitted
        right = index + 1 < len(items) and items[index + 1].omitted
        runs += 1 - left - right
    return total, runs


def _shorten_any(items: list[_Item]) -> bool:
    """Shorten the lowest-priority item that still can be; False when none can."""
    candidates = [i for i, item in enumerate(items) if not item.omitted]
    if not candidates:
        return False
    index = min(candidates, key=lambda i: (items[i].priority, i))
    item = items[index]
    if item.level >= len(item.levels) - 1:
        item.levels.append("")
        item.tokens.append(0)
    item.level += 1
    return True


def _render(items: list[_Item]) -> str:
    lines: list[str] = []
    dropped: list[_Item] = []
    for item in items:
        if item.omitted:
            dropped.append(item)
            continue
        if dropped:
            lines.append(_omission_line(dropped))
            dropped = []
        lines.append(item.text)
    if dropped:
        lines.append(_omission_line(dropped))
    return "\n".join(lines)


def _omission_line(dropped: list[_Item]) -> str:
    counts = Counter(item.label for item in dropped)
    parts = [f"{label}×{count}" for label, count in counts.most_common(4)]
    more = "" if len(counts) <= 4 else ", …"
    return f"[… {len(dropped)} omitted to fit the budget: {', '.join(parts)}{more}]"


def _hard_trim(text: str, budget: int) -> str:
    """Cut the end off a text until it fits: only reached with absurdly small budgets."""
    while estimate_tokens(text) > budget and text:
        excess = estimate_tokens(text) - budget
        text = text[: max(0, len(text) - max(excess * 4, 16))]
    return text
