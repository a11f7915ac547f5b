"""The learning cycle's side of the budget: admit before the first LLM call, record every
call before it is sent, settle after the last.

``run_cycle`` runs its body inside :func:`metered`, which tracks every LLM call
of the cycle; the body calls :func:`admit_cycle` once the provider is chosen and
before the first call. The admission reserves the cycle's worst case
(:mod:`acecode.cost.estimate`): everything it may send, each role at its bound.
From then on the budget is never asked again. Every call draws on the cycle's
own reservation (:class:`Meter`): its role's share first, then what earlier
calls left unused (their bounds minus what they cost); an admitted cycle is
never stopped between calls for the budget, so the money it paid is never
wasted. The judge, whose pairs are known only late, is sized to fit
(:func:`fits`): the pairs planned at admission, more when earlier calls left
room; so are the arrived entries the safety review adds to the cycle's texts.

Before each call, a ``call`` record with its bound goes to the user's ledger
(:mod:`acecode.cost.ledger`), and a ``paid`` record with its cost when it
returns: a cycle killed mid-call still counts. A ledger that cannot take the
record stops the call before it is sent. Once the cycle's last LLM call is done
its unused reservation is released (a ``hold`` record); on the way out,
:func:`metered` writes what the cycle spent, settling the reservation, and puts
it in ``report.cost``. A cycle refused at admission made no call and stays due.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from acecode.cost import budget
from acecode.cost.estimate import CycleEstimate, estimate_cycle, price_roles, request_bound
from acecode.cost.ledger import CALL, HOLD, PAID, Ledger, LedgerError, stamp
from acecode.cost.liveness import CycleLock, lock_path
from acecode.cost.pricing import call_cost
from acecode.cost.settlement import ledger_unusable, spend_record, unreported_bounds
from acecode.llm import usage
from acecode.llm.client import cache_ttl, guarded_calls
from acecode.project import outcomes, paths
from acecode.project.config import Settings
from acecode.project.diagnostics import diagnose, warn

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
class Amount:
    """USD (None: a price is unknown, then only tokens are kept) and tokens."""

    usd: float | None = 0.0
    tokens: int = 0

    def __add__(self, other: Amount) -> Amount:
        usd = None if self.usd is None or other.usd is None else self.usd + other.usd
        return Amount(usd, self.tokens + other.tokens)

    def __sub__(self, other: Amount) -> Amount:
        usd = None if self.usd is None or other.usd is None else self.usd - other.usd
        return Amount(usd, self.tokens - other.tokens)

    def within(self, room: Amount) -> bool:
        """Fits in ``room`` (a small tolerance for float sums)."""
        usd_ok = self.usd is None or room.usd is None or self.usd <= room.usd + 1e-12
        return usd_ok and self.tokens <= room.tokens


@dataclass
class _InFlight:
    number: int
    role: str
    bound: Amount


@dataclass
class Meter:
    """One cycle's reservation between admission and settlement, and its calls.

    ``asked`` is what the budget granted (the admission, and any extension);
    ``reserved`` what the ledger holds for the cycle now; ``committed`` what its calls
    paid plus the bounds of those in flight; ``shares`` each role's part of the
    reservation still unspent. What is neither committed nor a share is free: what
    earlier calls left unused, which any call may draw on after its own share.
    """

    report: CycleReport
    settings: Settings
    enforce: bool
    ledger: Ledger = field(default_factory=Ledger)
    lock: CycleLock | None = None
    admitted_at: str | None = None
    estimate: CycleEstimate | None = None
    asked: Amount = field(default_factory=Amount)
    reserved: Amount = field(default_factory=Amount)
    committed: Amount = field(default_factory=Amount)
    shares: dict[str, Amount] = field(default_factory=dict)
    in_flight: dict[int, _InFlight] = field(default_factory=dict)
    numbers: Iterator[int] = field(default_factory=lambda: itertools.count(1))
    calls: usage.UsageLedger = field(default_factory=usage.UsageLedger)

    def free(self) -> Amount:
        held = self.committed
        for share in self.shares.values():
            held = held + share
        return self.reserved - held

    def bound(self, role: str, request: LLMRequest | RolePrompt) -> Amount:
        """What ``request`` can cost at most, as it will be sent."""
        bound = request_bound(
            request.system,
            request.prompt,
            request.cacheable_chars,
            request.max_tokens,
            provider=self.report.provider,
            model=request.model,
        )
        ttl = getattr(request, "cache_ttl", cache_ttl())
        usd = price_roles({role: bound}, self.report.model, ttl)
        return Amount(usd, bound.input_tokens + bound.output_tokens)

    def room(self, role: str) -> Amount:
        """What a call of ``role`` may cost now: its share and what is free."""
        return self.shares.get(role, Amount()) + self.free()

    def before(self, role: str, request: LLMRequest) -> str | None:
        """The call guard: draw the call's bound on the reservation (asking the budget for
        more only when it does not fit, which the bounds are built to prevent) and record
        the call in the ledger before it is sent; the reason it may not be sent, or None."""
        if self.admitted_at is None:
            return None  # not admitted under the ledger (no ledger): nothing to keep
        bound = self.bound(role, request)
        room = self.room(role)
        if not bound.within(room):
            short = bound - room
            usd = None if short.usd is None else max(0.0, short.usd)
            refused = self._extend(role, Amount(usd, max(0, short.tokens)))
            if refused:
                return refused
        share = self.shares.get(role, Amount())
        taken = Amount(
            None if share.usd is None or bound.usd is None else min(share.usd, bound.usd),
            min(share.tokens, bound.tokens),
        )
        self.shares[role] = share - taken
        number = next(self.numbers)
        try:
            self._append(CALL, number, role, bound)
        except LedgerError as exc:
            self.shares[role] = share
            return f"cannot record the call in the cost ledger: {exc}"
        self.committed = self.committed + bound
        self.in_flight[id(request)] = _InFlight(number, role, bound)
        return None

    def after(self, role: str, request: LLMRequest, call: usage.CallRecord) -> None:
        """The call returned: what it cost replaces its bound, in the ledger too."""
        flying = self.in_flight.pop(id(request), None)
        if flying is None:
            return
        cost = call_cost(call)
        paid = Amount(cost.usd, call.input_tokens + call.output_tokens)
        self.committed = self.committed - flying.bound + paid
        try:
            self._append(PAID, flying.number, role, paid, call.input_tokens, call.output_tokens)
        except LedgerError as exc:
            warn(f"{exc}; the call counts at its bound until the cycle settles")

    def done(self, *roles: str) -> None:
        """``roles`` will make no more calls in this cycle: their shares become free."""
        for role in roles:
            self.shares.pop(role, None)

    def release(self) -> None:
        """The cycle's last LLM call is done: release all but what its calls committed."""
        if self.admitted_at is None:
            return
        self.shares.clear()
        record = {
            "kind": HOLD,
            "cycle_id": self.report.cycle_id,
            "time": self.admitted_at,
            "estimate_usd": self.committed.usd,
            "estimate_tokens": self.committed.tokens,
        }
        try:
            with self.ledger.locked(self.settings.lock_timeout):
                self.ledger.append(record)
        except LedgerError as exc:
            warn(f"{exc}; the cycle's unused reservation is released when it settles")
            return
        self.reserved = Amount(self.committed.usd, self.committed.tokens)

    def _append(
        self,
        kind: str,
        number: int,
        role: str,
        amount: Amount,
        input_tokens: int | None = None,
        output_tokens: int | None = None,
    ) -> None:
        record = {
            "kind": kind,
            "cycle_id": self.report.cycle_id,
            "time": self.admitted_at,
            "call": number,
            "role": role,
            "usd": amount.usd,
            # A bound's tokens are counted as input: which part is which does not matter
            # to a budget, and what was billed follows in the paid record.
            "input_tokens": amount.tokens if input_tokens is None else input_tokens,
            "output_tokens": 0 if output_tokens is None else output_tokens,
        }
        with self.ledger.locked(self.settings.lock_timeout):
            self.ledger.append(record)

    def _extend(self, role: str, more: Amount) -> str | None:
        """Reserve ``more`` under the budget; the refusal, or None. Only a bound that
        was wrong gets here: it is noted for diagnosis."""
        diagnose("cost_extension", f"{role}: {more}")
        try:
            refused = budget.extend(
                self.ledger,
                cycle_id=self.report.cycle_id,
                at=self.admitted_at or stamp(),
                role=role,
                usd=more.usd,
                tokens=more.tokens,
                limits=budget.Limits.from_settings(self.settings),
                lock_timeout=self.settings.lock_timeout,
                enforce=self.enforce,
            )
        except LedgerError as exc:
            return f"cannot check the budget: {exc}"
        if refused:
            return refused
        self.reserved = self.reserved + more
        self.asked = self.asked + more
        return None


