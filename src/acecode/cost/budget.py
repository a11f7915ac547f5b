"""Budgets: the user's daily and monthly limits, and the check that admits a cycle.

:func:`admit` holds the ledger's lock while it adds up what was spent today
and this month (settled cycles plus the reservations of cycles still
running, from every project), checks that this cycle's worst case fits under
every limit, and writes its reservation, all in one hold: two cycles started
together from two projects cannot both take the last of a budget.
:func:`settle` later replaces the reservation by what the cycle really spent.

A cycle whose model has no price (a local model, a new one) has an unknown
USD estimate: the USD limits then admit it while today's (or this month's)
known spend is still under them, and the token limits apply in full.
"""

from __future__ import annotations

import os
import socket
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from acecode.cost.estimate import CycleEstimate
from acecode.cost.holds import Spend, gone_cycles, killed_record, spend_since
from acecode.cost.ledger import (
    REFUSE,
    RELEASE,
    RESERVE,
    Ledger,
    now,
    record_time,
    stamp,
)
from acecode.cost.liveness import remove_dead
from acecode.project.config import Settings
from acecode.project.diagnostics import warn


@dataclass(frozen=True)
class Limits:
    """The four limits; 0 means no limit for that one."""

    daily_usd: float = 0.0
    monthly_usd: float = 0.0
    daily_tokens: int = 0
    monthly_tokens: int = 0

    @classmethod
    def from_settings(cls, settings: Settings) -> Limits:
        """The configured limits; a negative one is a mistake, so its default is kept."""
        values: dict[str, Any] = {}
        for name, key in (
            ("daily_usd", "daily_budget_usd"),
            ("monthly_usd", "monthly_budget_usd"),
            ("daily_tokens", "daily_budget_tokens"),
            ("monthly_tokens", "monthly_budget_tokens"),
        ):
            value = getattr(settings, key)
            if value < 0:
                default = getattr(Settings(), key)
                warn(f"ignoring {key} = {value}: a budget is 0 (no limit) or more; using {default}")
                value = default
            values[name] = value
        return cls(**values)


@dataclass(frozen=True)
class BudgetView:
    """Spend today and this month against the limits (``acecode cost``, ``doctor``)."""

    limits: Limits
    today: Spend
    month: Spend


def view(records: list[dict[str, Any]], limits: Limits, at: datetime | None = None) -> BudgetView:
    """Today's and this month's spend from the ledger's records."""
    at = at or now()
    return BudgetView(
        limits=limits,
        today=spend_since(records, at.date(), at),
        month=spend_since(records, at.date().replace(day=1), at),
    )


def _usd(value: float) -> str:
    return f"${value:.2f}" if value >= 0.01 or value == 0 else f"${value:.4f}"


DAY, MONTH = "day", "month"


def _refusal(
    current: BudgetView, estimate: CycleEstimate, extra_tokens: int = 0
) -> tuple[str, str]:
    """The period of the budget this cycle would go over (``day`` or ``month``) and why,
    naming it; ``("", "")`` when it fits under all. ``extra_tokens`` counts on top of the
    estimate's roles (a reservation's extension)."""
    limits = current.limits
    checks = (
        ("daily", "daily_budget_usd", limits.daily_usd, current.today, "today", DAY),
        ("monthly", "monthly_budget_usd", limits.monthly_usd, current.month, "this month", MONTH),
    )
    for label, key, limit, spend, when, period in checks:
        if limit <= 0:
            continue
        if estimate.usd is None:
            if spend.total_usd >= limit:
                return period, (
                    f"{label} budget reached ({key} = {_usd(limit)}): {_usd(spend.total_usd)} "
                    f"spent {when}; this model's cost is unknown"
                )
        elif estimate.usd > limit:
            return period, (
                f"this cycle may cost up to {_usd(estimate.usd)}, more than the whole {label} "
                f"budget ({key} = {_usd(limit)}): raise it or choose a cheaper model"
            )
        elif spend.total_usd + estimate.usd > limit:
            return period, (
                f"{label} budget ({key} = {_usd(limit)}) would be exceeded: "
                f"{_usd(spend.total_usd)} spent {when} + up to {_usd(estimate.usd)} for this cycle"
            )
    token_checks = (
        ("daily", "daily_budget_tokens", limits.daily_tokens, current.today, "today", DAY),
        (
            "monthly",
            "monthly_budget_tokens",
            limits.monthly_tokens,
            current.month,
            "this month",
            MONTH,
        ),
    )
    tokens = estimate.tokens + extra_tokens
    for label, key, limit, spend, when, period in token_checks:
        if limit > 0 and spend.total_tokens + tokens > limit:
            return period, (
                f"{label} token budget ({key} = {limit:,}) would be exceeded: "
                f"{spend.total_tokens:,} tokens used {when} + up to {tokens:,} "
                "for this cycle"
            )
    return "", ""


def refusal(current: BudgetView, estimate: CycleEstimate, extra_tokens: int = 0) -> str:
    """Why this cycle would go over a budget, naming it; "" when it fits under all."""
    return _refusal(current, estimate, extra_tokens)[1]


def _tokens(value: float) -> str:
    return f"{value:,} tokens"


