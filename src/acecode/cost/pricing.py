"""What a model's tokens cost: the price table shipped with acecode, and the cost of calls.

A call's cost comes from the provider when it reports one (``claude -p``'s
``total_cost_usd``, OpenRouter's ``usage.cost``); otherwise it is computed
from ``prices.json`` (this package's data file, which names its sources and
the date they were checked) and marked estimated. A model the table does not
know costs *unknown* (``None``), never 0: a local Ollama model may be free, a
new hosted one is not, and acecode cannot tell them apart.

Model names are matched the way providers spell them: case-insensitively,
after any routing prefix (``anthropic/``, ``us.anthropic.``), with dots in
version numbers read as dashes, and either exactly or as a dated snapshot of
a table name (``claude-sonnet-4-5-20250929``, ``claude-opus-4-1@20250805``).
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Iterable
from dataclasses import dataclass
from importlib import resources
from typing import Any

PER_MILLION = 1_000_000

# What may follow a table name: nothing, or a dated snapshot with provider decorations
# (-20250929, @20250805, -2024-07-18, -20250219-v1:0, -latest). Anything else
# ("gpt-5-codex", "claude-sonnet-4-7") is another model: unknown, never a guess.
_SNAPSHOT = re.compile(r"(?:[-@](?:\d{4}[-\d]*|latest)(?:-v\d+(?::\d+)?)?)?")

REPORTED = "reported"
ESTIMATED = "estimated"
UNKNOWN = "unknown"


# A 1-hour cache write costs twice the input price (Anthropic's prompt caching prices;
# a 5-minute one 1.25 times, the table's ``cache_write``), unless the table says otherwise.
CACHE_WRITE_1H_FACTOR = 2.0


@dataclass(frozen=True)
class Price:
    """USD per million tokens; cache prices default to the input price when not listed,
    the 1-hour write price to twice the input price."""

    model: str
    input: float
    output: float
    cache_read: float | None = None
    cache_write: float | None = None
    cache_write_1h: float | None = None
    # The shortest prefix the model caches (None: not known, so any prefix may be).
    cache_min_tokens: int | None = None

    @property
    def write_1h(self) -> float:
        """USD per million tokens written to the cache for an hour."""
        if self.cache_write_1h is not None:
            return self.cache_write_1h
        return CACHE_WRITE_1H_FACTOR * self.input if self.cache_write is not None else self.input

    def cost(
        self,
        input_tokens: int,
        output_tokens: int,
        cache_read_tokens: int = 0,
        cache_write_tokens: int = 0,
        cache_write_1h_tokens: int = 0,
    ) -> float:
        """USD for one call; ``input_tokens`` includes the cached parts, and
        ``cache_write_tokens`` the 1-hour writes."""
        uncached = max(0, input_tokens - cache_read_tokens - cache_write_tokens)
        read = self.input if self.cache_read is None else self.cache_read
        write = self.input if self.cache_write is None else self.cache_write
        hour = min(cache_write_1h_tokens, cache_write_tokens)
        return (
            uncached * self.input
            + cache_read_tokens * read
            + (cache_write_tokens - hour) * write
            + hour * self.write_1h
            + output_tokens * self.output
        ) / PER_MILLION


@functools.cache
def price_table() -> dict[str, Any]:
    """The shipped ``prices.json`` (read once per process)."""
    text = resources.files("acecode.cost").joinpath("prices.json").read_text(encoding="utf-8")
    return json.loads(text)


def _canonical(model: str) -> str:
    """``Anthropic/Claude-Sonnet-4.5`` -> ``claude-sonnet-4-5``; ``us.anthropic.claude-...``
    -> ``claude-...``."""
    name = model.strip().lower().rsplit("/", 1)[-1]
    start = name.find("claude-")
    if start > 0:
        name = name[start:]
    return re.sub(r"(?<=\d)\.(?=\d)", "-", name)


def price_for(model: str | None) -> Price | None:
    """The price of ``model``, or None when the table does not know it."""
    if not model:
        return None
    table = price_table()
    name = _canonical(model)
    name = table["aliases"].get(name, name)
    best = ""
    for known in table["models"]:
        if name.startswith(known) and _SNAPSHOT.fullmatch(name[len(known) :]):
            best = max(best, known, key=len)
    if not best:
        return None
    row = table["models"][best]
    return Price(
        model=best,
        input=float(row["input"]),
        output=float(row["output"]),
        cache_read=row.get("cache_read"),
        cache_write=row.get("cache_write"),
        cache_write_1h=row.get("cache_write_1h"),
        cache_min_tokens=row.get("cache_min_tokens"),
    )


@dataclass(frozen=True)
class CallCost:
    """One call's cost and where it came from (``reported``, ``estimated`` or ``unknown``)."""

    usd: float | None
    basis: str


def call_cost(call: Any) -> CallCost:
    """The cost of one :class:`acecode.llm.usage.CallRecord`."""
    if call.cost_usd is not None:
        return CallCost(float(call.cost_usd), REPORTED)
    price = price_for(call.model)
    if price is None:
        return CallCost(None, UNKNOWN)
    usd = price.cost(
        call.input_tokens,
        call.output_tokens,
        call.cache_read_tokens,
        call.cache_write_tokens,
        call.cache_write_1h_tokens,
    )
    return CallCost(usd, ESTIMATED)


def combine(costs: Iterable[CallCost]) -> CallCost:
    """Several calls' cost: the sum of the known parts (None when none is known), and
    the weakest basis among them (``unknown`` over ``estimated`` over ``reported``)."""
    costs = list(costs)
    known = [cost.usd for cost in costs if cost.usd is not None]
    bases = {cost.basis for cost in costs}
    basis = next((b for b in (UNKNOWN, ESTIMATED) if b in bases), REPORTED)
    return CallCost(sum(known) if known else None, basis)


def format_usd(usd: float | None, basis: str | None = REPORTED) -> str:
    """``$0.0123`` as reported, ``~$0.0123`` estimated from the price table, ``$?`` unknown
    (``$0.0123+?`` when part of it is unknown)."""
    if usd is None:
        return "$?"
    amount = f"${usd:.2f}" if usd >= 1 else f"${usd:.4f}"
    if basis == UNKNOWN:
        return f"{amount}+?"
    return f"~{amount}" if basis == ESTIMATED else amount