_meter: ContextVar[Meter | None] = ContextVar("acecode_cost_meter", default=None)


@contextmanager
def metered(report: CycleReport, settings: Settings, *, enforce: bool = True) -> Iterator[None]:
    """Track the block's LLM calls, record each one against the cycle's reservation, and
    settle them in the ledger when the block ends, however it ends. ``enforce=False``
    (``acecode learn --ignore-budget``) admits without checking."""
    meter = Meter(report=report, settings=settings, enforce=enforce)
    token = _meter.set(meter)
    try:
        with usage.track() as calls, guarded_calls(meter):
            meter.calls = calls
            yield
    finally:
        _meter.reset(token)
        _settle(meter, calls.calls)


def fits(role: str, request: RolePrompt) -> bool:
    """Whether ``request`` fits in what the cycle holds for a call of ``role`` now (True
    outside a metered cycle): the judge drops pairs, the review arrived entries, until
    it does."""
    meter = _meter.get()
    if meter is None or meter.admitted_at is None:
        return True
    return meter.bound(role, request).within(meter.room(role))


def roles_done(*roles: str) -> None:
    """Tell the cycle's meter that ``roles`` will make no more calls."""
    meter = _meter.get()
    if meter is not None:
        meter.done(*roles)


def release_unused() -> None:
    """Tell the cycle's meter that its last LLM call is done."""
    meter = _meter.get()
    if meter is not None:
        meter.release()


