"""Token accounting: what each LLM call cost, scoped to a learning cycle.

A cycle opens ``with usage.track() as ledger:``; every call made inside that
block (including inside tasks it starts) lands in the ledger, so the cycle's
report can say how many tokens it spent, overall and per role. Ledgers nest:
a bootstrap run can track many cycles while each cycle tracks its own.
Providers that do not report usage are estimated at about 4 characters per
token, and the record says so.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import asdict, dataclass, field
from typing import Any

CHARS_PER_TOKEN = 4


def estimate_tokens(text: str) -> int:
    """A provider-independent guess: about 4 characters per token."""
    return math.ceil(len(text) / CHARS_PER_TOKEN) if text else 0


@dataclass(frozen=True)
class CallRecord:
    """One logical LLM call (all its attempts) as the ledger sees it."""

    role: str
    provider: str
    model: str | None
    input_tokens: int
    output_tokens: int
    estimated: bool
    attempts: int
    ok: bool
    # Reported by the provider (``claude -p``, OpenRouter); None otherwise, and then
    # acecode.cost.pricing estimates it from the price table.
    cost_usd: float | None = None
    # Parts of input_tokens read from / written to a prompt cache (priced apart); the
    # 1-hour writes are part of the writes, at a higher price.
    cache_read_tokens: int = 0
    cache_write_tokens: int = 0
    cache_write_1h_tokens: int = 0
    # The reply stopped at max_tokens (the call was then retried once with more room).
    truncated: bool = False


@dataclass
class UsageLedger:
    """The calls recorded while a :func:`track` block was open."""

    calls: list[CallRecord] = field(default_factory=list)

    @property
    def input_tokens(self) -> int:
        return sum(call.input_tokens for call in self.calls)

    @property
    def output_tokens(self) -> int:
        return sum(call.output_tokens for call in self.calls)

    @property
    def total_tokens(self) -> int:
        return self.input_tokens + self.output_tokens

    @property
    def estimated(self) -> bool:
        """True when any figure in the totals is an estimate."""
        return any(call.estimated for call in self.calls)

    @property
    def cost_usd(self) -> float | None:
        """Summed cost when at least one provider reported one (``claude -p`` does)."""
        costs = [call.cost_usd for call in self.calls if call.cost_usd is not None]
        return sum(costs) if costs else None

    def by_role(self) -> dict[str, dict[str, int]]:
        """Per-role totals: calls, attempts, input and output tokens."""
        totals: dict[str, dict[str, int]] = {}
        for call in self.calls:
            row = totals.setdefault(
                call.role, {"calls": 0, "attempts": 0, "input_tokens": 0, "output_tokens": 0}
            )
            row["calls"] += 1
            row["attempts"] += call.attempts
            row["input_tokens"] += call.input_tokens
            row["output_tokens"] += call.output_tokens
        return totals

    @classmethod
    def from_dict(cls, data: Any) -> UsageLedger:
        """The ledger a :meth:`to_dict` summary came from (its ``calls``), to add more calls to."""
        calls = data.get("calls", []) if isinstance(data, dict) else []
        return cls(calls=[CallRecord(**call) for call in calls if isinstance(call, dict)])

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready summary for cycle reports."""
        return {
            "input_tokens": self.input_tokens,
            "output_tokens": self.output_tokens,
            "total_tokens": self.total_tokens,
            "estimated": self.estimated,
            "cost_usd": self.cost_usd,
            "by_role": self.by_role(),
            "calls": [asdict(call) for call in self.calls],
        }


_active: ContextVar[tuple[UsageLedger, ...]] = ContextVar("acecode_usage_ledgers", default=())


@contextmanager
def track() -> Iterator[UsageLedger]:
    """Collect every call made inside the block into a fresh ledger."""
    ledger = UsageLedger()
    token = _active.set((*_active.get(), ledger))
    try:
        yield ledger
    finally:
        _active.reset(token)


def record(call: CallRecord) -> None:
    """Add ``call`` to every open ledger; outside any :func:`track` block it is dropped."""
    for ledger in _active.get():
        ledger.calls.append(call)
