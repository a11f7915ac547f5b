"""What the ledger's records add up to: each cycle's spend and what it still holds.

A cycle's records (:mod:`acecode.cost.ledger`) are folded into one
:class:`CycleState`. A settled cycle counts what its ``cycle`` record says. An
open one counts, while it runs, the larger of what it holds (its reservation,
lowered by its ``hold`` records) and what it paid plus the bounds of its calls
in flight; once it is gone (:mod:`acecode.cost.liveness`), only what it paid plus
the bounds of the calls that never reported back, which the next admission
writes down as its ``cycle`` record (:func:`killed_record`). So a cycle killed
mid-call, or asleep in a closed laptop, never spends unseen, and a dead
process's reservation is released.
"""

from __future__ import annotations

import os
import socket
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta
from pathlib import Path
from typing import Any

from acecode.cost.ledger import (
    CALL,
    CYCLE,
    HOLD,
    PAID,
    RELEASE,
    RESERVE,
    now,
    record_time,
    settled,
)
from acecode.cost.liveness import running

# A cycle of another machine (a home shared over the network) whose process cannot be
# asked counts this long after its admission (a cycle is bounded by its calls'
# timeouts: minutes, not hours); so does one of this machine without a lock file,
# written by an acecode before cycle locks, whose process ID may have been reused.
STALE_AFTER = timedelta(hours=6)
KILLED = "killed"


def _number(value: Any) -> float | None:
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else None


@dataclass
class CycleState:
    """One cycle's records folded together."""

    cycle_id: str
    admitted: dict[str, Any] | None = None
    reserved_usd: float | None = 0.0
    reserved_tokens: int = 0
    calls: dict[Any, dict[str, Any]] = field(default_factory=dict)
    paid: dict[Any, dict[str, Any]] = field(default_factory=dict)
    closing: dict[str, Any] | None = None

    def add(self, record: dict[str, Any]) -> None:
        kind = record.get("kind")
        if kind == RESERVE:
            self._reserve(record)
        elif kind == HOLD:
            self.reserved_usd = _number(record.get("estimate_usd"))
            self.reserved_tokens = int(record.get("estimate_tokens") or 0)
        elif kind == CALL:
            self.calls[record.get("call")] = record
        elif kind == PAID:
            self.paid[record.get("call")] = record
        elif kind in (CYCLE, RELEASE):
            self.closing = record

    def _reserve(self, record: dict[str, Any]) -> None:
        """The admission, or (records before holds) an extension adding to it."""
        if self.admitted is None:
            self.admitted = record
            self.reserved_usd, self.reserved_tokens = 0.0, 0
        usd = _number(record.get("estimate_usd"))
        self.reserved_usd = (
            None if usd is None or self.reserved_usd is None else (self.reserved_usd + usd)
        )
        self.reserved_tokens += int(record.get("estimate_tokens") or 0)

    @property
    def time(self) -> datetime | None:
        return record_time(self.admitted or self.closing or {})

    def spent(self) -> tuple[float, int, int, bool]:
        """USD, input and output tokens paid plus the bounds of the calls that did not
        report back, and whether any of it is such a bound (not what was billed)."""
        usd, tokens_in, tokens_out, bounds = 0.0, 0, 0, False
        for number, call in self.calls.items():
            paid = self.paid.get(number)
            source = paid if paid is not None else call
            bounds |= paid is None
            usd += _number(source.get("usd")) or 0.0
            tokens_in += int(source.get("input_tokens") or 0)
            tokens_out += int(source.get("output_tokens") or 0)
        return usd, tokens_in, tokens_out, bounds


def fold(records: Iterable[dict[str, Any]]) -> dict[str, CycleState]:
    """Every cycle's state, by cycle ID, for the records that carry one."""
    states: dict[str, CycleState] = {}
    for record in records:
        cycle_id = record.get("cycle_id")
        if not isinstance(cycle_id, str) or record.get("kind") not in (
            RESERVE,
            HOLD,
            CALL,
            PAID,
            CYCLE,
            RELEASE,
        ):
            continue
        states.setdefault(cycle_id, CycleState(cycle_id)).add(record)
    return states


def _process_alive(pid: Any) -> bool:
    if not isinstance(pid, int) or pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OSError):
        return True
    return True


