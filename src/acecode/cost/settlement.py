"""What a cycle leaves in the user's cost ledger when it ends: its ``cycle`` record (what
each role spent, and the reservation it drew on), or, for a session the triage
skipped, a ``triaged`` record at $0; and the one line that names a ledger that
cannot be written, so that nobody mistakes it for a spent budget."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

from acecode.cost.ledger import CYCLE, TRIAGED, Ledger, LedgerError, stamp
from acecode.cost.pricing import CallCost, call_cost, combine
from acecode.llm import usage
from acecode.project import paths
from acecode.project.diagnostics import warn

if TYPE_CHECKING:
    from acecode.cost.gate import Meter
    from acecode.pipeline.cycle_report import CycleReport
    from acecode.project.config import Settings


def ledger_unusable(error: LedgerError | str) -> str:
    """Why a cycle did not start when the ledger cannot take its records: the ledger (or
    its folder) named, never the budget."""
    return (
        f"the cost ledger cannot be written ({error}), so learning is stopped before any "
        "LLM call: no spend could be recorded; make it writable (`acecode doctor`), or "
        "learn anyway with `acecode learn FILE --ignore-budget`"
    )


def record_triaged(report: CycleReport, settings: Settings) -> None:
    """Note in the user's ledger a session the triage skipped at $0 (``acecode cost``
    counts them); a ledger that cannot be written only warns."""
    record = {
        "kind": TRIAGED,
        "cycle_id": report.cycle_id,
        "time": stamp(),
        "project": str(paths.project_dir().resolve()),
        "source": report.source,
        "reason": report.reason,
    }
    ledger = Ledger()
    try:
        with ledger.locked(settings.lock_timeout):
            ledger.append(record)
    except LedgerError as exc:
        warn(f"the triage of cycle {report.cycle_id} was not recorded: {exc}")


def unreported_bounds(in_flight: Iterable[Any]) -> list[tuple[str, float | None, int]]:
    """(role, USD, tokens) at their bounds of the calls that never reported back (an
    exception in the middle of one): the request may have been billed."""
    return [(flying.role, flying.bound.usd, flying.bound.tokens) for flying in in_flight]


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
                "cache_write_1h_tokens": 0,
                "truncated": 0,
            },
        )
        row["calls"] += 1
        row["model"] = call.model
        row["input_tokens"] += call.input_tokens
        row["output_tokens"] += call.output_tokens
        row["cache_read_tokens"] += call.cache_read_tokens
        row["cache_write_tokens"] += call.cache_write_tokens
        row["cache_write_1h_tokens"] += call.cache_write_1h_tokens
        row["truncated"] += call.truncated
        costs.setdefault(call.role, []).append(call_cost(call))
    for role, row in roles.items():
        total = combine(costs[role])
        row["cost_usd"], row["cost_basis"] = total.usd, total.basis
    return roles


def spend_record(
    meter: Meter,
    calls: Sequence[usage.CallRecord],
    unreported: Sequence[tuple[str, float | None, int]] = (),
) -> dict[str, Any]:
    """The ledger's ``cycle`` record of what the cycle spent; calls that never reported
    back count at their bounds (``unreported``)."""
    report = meter.report
    costs = [call_cost(call) for call in calls]
    costs += [
        CallCost(usd, "estimated" if usd is not None else "unknown") for _, usd, _ in unreported
    ]
    total = combine(costs)
    estimate = meter.estimate
    record = {
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
        "input_tokens": sum(call.input_tokens for call in calls)
        + sum(tokens for _, _, tokens in unreported),
        "output_tokens": sum(call.output_tokens for call in calls),
        "cost_usd": total.usd,
        "cost_basis": total.basis,
        "estimate_usd": estimate.usd if estimate else None,
        "estimate_tokens": estimate.tokens if estimate else None,
        # What the admission reserved, and what the cycle asked the budget for on top
        # (only a bound that proved wrong does).
        "reserved_usd": meter.asked.usd if estimate else None,
        "reserved_tokens": meter.asked.tokens if estimate else None,
    }
    if unreported:
        record["unreported_calls"] = [role for role, _, _ in unreported]
    return record
