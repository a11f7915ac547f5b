"""When the budgets stop learning, in one line: a limit reached by what was spent, or the
last cycle refused (a ``refuse`` record in the ledger) in a day or month not yet over."""

from __future__ import annotations

from datetime import datetime, timedelta

import pytest

from acecode.cost.budget import Limits, admit, last_refusal, paused
from acecode.cost.estimate import CycleEstimate, RoleEstimate
from acecode.cost.ledger import Ledger, stamp

NOON = datetime(2026, 11, 26, 12, 0).astimezone()


def _cycle(usd: float, tokens: int = 0, at: datetime = NOON) -> dict:
    return {
        "kind": "cycle",
        "cycle_id": f"c{usd}",
        "time": stamp(at),
        "cost_usd": usd,
        "cost_basis": "estimated",
        "input_tokens": tokens,
        "output_tokens": 0,
    }


def _refuse(period: str, at: datetime = NOON) -> dict:
    return {"kind": "refuse", "time": stamp(at), "period": period, "reason": f"{period} budget"}


def test_nothing_spent_nothing_refused_is_not_paused() -> None:
    assert paused([], Limits(daily_usd=1.0), NOON) == ""


@pytest.mark.parametrize(
    ("limits", "records", "expected"),
    [
        (
            Limits(daily_usd=1.0),
            [_cycle(1.02)],
            "learning is paused until tomorrow: $1.02 spent today reached daily_budget_usd = $1.00",
        ),
        (
            Limits(monthly_usd=5.0),
            [_cycle(3.0, at=NOON - timedelta(days=20)), _cycle(2.5)],
            "learning is paused until next month: $5.50 spent this month reached "
            "monthly_budget_usd = $5.00",
        ),
        (
            Limits(daily_tokens=1000),
            [_cycle(0.0, tokens=1500)],
            "learning is paused until tomorrow: 1,500 tokens spent today reached "
            "daily_budget_tokens = 1,000 tokens",
        ),
    ],
)
def test_a_reached_limit_is_named(limits: Limits, records: list, expected: str) -> None:
    assert paused(records, limits, NOON) == expected


def test_yesterdays_spend_does_not_pause_today() -> None:
    assert paused([_cycle(5.0, at=NOON - timedelta(days=1))], Limits(daily_usd=1.0), NOON) == ""


def test_a_refusal_pauses_until_its_period_ends_or_a_cycle_is_admitted() -> None:
    refused = [_cycle(0.8), _refuse("day")]
    assert paused(refused, Limits(daily_usd=1.0), NOON) == (
        "learning is paused until tomorrow: the last cycle was refused: day budget"
    )
    tomorrow = NOON + timedelta(days=1)
    assert last_refusal(refused, tomorrow) == ""
    admitted = [*refused, {"kind": "reserve", "time": stamp(NOON), "cycle_id": "later"}]
    assert last_refusal(admitted, NOON) == ""
    monthly = [_refuse("month", NOON - timedelta(days=3))]
    assert last_refusal(monthly, NOON).startswith("learning is paused until next month")
    assert last_refusal(monthly, NOON + timedelta(days=40)) == ""


def test_admit_keeps_a_refusal_in_the_ledger_with_its_period() -> None:
    ledger = Ledger()
    ledger.append(_cycle(0.95, at=datetime.now().astimezone()))
    estimate = CycleEstimate(model="m", roles={"reflector": RoleEstimate(1000, 0)}, usd=0.2)
    why = admit(
        ledger,
        cycle_id="c2",
        at=stamp(),
        project="/p",
        source="hook",
        provider="anthropic",
        estimate=estimate,
        limits=Limits(daily_usd=1.0),
        lock_timeout=10,
    )
    assert why.startswith("daily budget (daily_budget_usd = $1.00) would be exceeded")
    record = ledger.records()[-1]
    assert {k: record[k] for k in ("kind", "cycle_id", "period", "reason")} == {
        "kind": "refuse",
        "cycle_id": "c2",
        "period": "day",
        "reason": why,
    }
    assert paused(ledger.records(), Limits(daily_usd=1.0)).endswith(why)