def admit_cycle(
    report: CycleReport,
    reflector: RolePrompt,
    playbook: dict[str, Any],
    conflicts: Sequence[Any],
    lists: CuratorLists,
    layers: int = 1,
    digest: str | None = None,
) -> bool:
    """Estimate the cycle's worst case (``reflector``: its first request, as it will be
    sent; ``layers``: how many layers it may write; ``digest``: the instructions' digest
    the curator will be shown), check it against the budgets and reserve it.

    False when refused (the report ``skipped``, the budget named) or when the ledger
    cannot take the reservation (``failed``, the ledger named): no call was made.
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
        layers=layers,
        digest=digest,
    )
    return _admit(meter, report, estimate)


def admit_calls(report: CycleReport) -> bool:
    """Admit LLM calls made outside a learning cycle (a safety review of the texts waiting
    in the queue, of the entries that arrived with the repository) with nothing reserved
    up front: each call then reserves its worst case under the budgets before it is sent
    (``Meter.before``), and a call the budget refuses is not made. False when the budget
    is spent already (the report is then ``skipped`` with the budget named)."""
    meter = _meter.get()
    if meter is None:
        return True
    return _admit(meter, report, CycleEstimate(model=report.model, usd=0.0))


def _admit(meter: Meter, report: CycleReport, estimate: CycleEstimate) -> bool:
    """Check ``estimate`` against the budgets and reserve it (see :func:`admit_cycle`)."""
    settings = meter.settings
    meter.estimate = estimate
    report.cost = {"estimate": estimate.as_dict()}
    at = stamp()
    try:
        meter.lock = _take_lock(meter.ledger, report.cycle_id)
        refused = budget.admit(
            meter.ledger,
            cycle_id=report.cycle_id,
            at=at,
            project=str(paths.project_dir().resolve()),
            source=report.source,
            provider=report.provider,
            estimate=estimate,
            limits=budget.Limits.from_settings(settings),
            lock_timeout=settings.lock_timeout,
            enforce=meter.enforce,
            lock=str(meter.lock.path) if meter.lock else None,
        )
    except LedgerError as exc:
        return _ledger_unusable(meter, report, exc)
    if refused:
        report.finish(outcomes.SKIPPED, f"{refused}; {over_budget_hint(report)}")
        report.cost["over_budget"] = True
        return False
    meter.admitted_at = at
    meter.reserved = meter.asked = Amount(estimate.usd, estimate.tokens)
    meter.shares = {
        role: Amount(price_roles({role: bound}, report.model, cache_ttl()), bound.tokens)
        for role, bound in estimate.roles.items()
    }
    return True


def _take_lock(ledger: Ledger, cycle_id: str) -> CycleLock | None:
    """The cycle's lock file (:mod:`acecode.cost.liveness`), held until it settles."""
    lock = CycleLock(lock_path(ledger.folder, cycle_id))
    try:
        return lock if lock.take() else None
    except OSError as exc:
        raise LedgerError(f"cannot write {lock.path.parent}: {exc.strerror or exc}") from exc


def _ledger_unusable(meter: Meter, report: CycleReport, exc: LedgerError) -> bool:
    """A ledger that cannot take the reservation: the cycle's spend could not be recorded
    before the money is at risk, so it does not start; ``--ignore-budget`` goes on."""
    if meter.lock is not None:
        meter.lock.drop()
        meter.lock = None
    if not meter.enforce:
        warn(f"{exc}; this cycle's cost is not recorded")
        return True
    report.finish(outcomes.FAILED, ledger_unusable(exc))
    report.cost["ledger_error"] = str(exc)
    return False


def _settle(meter: Meter, calls: Sequence[usage.CallRecord]) -> None:
    """Write the cycle's spend (or release its reservation) and fill ``report.cost``."""
    report = meter.report
    unreported = unreported_bounds(meter.in_flight.values())
    record = spend_record(meter, calls, unreported) if calls or unreported else None
    if record is not None:
        report.cost.update(usd=record["cost_usd"], basis=record["cost_basis"])
        report.cost["by_role"] = record["roles"]
    try:
        if meter.admitted_at is not None or record is not None:
            budget.settle(
                meter.ledger,
                report.cycle_id,
                meter.admitted_at or stamp(),
                record,
                meter.settings.lock_timeout,
            )
    except LedgerError as exc:
        warn(f"the cost of cycle {report.cycle_id} was not recorded: {exc}")
    finally:
        if meter.lock is not None:
            meter.lock.drop()
