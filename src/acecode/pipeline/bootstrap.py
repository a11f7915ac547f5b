"""Learn from a project's existing sessions, oldest first, resumably.

Its cycles come one after the other, so they ask for a one-hour prompt cache.
Progress is kept in ``.claude/acecode/bootstrap.json`` (written atomically
after every session), so Ctrl-C or a crash loses at most the session in
flight, and a rerun skips what is done. A session whose every message the hooks
(or ``acecode learn``) learned already is counted as already learned, without a
cycle record. A failed session is logged, recorded
and skipped; it is retried on the next run, and so is a session skipped as
too small to learn from (it may have grown by then).
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NamedTuple

from acecode.pipeline.cycle import CycleReport, run_cycle_sync
from acecode.project.bounds import read_json
from acecode.project.outcomes import SKIPPED
from acecode.store.atomic import atomic_write_text
from acecode.store.lock import exclusive_lock

BOOTSTRAP_FILE = "bootstrap.json"


def bootstrap_file(root: Path) -> Path:
    """The progress file of the project rooted at ``root``, in its layer's state folder."""
    from acecode.project.layer import Layer

    return Layer.of_project(root).file(BOOTSTRAP_FILE)


@dataclass
class BootstrapState:
    """Sessions already learned from (by path, with size and mtime) and failures."""

    path: Path
    done: dict[str, dict[str, Any]] = field(default_factory=dict)
    failed: dict[str, str] = field(default_factory=dict)

    @classmethod
    def load(cls, path: Path) -> BootstrapState:
        try:
            data = read_json(path, "bootstrap record")
        except (OSError, ValueError):
            return cls(path)
        if not isinstance(data, dict):
            return cls(path)
        return cls(path, dict(data.get("done") or {}), dict(data.get("failed") or {}))

    def save(self) -> None:
        payload = {"done": self.done, "failed": self.failed}
        with exclusive_lock(self.path, timeout=10):
            atomic_write_text(self.path, json.dumps(payload, indent=2, sort_keys=True) + "\n")

    @staticmethod
    def fingerprint(transcript: Path) -> dict[str, Any]:
        stat = transcript.stat()
        return {"size": stat.st_size, "mtime": stat.st_mtime}

    def is_done(self, transcript: Path) -> bool:
        return self.done.get(str(transcript)) == self.fingerprint(transcript)


class BootstrapCounts(NamedTuple):
    """What one bootstrap run did with each transcript."""

    learned: int
    already_done: int  # learned before: by an earlier run or by the hooks
    skipped: int  # too small or nothing to learn yet: retried on the next run
    failed: int


def bootstrap(
    transcripts: list[Path],
    *,
    state_path: Path,
    playbook_path: Path | None,
    delay: float,
    on_progress: Callable[[Path, CycleReport | None, str | None], None] | None = None,
    source: str = "bootstrap",
) -> BootstrapCounts:
    """Learn from each pending transcript.

    ``on_progress`` is called after each transcript with its report or error
    (both None for a transcript skipped as already learned). ``source`` names who
    started the cycles in their reports (``bootstrap``, ``catch-up``).
    KeyboardInterrupt propagates after the state of finished sessions is saved.
    """
    state = BootstrapState.load(state_path)
    learned = already_done = skipped = failed = 0
    rest = False  # pause before the next cycle only after one that may have called the LLM
    for transcript in transcripts:
        if state.is_done(transcript):
            already_done += 1
            if on_progress:
                on_progress(transcript, None, None)
            continue
        if rest and delay > 0:
            time.sleep(delay)
        rest = True
        try:
            report = run_cycle_sync(
                transcript,
                playbook_path=playbook_path,
                source=source,
                burst=True,
                record_if_learned_before=False,
            )
            if report.learned_before:  # the hooks learned it all: no cycle to tell of
                already_done += 1
                rest = False
                state.done[str(transcript)] = BootstrapState.fingerprint(transcript)
                state.save()
                if on_progress:
                    on_progress(transcript, None, None)
                continue
            if report.status == SKIPPED:  # no LLM call; stays due for the next run
                skipped += 1
                rest = False
                if on_progress:
                    on_progress(transcript, report, None)
                continue
            if not report.learned:
                raise RuntimeError(f"{report.status}: {report.reason}")
        except Exception as exc:
            failed += 1
            state.failed[str(transcript)] = str(exc)
            state.save()
            if on_progress:
                on_progress(transcript, None, str(exc))
            continue
        learned += 1
        state.done[str(transcript)] = BootstrapState.fingerprint(transcript)
        state.failed.pop(str(transcript), None)
        state.save()
        if on_progress:
            on_progress(transcript, report, None)
    return BootstrapCounts(learned, already_done, skipped, failed)
