"""Fitting the condenser's items into the token budget, then rendering them.

While the total is over budget, the lowest-priority items are shortened one
step at a time (largest saving first), and a class is exhausted before the
next one up is touched; pinned items are dropped only when even their shortest
forms do not fit. Omitted runs become one line saying what was left out.
"""

from __future__ import annotations

import heapq
from collections import Counter
from typing import TYPE_CHECKING

from acecode.transcript.items import _OMISSION_TOKENS, _Item
from acecode.transcript.text import estimate_tokens

if TYPE_CHECKING:
    pass

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
