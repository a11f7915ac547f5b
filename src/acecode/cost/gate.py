"""The learning cycle's side of the budget: admit before the first LLM call, settle after
the last.

``run_cycle`` runs its body inside :func:`metered`, which tracks every LLM
call of the cycle; the body calls :func:`admit_cycle` once the provider is
chosen and before the first call. On the way out, :func:`metered` writes
what the cycle spent to the user's ledger (:mod:`acecode.cost.ledger`),
settling the reservation, and puts it in ``report.cost``. A refused cycle
ends ``skipped`` with the budget named in its reason; it made no call and
stays due.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from acecode import outcomes, paths
from acecode.config import Settings
from acecode.cost import budget
from acecode.cost.estimate import CycleEstimate, estimate_cycle
from acecode.cost.ledger import CYCLE, Ledger, LedgerError, stamp
from acecode.cost.pricing import CallCost, call_cost, combine
from acecode.diagnostics import warn
from acecode.llm import usage

if TYPE_CHECKING:
    from acecode.pipeline.cycle import CycleReport


def over_budget_hint(report: CycleReport) -> str:
    """What becomes of a session skipped for the budget, and what the user can do; only
    what will happen: a transcript given by hand (maybe from outside the project) is
    learned by nothing else, a hook's session stays due for ``acecode bootstrap``."""
    if report.source == "library":
        return "not learned; call acecode.learn again when the budget allows"
    command = f"`acecode learn {report.transcript} --ignore-budget`"
    if report.source in outcomes.BY_HAND_SOURCES:
        return f"not learned; run it again when the budget allows, or now with {command}"
    agent = "" if report.agent in ("", "claude-code") else f" --agent {report.agent}"
    return (
        f"the session stays due: `acecode bootstrap{agent}` learns it when the budget "
        f"allows, {command} now"
    )


@dataclass
class _Meter:
    """One cycle's budget state between admission and settlement."""

    report: CycleReport
    settings: Settings
    enforce: bool
    ledger: Ledger = field(default_factory=Ledger)
    admitted_at: str | None = None
    estimate: CycleEstimate | None = None


_meter: ContextVar[_Meter | None] = ContextVar("acecode_cost_meter", default=None)


@contextmanager
def metered(report: CycleReport, settings: Settings, *, enforce: bool = True) -> Iterator[None]:
    """Track the block's LLM calls and settle them in the ledger when it ends, however it
    ends. ``enforce=False`` (``acecode learn --ignore-budget``) admits without checking."""
    meter = _Meter(report=report, settings=settings, enforce=enforce)
    token = _meter.set(meter)
    try:
        with usage.track() as calls:
            yield
    finally:
        _meter.reset(token)
        _settle(meter, calls.calls)


def admit_cycle(
    report: CycleReport,
    messages: Any,
    playbook: dict[str, Any],
    conflicts: Sequence[Any],
    agent: Any = None,
) -> bool:
    """Estimate the cycle's worst case, check it against the budgets and reserve it.

    False when refused: the report is then ``skipped`` with the budget named. A
    ledger that cannot be used refuses too when a limit is set (the budget could
    not be kept); with no limit set the cycle goes on with a warning.
    """
    meter = _meter.get()
    if meter is None:  # a caller outside run_cycle's metering: nothing to keep
        return True
    settings = meter.settings
    estimate = estimate_cycle(
        messages,
        playbook,
        report.cited_ids,
        conflicts,
        settings,
        provider=report.provider,
        model=report.model,
        agent=agent,
    )
    meter.estimate = estimate
    report.cost = {"estimate": estimate.as_dict()}
    limits = budget.Limits.from_settings(settings)
    at = stamp()
    try:
        refused = budget.admit(
            meter.ledger,
            cycle_id=report.cycle_id,
            at=at,
            project=str(paths.project_dir().resolve()),
            source=report.source,
            provider=report.provider,
            estimate=estimate,
            limits=limits,
            lock_timeout=settings.lock_timeout,
            enforce=meter.enforce,
        )
    except LedgerError as exc:
        if any((limits.daily_usd, limits.monthly_usd, limits.daily_tokens, limits.monthly_tokens)):
            report.finish(outcomes.SKIPPED, f"cannot check the budget: {exc}")
            report.cost["over_budget"] = True
            return False
        warn(f"{exc}; this cycle's cost is not recorded")
        return True
    if refused:
        report.finish(outcomes.SKIPPED, f"{refused}; {over_budget_hint(report)}")
        report.cost["over_budget"] = True
        return False
    meter.admitted_at = at
    return True


def _role_totals(calls: Sequence[usage.CallRecord]) -> dict[str, dict[str, Any]]:
    """Per role: calls, tokens (cached parts apart) and cost with its basis."""
    roles: dict[str, dict[str, Any]] = {}
    costs: dict[str, list[CallCost]] = {}
    for call in calls:
        row = roles.setdefault(
            call.role,
            {
                "calls": 0,
                "input_tokens": 0,
                "output_tokens": 0,
                "cache_read_tokens": 0,
                "cache_write_tokens": 0,
            },
        )
        row["calls"] += 1
        row["input_tokens"] += call.input_tokens
        row["output_tokens"] += call.output_tokens
        row["cache_read_tokens"] += call.cache_read_tokens
        row["cache_write_tokens"] += call.cache_write_tokens
        costs.setdefault(call.role, []).append(call_cost(call))
    for role, row in roles.items():
        total = combine(costs[role])
        row["cost_usd"], row["cost_basis"] = total.usd, total.basis
    return roles


def spend_record(meter: _Meter, calls: Sequence[usage.CallRecord]) -> dict[str, Any]:
    """The ledger's ``cycle`` record of what the cycle spent."""
    report = meter.report
    total = combine(call_cost(call) for call in calls)
    estimate = meter.estimate
    return {
        "kind": CYCLE,
        "cycle_id": report.cycle_id,
        "time": meter.admitted_at or stamp(),
        "project": str(paths.project_dir().resolve()),
        "source": report.source,
        "status": report.status,
        "dry_run": report.dry_run,
        "provider": report.provider,
        "model": report.model,
        "roles": _role_totals(calls),
        "input_tokens": sum(call.input_tokens for call in calls),
        "output_tokens": sum(call.output_tokens for call in calls),
        "cost_usd": total.usd,
        "cost_basis": total.basis,
        "estimate_usd": estimate.usd if estimate else None,
        "estimate_tokens": estimate.tokens if estimate else None,
    }


def _settle(meter: _Meter, calls: Sequence[usage.CallRecord]) -> None:
    """Write the cycle's spend (or release its reservation) and fill ``report.cost``."""
    report = meter.report
    record = spend_record(meter, calls) if calls else None
    if record is not None:
        report.cost.update(
            usd=record["cost_usd"],
            basis=record["cost_basis"],
            by_role=record["roles"],
        )
    if meter.admitted_at is None and record is None:
        return
    try:
        budget.settle(
            meter.ledger,
            report.cycle_id,
            meter.admitted_at or stamp(),
            record,
            meter.settings.lock_timeout,
        )
    except LedgerError as exc:
        warn(f"the cost of cycle {report.cycle_id} was not recorded: {exc}")
