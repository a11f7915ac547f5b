"""The price table, the cost of a call, and which reservations count against a budget."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from datetime import timedelta

import pytest

from acecode.cost.budget import Limits, refusal, view
from acecode.cost.estimate import CycleEstimate, RoleEstimate
from acecode.cost.ledger import Ledger, now, stamp
from acecode.cost.pricing import call_cost, combine, format_usd, price_for, price_table
from acecode.llm.usage import CallRecord
from support.hang_guard import HANG_GUARD


@pytest.mark.parametrize(
    ("model", "table_name"),
    [
        ("claude-sonnet-4-6", "claude-sonnet-4-6"),
        ("sonnet", "claude-sonnet-5"),
        ("claude-sonnet-4-5-20250929", "claude-sonnet-4-5"),
        ("claude-sonnet-4-20250514", "claude-sonnet-4"),
        ("claude-opus-4-1@20250805", "claude-opus-4-1"),
        ("anthropic/claude-opus-4.5", "claude-opus-4-5"),
        ("us.anthropic.claude-3-7-sonnet-20250219-v1:0", "claude-3-7-sonnet"),
        ("gpt-4o-mini-2024-07-18", "gpt-4o-mini"),
        ("GPT-4o", "gpt-4o"),
    ],
)
def test_models_are_found_as_providers_spell_them(model: str, table_name: str) -> None:
    price = price_for(model)
    assert price is not None and price.model == table_name


@pytest.mark.parametrize(
    "model", ["qwen2.5-coder:7b", "gpt-5-codex", "claude-sonnet-4-7", "", None, "scripted-model"]
)
def test_other_models_are_unknown_never_a_guess(model: str | None) -> None:
    assert price_for(model) is None


def test_the_table_states_its_sources_and_date() -> None:
    table = price_table()
    assert table["checked"]
    assert set(table["sources"]) == {"anthropic", "openai", "cache_min_tokens"}
    for row in table["models"].values():
        assert row["input"] > 0 and row["output"] > 0


def test_the_table_matches_claude_codes_own_cost_of_a_real_call() -> None:
    """tests/data/claude_cli/result-success.json: a real claude -p result with its cost."""
    from pathlib import Path

    data = Path(__file__).parents[1] / "data" / "claude_cli" / "result-success.json"
    result = json.loads(data.read_text())
    ((model, used),) = result["modelUsage"].items()
    price = price_for(model)
    assert price is not None
    assert price.cost(used["inputTokens"], used["outputTokens"]) == pytest.approx(used["costUSD"])


def _call(**fields) -> CallRecord:
    base = dict(
        role="reflector",
        provider="anthropic",
        model="claude-haiku-4-5",
        input_tokens=1_000_000,
        output_tokens=100_000,
        estimated=False,
        attempts=1,
        ok=True,
    )
    return CallRecord(**{**base, **fields})


def test_call_cost_reported_estimated_unknown() -> None:
    assert call_cost(_call(cost_usd=0.5)).basis == "reported"
    estimated = call_cost(_call())
    assert (estimated.usd, estimated.basis) == (pytest.approx(1.0 + 0.5), "estimated")
    unknown = call_cost(_call(model="my-local-model"))
    assert (unknown.usd, unknown.basis) == (None, "unknown")
    mixed = combine([call_cost(_call()), call_cost(_call(model="my-local-model"))])
    assert (mixed.usd, mixed.basis) == (pytest.approx(1.5), "unknown")
    assert format_usd(mixed.usd, mixed.basis) == "$1.50+?"
    assert format_usd(0.0123, "estimated") == "~$0.0123"
    assert format_usd(None, "unknown") == "$?"


def _estimate(usd: float | None, tokens: int = 1000) -> CycleEstimate:
    return CycleEstimate(model="m", roles={"reflector": RoleEstimate(tokens, 0)}, usd=usd)


def _reserve(ledger: Ledger, cycle_id: str, usd: float, **extra) -> None:
    record = {
        "kind": "reserve",
        "cycle_id": cycle_id,
        "time": stamp(),
        "estimate_usd": usd,
        "estimate_tokens": 0,
        "pid": os.getpid(),
        "host": socket.gethostname(),
    }
    ledger.append({**record, **extra})


def test_open_reservations_count_until_settled_or_their_process_is_gone() -> None:
    ledger = Ledger()
    limits = Limits(daily_usd=1.0)
    _reserve(ledger, "live", 0.6)
    dead = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"],
        capture_output=True,
        text=True,
        check=True,
        timeout=HANG_GUARD,
    )
    _reserve(ledger, "dead", 0.6, pid=int(dead.stdout))
    old = stamp(now() - timedelta(hours=7))
    _reserve(ledger, "stale", 0.6, time=old)
    _reserve(ledger, "elsewhere", 0.3, host="another-host")
    current = view(ledger.records(), limits)
    assert current.today.reserved_usd == pytest.approx(0.9)  # live + another host's
    assert "would be exceeded: $0.90 spent today + up to $0.20" in refusal(current, _estimate(0.2))
    assert refusal(current, _estimate(0.1)) == ""
    ledger.append(
        {
            "kind": "cycle",
            "cycle_id": "live",
            "time": stamp(),
            "cost_usd": 0.05,
            "cost_basis": "estimated",
            "input_tokens": 10,
            "output_tokens": 5,
        }
    )
    settled = view(ledger.records(), limits)
    assert (settled.today.usd, settled.today.reserved_usd) == (pytest.approx(0.05), 0.3)


def test_an_unknown_cost_is_admitted_until_known_spend_reaches_the_limit() -> None:
    ledger = Ledger()
    limits = Limits(daily_usd=1.0)
    assert refusal(view([], limits), _estimate(None)) == ""
    ledger.append(
        {
            "kind": "cycle",
            "cycle_id": "a",
            "time": stamp(),
            "cost_usd": 1.0,
            "cost_basis": "estimated",
            "input_tokens": 0,
            "output_tokens": 0,
        }
    )
    reason = refusal(view(ledger.records(), limits), _estimate(None))
    assert reason.startswith("daily budget reached (daily_budget_usd = $1.00)")
    assert "cost is unknown" in reason


def test_zero_means_no_limit_and_a_negative_limit_keeps_the_default(monkeypatch) -> None:
    from acecode.project.config import load_settings

    assert refusal(view([], Limits()), _estimate(1e6, tokens=10**9)) == ""
    monkeypatch.setenv("ACECODE_DAILY_BUDGET_USD", "-5")
    assert Limits.from_settings(load_settings()).daily_usd == 1.0


def test_an_unreadable_ledger_line_is_named_once_and_the_rest_is_used(
    tmp_path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "cost-ledger.jsonl"
    path.write_text('{"kind": "cycle", "cost_usd": 0.5}\n{broken\n', encoding="utf-8")

    records = Ledger(path).records()

    assert records == [{"kind": "cycle", "cost_usd": 0.5}]
    err = capsys.readouterr().err.strip().splitlines()
    assert err == [f"acecode: {path}: skipped 1 unreadable line; the rest is used"]
