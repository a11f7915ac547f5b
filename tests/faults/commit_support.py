"""What the commit fault tests check after a save was cut: every entry has its records.

An entry of the playbook that a cut run added must have its history journal change
(``acecode history``, ``acecode undo``), its provenance (``acecode why``) and its
arrival record (the next session must not announce it as arrived with the repository).
"""

from __future__ import annotations

import os
import signal
import subprocess
import time
from pathlib import Path

from fault_support import ACECODE

from acecode.arrivals.fingerprint import fingerprint, machine_key
from acecode.arrivals.marks import read_marks
from acecode.project.layer import Layer
from acecode.store import load_playbook
from acecode.store.commit import PAUSE_ENV, PAUSE_FILE_ENV
from acecode.store.journal import entries_added_at
from acecode.store.provenance import load_provenance
from support.hang_guard import HANG_GUARD, killed_after


def texts(playbook: Path) -> dict[str, str]:
    """Entry name -> text of the playbook as loaded."""
    book = load_playbook(playbook)
    return {e["name"]: e["text"] for entries in book["sections"].values() for e in entries}


def missing_records(playbook: Path, before: dict[str, str]) -> dict[str, list[str]]:
    """For each entry not in ``before`` (name -> text), the records it lacks."""
    journal = entries_added_at(playbook)
    provenance = load_provenance(playbook)
    key = machine_key()
    assert key is not None
    known = read_marks(str(Layer.of(playbook).folder)).known
    gaps: dict[str, list[str]] = {}
    for name, text in texts(playbook).items():
        if before.get(name) == text:
            continue
        lacking = [
            record
            for record, present in (
                ("journal", name in journal),
                ("provenance", bool(provenance.get(name))),
                ("arrival record", fingerprint(key, text) in known),
            )
            if not present
        ]
        if lacking:
            gaps[name] = lacking
    return gaps


def run_paused(args: list[str], env: dict[str, str], cwd: Path, step: str, tmp: Path) -> None:
    """Run ``python -m acecode ARGS`` until it reaches the commit step ``step``, then
    SIGKILL it there."""
    marker = tmp / f"paused-{step}"
    marker.unlink(missing_ok=True)
    child = subprocess.Popen(
        [*ACECODE, *args],
        env={**env, PAUSE_ENV: step, PAUSE_FILE_ENV: str(marker)},
        cwd=cwd,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    with killed_after(child):
        while not marker.exists():
            assert child.poll() is None, f"{args} ended before {step}: {child.stderr.read()}"
            time.sleep(0.01)
        os.kill(child.pid, signal.SIGKILL)
        child.wait(timeout=HANG_GUARD)
    assert child.returncode == -signal.SIGKILL
