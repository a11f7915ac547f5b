"""Token accounting: reported tokens, estimates, scoping and per-role totals."""

from __future__ import annotations

import asyncio

import pytest

from acecode.llm import complete, usage
from support.wire import Reply, ScriptedLLMServer


def test_reported_tokens_are_recorded_per_role(
    anthropic_env: ScriptedLLMServer, recorded_delays: list
) -> None:
    anthropic_env.play(Reply(text="a", usage=(100, 20)), Reply(text="b", usage=(50, 5)))

    async def cycle() -> None:
        await complete("s", "p1", role="reflector")
        await complete("s", "p2", role="curator")

    with usage.track() as ledger:
        asyncio.run(cycle())
    assert (ledger.input_tokens, ledger.output_tokens, ledger.total_tokens) == (150, 25, 175)
    assert not ledger.estimated
    assert ledger.by_role() == {
        "reflector": {"calls": 1, "attempts": 1, "input_tokens": 100, "output_tokens": 20},
        "curator": {"calls": 1, "attempts": 1, "input_tokens": 50, "output_tokens": 5},
    }
    summary = ledger.to_dict()
    assert summary["total_tokens"] == 175
    assert summary["cost_usd"] is None
    assert [call["role"] for call in summary["calls"]] == ["reflector", "curator"]


def test_missing_usage_is_estimated_at_four_chars_per_token(
    openai_env: ScriptedLLMServer, recorded_delays: list
) -> None:
    openai_env.play(Reply(text="x" * 40, usage=None))
    with usage.track() as ledger:
        asyncio.run(complete("s" * 8, "p" * 392, role="curator"))
    [call] = ledger.calls
    assert (call.input_tokens, call.output_tokens, call.estimated) == (100, 10, True)
    assert ledger.estimated


def test_retries_are_counted_as_attempts_of_one_call(
    anthropic_env: ScriptedLLMServer, recorded_delays: list
) -> None:
    anthropic_env.play(Reply(status=500), Reply(status=503), Reply(text="ok", usage=(7, 3)))
    with usage.track() as ledger:
        asyncio.run(complete("s", "p", role="reflector"))
    assert ledger.by_role()["reflector"] == {
        "calls": 1,
        "attempts": 3,
        "input_tokens": 7,
        "output_tokens": 3,
    }


def test_ledgers_nest_and_calls_outside_are_dropped(
    anthropic_env: ScriptedLLMServer, recorded_delays: list
) -> None:
    anthropic_env.play(Reply(text="x", usage=(1, 1)))
    asyncio.run(complete("s", "untracked", role="r"))
    with usage.track() as outer:
        asyncio.run(complete("s", "p", role="r"))
        with usage.track() as inner:
            asyncio.run(complete("s", "p", role="r"))
    assert len(outer.calls) == 2
    assert len(inner.calls) == 1


def test_estimate_tokens() -> None:
    assert usage.estimate_tokens("") == 0
    assert usage.estimate_tokens("abc") == 1
    assert usage.estimate_tokens("abcdefghi") == 3


def test_anthropic_cache_counts_are_part_of_input_and_priced_apart(
    anthropic_env: ScriptedLLMServer, recorded_delays: list, monkeypatch
) -> None:
    """The Messages API reports cache reads and writes apart from input_tokens."""
    from acecode.cost.pricing import call_cost

    monkeypatch.setenv("AGENTIC_CONTEXT_MODEL", "claude-sonnet-4-6")
    anthropic_env.play(
        Reply(
            text="a",
            usage=(100, 20),
            usage_extra={"cache_read_input_tokens": 1000, "cache_creation_input_tokens": 200},
        )
    )
    with usage.track() as ledger:
        asyncio.run(complete("s", "p", role="reflector"))
    (call,) = ledger.calls
    assert (call.input_tokens, call.cache_read_tokens, call.cache_write_tokens) == (1300, 1000, 200)
    cost = call_cost(call)
    # 100 uncached at $3, 1000 read at $0.30, 200 written at $3.75, 20 out at $15 (per M).
    assert cost.usd == pytest.approx((100 * 3 + 1000 * 0.3 + 200 * 3.75 + 20 * 15) / 1e6)
    assert cost.basis == "estimated"


def test_openai_cached_tokens_and_a_reported_cost(
    openai_env: ScriptedLLMServer, recorded_delays: list
) -> None:
    """OpenAI counts cached tokens inside prompt_tokens; OpenRouter adds usage.cost (USD)."""
    from acecode.cost.pricing import call_cost

    openai_env.play(
        Reply(
            text="a",
            usage=(500, 40),
            usage_extra={"prompt_tokens_details": {"cached_tokens": 300}, "cost": 0.00042},
        )
    )
    with usage.track() as ledger:
        asyncio.run(complete("s", "p", role="curator"))
    (call,) = ledger.calls
    assert (call.input_tokens, call.cache_read_tokens, call.cost_usd) == (500, 300, 0.00042)
    assert call_cost(call).basis == "reported"
