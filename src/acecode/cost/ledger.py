"""The user's cost ledger: one JSONL file for every project, because the budget is the
user's money, not a project's.

It lives in acecode's user state folder (:func:`acecode.project.paths.user_state_dir`) as
``cost-ledger.jsonl``. Its records, each keyed by the cycle ID and dated by the
cycle's admission (so a cycle's spend stays in the day and month whose budget
admitted it):

* ``reserve``: a cycle was admitted with its worst case (written under the lock, in
  the same hold as the budget check, so two cycles from two projects cannot both
  pass on the same remaining budget); a later ``hold`` lowers what it keeps, as its
  calls settle and the calls it planned but will not make are known;
* ``call``: one LLM call is about to be sent, with its bound, written *before* the
  money is at risk; ``paid``: what that call really cost, written when it returned.
  A call with no ``paid`` counts at its bound: a cycle killed mid-call, or a
  machine that went to sleep, never spends unseen;
* ``cycle``: what the admitted cycle really spent (provider, model, tokens and cost
  per role, how the cost is known); it settles the reservation. A cycle whose
  process is gone is settled by the next admission (``status`` "killed");
* ``release``: the cycle made no LLM call after all; the reservation is void;
* ``refuse``: a cycle was not admitted (its worst case did not fit a budget), with
  the reason and the budget's period, so that the next session start can say that
  learning is paused (:func:`acecode.cost.budget.paused`);
* ``triaged``: a session the triage found nothing to learn in
  (:mod:`acecode.pipeline.triage`), skipped before any call, at $0: what
  ``acecode cost`` counts as the triage's savings.

What the records add up to (spend, open reservations, gone cycles) is
:mod:`acecode.cost.holds`. Writers hold ``cost-ledger.jsonl.lock`` (filelock) and
append each record in one ``write``; a record is written whole or not at all: a
write cut short (a full disk, a file-size limit) is truncated away and fails, and
a torn last line left by a crash is cut off before the next append.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from acecode.errors import AcecodeError
from acecode.project import paths
from acecode.project.diagnostics import warn
from acecode.text.wording import counted

LEDGER_NAME = "cost-ledger.jsonl"
RESERVE = "reserve"
HOLD = "hold"
CALL = "call"
PAID = "paid"
CYCLE = "cycle"
RELEASE = "release"
REFUSE = "refuse"
TRIAGED = "triaged"
# Read back to find the start of a torn last line.
_TAIL_CHUNK = 4096


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


def settled(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The ``cycle`` records: what cycles really spent."""
    return [record for record in records if record.get("kind") == CYCLE]


# A cycle that follows another this soon (any project) asks for a one-hour prompt cache.
RECENT = timedelta(hours=1)


def recent_cycle(records: list[dict[str, Any]], at: datetime | None = None) -> bool:
    """True when a cycle called an LLM within :data:`RECENT` of ``at`` (default now)."""
    at = at or now()
    for record in settled(records):
        moment = record_time(record)
        if moment is not None and timedelta(0) <= at - moment <= RECENT:
            return True
    return False


def _why(exc: OSError) -> str:
    return exc.strerror or str(exc)


def _torn_tail(fd: int, size: int) -> int | None:
    """Where the file's last line starts when that line has no newline (a write torn by
    a crash, or by an older acecode); None when the file ends with one."""
    if size == 0 or os.pread(fd, 1, size - 1) == b"\n":
        return None
    end = size
    while end > 0:
        start = max(0, end - _TAIL_CHUNK)
        chunk = os.pread(fd, end - start, start)
        newline = chunk.rfind(b"\n")
        if newline >= 0:
            return start + newline + 1
        end = start
    return 0


class Ledger:
    """The ledger file; :meth:`locked` for a consistent read-check-append."""

    def __init__(self, path: Path | None = None) -> None:
        self.path = path or ledger_path()

    @property
    def folder(self) -> Path:
        return self.path.parent

    def records(self) -> list[dict[str, Any]]:
        """Every readable record, oldest first ([] when there is no ledger yet)."""
        try:
            with self.path.open(encoding="utf-8", errors="replace") as handle:
                lines = handle.readlines()
        except FileNotFoundError:
            return []
        except OSError as exc:
            raise LedgerError(f"cannot read {self.path}: {_why(exc)}") from exc
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
        """Add one record, whole or not at all (call it with the lock held): a torn last
        line is cut off first, and a write cut short is truncated away and raises."""
        data = (json.dumps(record, ensure_ascii=False, default=str) + "\n").encode("utf-8")
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
            fd = os.open(self.path, os.O_RDWR | os.O_APPEND | os.O_CREAT, 0o644)
        except OSError as exc:
            raise LedgerError(f"cannot write {self.path}: {_why(exc)}") from exc
        size: int | None = None
        try:
            size = os.fstat(fd).st_size
            size = self._repair(fd, size)
            written = os.write(fd, data)
            if written != len(data):
                raise OSError(f"only {written} of {len(data)} bytes could be written")
        except OSError as exc:
            if size is not None:
                with suppress(OSError):
                    os.ftruncate(fd, size)
            raise LedgerError(f"cannot write {self.path}: {_why(exc)}") from exc
        finally:
            os.close(fd)

    def _repair(self, fd: int, size: int) -> int:
        """End the file with a newline before appending; returns its new size. A last line
        without one is a record some write left torn: kept (newline added) when it still
        reads whole, else cut off, saying so."""
        start = _torn_tail(fd, size)
        if start is None:
            return size
        try:
            json.loads(os.pread(fd, size - start, start))
        except ValueError:
            os.ftruncate(fd, start)
            warn(f"{self.path}: removed a torn last line ({size - start} bytes) before appending")
            return start
        os.write(fd, b"\n")
        return size + 1

    @contextmanager
    def locked(self, timeout: float) -> Iterator[Ledger]:
        """Hold the ledger's lock (``<ledger>.lock``) for up to ``timeout`` seconds' wait."""
        from filelock import FileLock, Timeout

        try:
            self.folder.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise LedgerError(f"cannot create {self.folder}: {_why(exc)}") from exc
        lock = FileLock(str(self.path) + ".lock", timeout=timeout)
        try:
            lock.acquire()
        except Timeout as exc:
            raise LedgerError(
                f"{self.path} is locked by another acecode process (waited {timeout:g} s)"
            ) from exc
        except OSError as exc:
            raise LedgerError(f"cannot lock {self.path}: {_why(exc)}") from exc
        try:
            yield self
        finally:
            lock.release()
