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

Every rendering is redacted (:func:`acecode.text.redact.redact`) before it is
measured, and the result is redacted once more as a safety net.

The parts: :mod:`acecode.transcript.items` (what a message becomes),
:mod:`acecode.transcript.fitting` (meeting the budget) and
:mod:`acecode.transcript.path_folding` (the project's folder named once); this
module builds the items from the stream and puts them together.

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

import sys
from collections import Counter, OrderedDict
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from acecode.text.redact import redact
from acecode.transcript.fitting import _fit_and_render, _hard_trim
from acecode.transcript.items import (
    _FIX_WINDOW_CALLS,
    _P_FAILURE_OUTPUT,
    _P_FINAL_ANSWER,
    _P_REQUEST,
    _P_TEXT,
    _P_TEXT_AFTER_ERROR,
    _P_THINKING,
    _P_THINKING_AFTER_ERROR,
    _PATH_ARGS,
    _ROOT_SAMPLE,
    _SIDECHAIN_PENALTY,
    FAILURE_SIGNAL,
    REPLAY,
    _call_item,
    _Item,
    _ladder,
    _never,
    _result_item,
    _user_side_item,
)
from acecode.transcript.moments import MomentCounter
from acecode.transcript.path_folding import _path_folder, fold_paths, project_root, rendered_root
from acecode.transcript.text import estimate_tokens

if TYPE_CHECKING:
    from acecode.agents.base import Agent, ToolClasses

# The condenser's public face; its parts live in items, fitting and path_folding.
__all__ = [
    "DEFAULT_BUDGET_TOKENS",
    "FAILURE_SIGNAL",
    "MIN_BUDGET_TOKENS",
    "REPLAY",
    "condense",
    "fold_paths",
    "project_root",
    "rendered_root",
]

# Every request, failed call and the agent's reply after each failure of the 44 shared
# sessions fit in 8,000 tokens (bench/condense_bench.py); the rest is context.
DEFAULT_BUDGET_TOKENS = 10_000
MIN_BUDGET_TOKENS = 200


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
        self.moments = MomentCounter(tools)

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
        moment = self.moments.label(message)
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
        if moment is not None and not item.omitted:
            item.levels = [f"[{moment}] {text}" if text else text for text in item.levels]
            item.__post_init__()
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
        header += " A call without a result line succeeded."
        if self.moments.failures or self.moments.corrections:
            header += " Failures are numbered [F1], [F2]..., the user's messages [C1], [C2]..."
        return header