def _spent_limit(current: BudgetView) -> str:
    """The first limit that what was really spent (reservations aside) has reached."""
    limits, today, month = current.limits, current.today, current.month
    for key, limit, used, shown, period in (
        ("daily_budget_usd", limits.daily_usd, today.usd, _usd, DAY),
        ("monthly_budget_usd", limits.monthly_usd, month.usd, _usd, MONTH),
        ("daily_budget_tokens", limits.daily_tokens, today.tokens, _tokens, DAY),
        ("monthly_budget_tokens", limits.monthly_tokens, month.tokens, _tokens, MONTH),
    ):
        if limit > 0 and used >= limit:
            when = "today" if period == DAY else "this month"
            spent = f"{shown(used)} spent {when} reached {key} = {shown(limit)}"
            return f"{_paused_until(period)}: {spent}"
    return ""


def _paused_until(period: str) -> str:
    return f"learning is paused until {'next month' if period == MONTH else 'tomorrow'}"


def _in_period(record: dict[str, Any], at: datetime) -> bool:
    moment = record_time(record)
    if moment is None:
        return False
    if record.get("period") == MONTH:
        return (moment.year, moment.month) == (at.year, at.month)
    return moment.date() == at.date()


def last_refusal(records: list[dict[str, Any]], at: datetime | None = None) -> str:
    """The last cycle's refusal, in one line, while its day (or month) is not over and no
    cycle has been admitted since; "" otherwise."""
    at = at or now()
    for record in reversed(records):
        kind = record.get("kind")
        if kind == RESERVE:
            return ""
        if kind == REFUSE and _in_period(record, at):
            period = MONTH if record.get("period") == MONTH else DAY
            return f"{_paused_until(period)}: the last cycle was refused: {record.get('reason')}"
    return ""


def paused(records: list[dict[str, Any]], limits: Limits, at: datetime | None = None) -> str:
    """Why the budgets stop learning now, in one line; "" when they do not: a limit is
    reached by what was spent, or the last cycle to ask was refused (its worst case did
    not fit, see :func:`last_refusal`)."""
    at = at or now()
    return _spent_limit(view(records, limits, at)) or last_refusal(records, at)


def settle_gone(ledger: Ledger, records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Write down the spend of this machine's cycles whose process is gone (killed, out
    of memory, crashed), releasing the rest of their reservations; the records with
    those settlements added. Call it with the lock held."""
    gone = gone_cycles(records)
    closing = [killed_record(state) for state in gone]
    for state, record in zip(gone, closing, strict=True):
        record["settled"] = stamp()
        ledger.append(record)
        lock = (state.admitted or {}).get("lock")
        if isinstance(lock, str) and lock:
            remove_dead(Path(lock))
    return records + closing


def admit(
    ledger: Ledger,
    *,
    cycle_id: str,
    at: str,
    project: str,
    source: str,
    provider: str | None,
    estimate: CycleEstimate,
    limits: Limits,
    lock_timeout: float,
    enforce: bool = True,
    lock: str | None = None,
) -> str:
    """Settle the cycles found gone, then check and reserve under the lock; returns the
    refusal, or "" when the cycle was admitted and reserved at ``at`` (its date in the
    ledger). ``lock`` is the cycle's lock file (:mod:`acecode.cost.liveness`), which
    tells others while it runs. ``enforce=False`` (``--ignore-budget``) reserves without
    checking, so cycles running meanwhile still see this one's spend. Raises
    :class:`acecode.cost.ledger.LedgerError` when the ledger cannot be used."""
    with ledger.locked(lock_timeout):
        records = settle_gone(ledger, ledger.records())
        if enforce:
            period, why = _refusal(view(records, limits), estimate)
            if why:
                ledger.append(
                    {
                        "kind": REFUSE,
                        "cycle_id": cycle_id,
                        "time": at,
                        "project": project,
                        "source": source,
                        "period": period,
                        "reason": why,
                    }
                )
                return why
        ledger.append(
            {
                "kind": RESERVE,
                "cycle_id": cycle_id,
                "time": at,
                "project": project,
                "source": source,
                "provider": provider,
                "model": estimate.model,
                "estimate_usd": estimate.usd,
                "estimate_tokens": estimate.tokens,
                "pid": os.getpid(),
                "host": socket.gethostname(),
                "lock": lock,
            }
        )
    return ""


def extend(
    ledger: Ledger,
    *,
    cycle_id: str,
    at: str,
    role: str,
    usd: float | None,
    tokens: int,
    limits: Limits,
    lock_timeout: float,
    enforce: bool = True,
) -> str:
    """Reserve ``usd`` / ``tokens`` more for an admitted cycle, for a call of ``role``
    its admission did not plan (the judge, a retry with more room): the same check and
    lock as :func:`admit`, one more ``reserve`` record with the cycle's ID and admission
    date. Returns the refusal, or "" when reserved."""
    more = CycleEstimate(model=None, usd=usd)
    with ledger.locked(lock_timeout):
        if enforce:
            why = refusal(view(ledger.records(), limits), more, extra_tokens=tokens)
            if why:
                return f"{role}: {why}"
        ledger.append(
            {
                "kind": RESERVE,
                "cycle_id": cycle_id,
                "time": at,
                "extends": role,
                "estimate_usd": usd,
                "estimate_tokens": tokens,
                "pid": os.getpid(),
                "host": socket.gethostname(),
            }
        )
    return ""


def settle(
    ledger: Ledger, cycle_id: str, admitted_at: str, record: dict[str, Any] | None, timeout: float
) -> None:
    """Close ``cycle_id``'s reservation with its ``cycle`` record, or release it when the
    cycle made no call (``record`` None)."""
    closing = record or {"kind": RELEASE, "cycle_id": cycle_id, "time": admitted_at}
    closing["settled"] = stamp()
    with ledger.locked(timeout):
        ledger.append(closing)
