"""The user's cost ledger: one JSONL file for every project, because the budget is the
user's money, not a project's.

It lives in acecode's user state folder (:func:`acecode.project.paths.user_state_dir`) as
``cost-ledger.jsonl`` and holds three kinds of record, each keyed by the cycle ID:

* ``reserve``: a cycle was admitted with an estimate of its cost (written under
  the lock, in the same hold as the budget check, so two cycles from two
  projects cannot both pass on the same remaining budget);
* ``cycle``: what the admitted cycle really spent (provider, model, tokens and
  cost per role, how the cost is known); it settles the reservation;
* ``release``: the cycle made no LLM call after all; the reservation is void;
* ``refuse``: a cycle was not admitted (its worst case did not fit a budget), with
  the reason and the budget's period, so that the next session start can say that
  learning is paused (:func:`acecode.cost.budget.paused`);
* ``triaged``: a session the triage found nothing to learn in
  (:mod:`acecode.pipeline.triage`), skipped before any call, at $0: what
  ``acecode cost`` counts as the triage's savings.

A reservation that was never settled counts against the budget until its
process is gone (same host) or it is older than :data:`STALE_AFTER`. Every
record is dated by its reservation, so a cycle's spend stays in the day and
month whose budget admitted it. Writers hold ``cost-ledger.jsonl.lock``
(filelock) and append one line per ``write``; unreadable lines are skipped.
"""

from __future__ import annotations

import json
import os
import socket
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from pathlib import Path
from typing import Any

from acecode.errors import AcecodeError
from acecode.project import paths
from acecode.project.diagnostics import warn
from acecode.text.wording import counted

LEDGER_NAME = "cost-ledger.jsonl"
RESERVE = "reserve"
CYCLE = "cycle"
RELEASE = "release"
REFUSE = "refuse"
TRIAGED = "triaged"
# An unsettled reservation this old is void even if its process seems alive (a cycle
# is bounded by its calls' timeouts: minutes, not hours).
STALE_AFTER = timedelta(hours=6)


class LedgerError(AcecodeError):
    """The ledger could not be locked, read or written; the message names the file."""


def ledger_path() -> Path:
    """``<user state folder>/cost-ledger.jsonl``."""
    return paths.user_state_dir() / LEDGER_NAME


def now() -> datetime:
    """The local time, with its offset (records are dated in local time)."""
    return datetime.now().astimezone()


def stamp(moment: datetime | None = None) -> str:
    """``moment`` (default now) as ISO 8601 with the local offset, to the second."""
    return (moment or now()).isoformat(timespec="seconds")


def record_time(record: dict[str, Any]) -> datetime | None:
    """When a record's cycle was admitted, in local time; None when unreadable."""
    try:
        moment = datetime.fromisoformat(str(record.get("time")))
    except ValueError:
        return None
    return moment.astimezone() if moment.tzinfo else moment


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


def _reservation_open(record: dict[str, Any], at: datetime) -> bool:
    """A reservation still counts: its process may still be spending."""
    moment = record_time(record)
    if moment is None or at - moment > STALE_AFTER:
        return False
    if record.get("host") == socket.gethostname():
        return _process_alive(record.get("pid"))
    return True


@dataclass
class Spend:
    """Spend over some records: settled cycles plus open reservations."""

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


def cycle_tokens(record: dict[str, Any]) -> int:
    """Input plus output tokens of a ``cycle`` record."""
    return int(record.get("input_tokens") or 0) + int(record.get("output_tokens") or 0)


def settled(records: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    """The ``cycle`` records: what cycles really spent."""
    return [record for record in records if record.get("kind") == CYCLE]


def open_reservations(records: list[dict[str, Any]], at: datetime) -> list[dict[str, Any]]:
    """Reservations neither settled nor released, whose cycle may still be running."""
    closed = {r.get("cycle_id") for r in records if r.get("kind") in (CYCLE, RELEASE)}
    return [
        record
        for record in records
        if record.get("kind") == RESERVE
        and record.get("cycle_id") not in closed
        and _reservation_open(record, at)
    ]


def spend_since(records: list[dict[str, Any]], start: date, at: datetime) -> Spend:
    """Spend of cycles admitted on or after ``start`` (local date), reservations included."""

    def in_window(record: dict[str, Any]) -> bool:
        moment = record_time(record)
        return moment is not None and moment.date() >= start

    spend = Spend()
    for record in settled(records):
        if not in_window(record):
            continue
        spend.cycles += 1
        spend.usd += float(record.get("cost_usd") or 0.0)
        spend.tokens += cycle_tokens(record)
        basis = record.get("cost_basis")
        spend.estimated_cycles += basis == "estimated"
        spend.unknown_cycles += basis == "unknown"
    for record in open_reservations(records, at):
        if in_window(record):
            spend.reserved_usd += float(record.get("estimate_usd") or 0.0)
            spend.reserved_tokens += int(record.get("estimate_tokens") or 0)
    return spend


# A cycle that follows another this soon (any project) asks for a one-hour prompt cache.
RECENT = timedelta(hours=1)


def recent_cycle(records: Iterable[dict[str, Any]], at: datetime | None = None) -> bool:
    """True when a cycle called an LLM within :data:`RECENT` of ``at`` (default now)."""
    at = at or now()
    for record in settled(records):
        moment = record_time(record)
        if moment is not None and timedelta(0) <= at - moment <= RECENT:
            return True
    return False


class Ledger:
    """The ledger file; :meth:`locked` for a consistent read-check-append."""

    def __init__(self, path: Path | None = None) -> None:
        self.path = path or ledger_path()

    def records(self) -> list[dict[str, Any]]:
        """Every readable record, oldest first ([] when there is no ledger yet)."""
        try:
            with self.path.open(encoding="utf-8") as handle:
                lines = handle.readlines()
        except FileNotFoundError:
            return []
        except OSError as exc:
            raise LedgerError(f"cannot read {self.path}: {exc.strerror or exc}") from exc
        records, unreadable = [], 0
        for line in lines:
            try:
                record = json.loads(line)
            except ValueError:
                unreadable += 1
                continue
            if isinstance(record, dict):
                records.append(record)
        if unreadable:
            warn(f"{self.path}: skipped {counted(unreadable, 'unreadable line')}; the rest is used")
        return records

    def append(self, record: dict[str, Any]) -> None:
        """Add one record in one ``write`` (call it with the lock held)."""
        data = json.dumps(record, ensure_ascii=False, default=str) + "\n"
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            with self.path.open("a", encoding="utf-8") as handle:
                handle.write(data)
        except OSError as exc:
            raise LedgerError(f"cannot write {self.path}: {exc.strerror or exc}") from exc

    @contextmanager
    def locked(self, timeout: float) -> Iterator[Ledger]:
        """Hold the ledger's lock (``<ledger>.lock``) for up to ``timeout`` seconds' wait."""
        from filelock import FileLock, Timeout

        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise LedgerError(f"cannot create {self.path.parent}: {exc.strerror or exc}") from exc
        lock = FileLock(str(self.path) + ".lock", timeout=timeout)
        try:
            lock.acquire()
        except Timeout as exc:
            raise LedgerError(
                f"{self.path} is locked by another acecode process (waited {timeout:g} s)"
            ) from exc
        except OSError as exc:
            raise LedgerError(f"cannot lock {self.path}: {exc.strerror or exc}") from exc
        try:
            yield self
        finally:
            lock.release()
