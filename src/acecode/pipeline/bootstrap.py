"""Learn from a project's existing sessions, oldest first, resumably.

Progress is kept in ``.claude/acecode/bootstrap.json`` (written atomically
after every session), so Ctrl-C or a crash loses at most the session in
flight, and a rerun skips what is done. A failed session is logged, recorded
and skipped; it is retried on the next run.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from acecode.pipeline.cycle import CycleReport, run_cycle_sync
from acecode.store.atomic import atomic_write_text
from acecode.store.lock import exclusive_lock


@dataclass
class BootstrapState:
    """Sessions already learned from (by path, with size and mtime) and failures."""

    path: Path
    done: dict[str, dict[str, Any]] = field(default_factory=dict)
    failed: dict[str, str] = field(default_factory=dict)

    @classmethod
    def load(cls, path: Path) -> BootstrapState:
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
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


def bootstrap(
    transcripts: list[Path],
    *,
    state_path: Path,
    playbook_path: Path | None,
    delay: float,
    on_progress: Callable[[Path, CycleReport | None, str | None], None] | None = None,
) -> tuple[int, int, int]:
    """Learn from each pending transcript; returns (learned, skipped, failed).

    ``on_progress`` is called after each transcript with its report or error
    (both None for a transcript skipped as already learned).
    KeyboardInterrupt propagates after the state of finished sessions is saved.
    """
    state = BootstrapState.load(state_path)
    learned = skipped = failed = 0
    first = True
    for transcript in transcripts:
        if state.is_done(transcript):
            skipped += 1
            if on_progress:
                on_progress(transcript, None, None)
            continue
        if not first and delay > 0:
            time.sleep(delay)
        first = False
        try:
            report = run_cycle_sync(transcript, playbook_path=playbook_path, source="bootstrap")
            if not report.learned:
                raise RuntimeError(f"nothing learned ({report.status}); see `acecode doctor`")
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
    return learned, skipped, failed