def running_now(state: CycleState, at: datetime) -> bool:
    """Whether an open cycle may still be spending: its lock is held (this machine), or
    its process lives and it is recent (no lock file), or it is recent (another machine)."""
    admitted = state.admitted or {}
    moment = state.time
    recent = moment is not None and at - moment <= STALE_AFTER
    if admitted.get("host") != socket.gethostname():
        return recent
    lock = admitted.get("lock")
    if isinstance(lock, str) and lock:
        answer = running(Path(lock))
        if answer is not None:
            return answer
    return recent and _process_alive(admitted.get("pid"))


def open_cycles(records: list[dict[str, Any]]) -> list[CycleState]:
    """Cycles admitted and neither settled nor released."""
    return [
        state
        for state in fold(records).values()
        if state.admitted is not None and state.closing is None
    ]


def gone_cycles(records: list[dict[str, Any]], at: datetime | None = None) -> list[CycleState]:
    """Open cycles of this machine whose process is gone: to be settled."""
    at = at or now()
    host = socket.gethostname()
    return [
        state
        for state in open_cycles(records)
        if (state.admitted or {}).get("host") == host and not running_now(state, at)
    ]


def killed_record(state: CycleState) -> dict[str, Any]:
    """The ``cycle`` record that settles a cycle found gone: what it paid, and its calls
    that never reported back at their bounds."""
    usd, tokens_in, tokens_out, bounds = state.spent()
    admitted = state.admitted or {}
    return {
        "kind": CYCLE,
        "cycle_id": state.cycle_id,
        "time": admitted.get("time"),
        "project": admitted.get("project"),
        "source": admitted.get("source"),
        "status": KILLED,
        "provider": admitted.get("provider"),
        "model": admitted.get("model"),
        "roles": {},
        "input_tokens": tokens_in,
        "output_tokens": tokens_out,
        "cost_usd": usd,
        "cost_basis": "estimated",
        "calls": len(state.calls),
        "unreported_calls": sum(1 for n in state.calls if n not in state.paid),
        "bound": bounds,
    }


@dataclass
class Spend:
    """Spend over some records: settled (and gone) cycles plus what running ones hold."""

    usd: float = 0.0
    tokens: int = 0
    cycles: int = 0
    reserved_usd: float = 0.0
    reserved_tokens: int = 0
    estimated_cycles: int = 0
    unknown_cycles: int = 0

    @property
    def total_usd(self) -> float:
        return self.usd + self.reserved_usd

    @property
    def total_tokens(self) -> int:
        return self.tokens + self.reserved_tokens

    def settle(self, record: dict[str, Any]) -> None:
        self.cycles += 1
        self.usd += _number(record.get("cost_usd")) or 0.0
        self.tokens += cycle_tokens(record)
        basis = record.get("cost_basis")
        self.estimated_cycles += basis == "estimated"
        self.unknown_cycles += basis == "unknown"

    def hold(self, state: CycleState, alive: bool) -> None:
        usd, tokens_in, tokens_out, _ = state.spent()
        if not alive:  # gone: what it paid is spent, the rest of its reservation is free
            self.settle(killed_record(state))
            return
        self.reserved_usd += max(state.reserved_usd or 0.0, usd)
        self.reserved_tokens += max(state.reserved_tokens, tokens_in + tokens_out)


def cycle_tokens(record: dict[str, Any]) -> int:
    """Input plus output tokens of a ``cycle`` record."""
    return int(record.get("input_tokens") or 0) + int(record.get("output_tokens") or 0)


def spend_since(records: list[dict[str, Any]], start: date, at: datetime) -> Spend:
    """Spend of cycles admitted on or after ``start`` (local date), running ones included."""
    spend = Spend()
    for state in fold(records).values():
        moment = state.time
        if moment is None or moment.date() < start:
            continue
        if state.closing is not None:
            if state.closing.get("kind") == CYCLE:
                spend.settle(state.closing)
        elif state.admitted is not None:
            spend.hold(state, running_now(state, at))
    # Settled records of cycles this ledger never saw admitted (written by hand, or an
    # admission line lost) still count.
    for record in settled(records):
        if not isinstance(record.get("cycle_id"), str):
            moment = record_time(record)
            if moment is not None and moment.date() >= start:
                spend.settle(record)
    return spend
