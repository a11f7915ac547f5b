"""The learning cycle's side of the budget: admit before the first LLM call, guard every
call, settle after the last.

``run_cycle`` runs its body inside :func:`metered`, which tracks every LLM
call of the cycle; the body calls :func:`admit_cycle` once the provider is
chosen and before the first call. From then on every request is checked
before it is sent (:func:`acecode.llm.client.guarded_calls`): what the cycle
has spent plus this request's bound (:func:`acecode.cost.estimate.request_bound`)
must fit in what it reserved, or the reservation grows first, under the same
budget check and lock as the admission (a ``reserve`` record with the same
cycle ID). The judge, a retry of a cut-off reply and a reflection longer than
planned are paid this way; when the budget refuses, that call is not made
and its role ends empty with the budget named. On the way out,
:func:`metered` writes what the cycle spent to the user's ledger
(:mod:`acecode.cost.ledger`), settling all its reservations, and puts it in
``report.cost``. A refused cycle ends ``skipped`` with the budget named in
its reason; it made no call and stays due.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from acecode.cost import budget
from acecode.cost.estimate import (
    CycleEstimate,
    estimate_cycle,
    price_roles,
    request_bound,
)
from acecode.cost.ledger import CYCLE, Ledger, LedgerError, stamp
from acecode.cost.pricing import CallCost, call_cost, combine
from acecode.llm import usage
from acecode.llm.client import cache_ttl, guarded_calls
from acecode.project import outcomes, paths
from acecode.project.config import Settings
from acecode.project.diagnostics import warn

if TYPE_CHECKING:
    from acecode.llm.base import LLMRequest
    from acecode.pipeline.curator_lists import CuratorLists
    from acecode.pipeline.cycle_report import CycleReport
    from acecode.roles.prompt import RolePrompt


# The sources of the LLM calls made outside a learning cycle (:func:`admit_calls`): the
# review of the texts waiting in the queue, and the background review of arrived entries.
REVIEW_JOBS = ("review-retry", "arrivals")


def over_budget_hint(report: CycleReport) -> str:
    """What becomes of a session skipped for the budget, and what the user can do; only
    what will happen: a transcript given by hand (maybe from outside the project) is
    learned by nothing else, a hook's session stays due for ``acecode bootstrap``."""
    if report.source in REVIEW_JOBS:
        return "nothing was reviewed; the texts keep waiting until the budget allows"
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
    # What the cycle's reserve records add up to (USD None: a price is unknown).
    reserved_usd: float | None = None
    reserved_tokens: int = 0
    calls: usage.UsageLedger = field(default_factory=usage.UsageLedger)

    def spent(self) -> tuple[float | None, int]:
        """USD (None: partly unknown) and tokens of the calls made so far."""
        total = combine(call_cost(call) for call in self.calls.calls)
        usd = None if total.basis == "unknown" else (total.usd or 0.0)
        return usd, self.calls.total_tokens

    def check(self, role: str, request: LLMRequest) -> str | None:
        """The call guard: None when ``request`` fits in what the cycle reserved, or once
        the reservation grew to fit it; the budget's refusal otherwise."""
        if self.admitted_at is None:
            return None  # not admitted under a budget (no ledger, no limit): nothing to keep
        bound = request_bound(
            request.system,
            request.prompt,
            request.cacheable_chars,
            request.max_tokens,
            provider=self.report.provider,
            model=request.model,
        )
        worst_usd = price_roles({role: bound}, request.model, request.cache_ttl)
        spent_usd, spent_tokens = self.spent()
        worst_tokens = bound.input_tokens + bound.output_tokens
        more_tokens = max(0, spent_tokens + worst_tokens - self.reserved_tokens)
        more_usd: float | None = None
        if None not in (worst_usd, spent_usd, self.reserved_usd):
            more_usd = max(0.0, spent_usd + worst_usd - self.reserved_usd)  # type: ignore[operator]
        if more_tokens <= 0 and not more_usd:
            return None
        return self._extend(role, more_usd, more_tokens)

    def _extend(self, role: str, usd: float | None, tokens: int) -> str | None:
        """Reserve ``usd`` / ``tokens`` more under the budget; the refusal, or None."""
        limits = budget.Limits.from_settings(self.settings)
        try:
            refused = budget.extend(
                self.ledger,
                cycle_id=self.report.cycle_id,
                at=self.admitted_at or stamp(),
                role=role,
                usd=usd,
                tokens=tokens,
                limits=limits,
                lock_timeout=self.settings.lock_timeout,
                enforce=self.enforce,
            )
        except LedgerError as exc:
            return f"cannot check the budget: {exc}"
        if refused:
            return refused
        if self.reserved_usd is not None and usd is not None:
            self.reserved_usd += usd
        self.reserved_tokens += tokens
        return None


_meter: ContextVar[_Meter | None] = ContextVar("acecode_cost_meter", default=None)


@contextmanager
def metered(report: CycleReport, settings: Settings, *, enforce: bool = True) -> Iterator[None]:
    """Track the block's LLM calls, guard each one against the cycle's reservation, and
    settle them in the ledger when the block ends, however it ends. ``enforce=False``
    (``acecode learn --ignore-budget``) admits and extends without checking."""
    meter = _Meter(report=report, settings=settings, enforce=enforce)
    token = _meter.set(meter)
    try:
        with usage.track() as calls, guarded_calls(meter.check):
            meter.calls = calls
            yield
    finally:
        _meter.reset(token)
        _settle(meter, calls.calls)


def admit_cycle(
    report: CycleReport,
    reflector: RolePrompt,
    playbook: dict[str, Any],
    conflicts: Sequence[Any],
    lists: CuratorLists,
) -> bool:
    """Estimate the cycle's worst case (``reflector``: its first request, as it will be
    sent), check it against the budgets and reserve it.

    False when refused: the report is then ``skipped`` with the budget named. A
    ledger that cannot be used refuses too when a limit is set (the budget could
    not be kept); with no limit set the cycle goes on with a warning.
    """
    meter = _meter.get()
    if meter is None:  # a caller outside run_cycle's metering: nothing to keep
        return True
    settings = meter.settings
    estimate = estimate_cycle(
        reflector,
        playbook,
        report.cited_ids,
        conflicts,
        lists,
        settings,
        provider=report.provider,
        model=report.model,
        cache_ttl=cache_ttl(),
    )
    return _admit(meter, report, estimate)


def admit_calls(report: CycleReport) -> bool:
    """Admit LLM calls made outside a learning cycle (a safety review of the texts waiting
    in the queue, of the entries that arrived with the repository) with nothing reserved
    up front: each call then reserves its worst case under the budgets before it is sent
    (``_Meter.check``), and a call the budget refuses is not made. False when the budget
    is spent already (the report is then ``skipped`` with the budget named)."""
    meter = _meter.get()
    if meter is None:
        return True
    return _admit(meter, report, CycleEstimate(model=report.model, usd=0.0))


def _admit(meter: _Meter, report: CycleReport, estimate: CycleEstimate) -> bool:
    """Check ``estimate`` against the budgets and reserve it (see :func:`admit_cycle`)."""
    settings = meter.settings
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
    meter.reserved_usd = estimate.usd
    meter.reserved_tokens = estimate.tokens
    return True


def record_triaged(report: CycleReport, settings: Settings) -> None:
    """Note in the user's ledger a session the triage skipped at $0 (``acecode cost``
    counts them); a ledger that cannot be written only warns."""
    from acecode.cost.ledger import TRIAGED

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
        # The admission's estimate plus what the cycle reserved on the way (judge, retries).
        "reserved_usd": meter.reserved_usd if estimate else None,
        "reserved_tokens": meter.reserved_tokens if estimate else None,
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
