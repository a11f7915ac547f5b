"""Diagnostic files and one-line user messages.

Diagnostics are opt-in: they are written only while the flag file
``.claude/diagnostic_mode`` exists, so a normal session leaves no trace.
Every diagnostic is passed through secret redaction before it touches disk.
The pure core reports its events through logging (:mod:`acecode.events`);
:class:`acecode.project.diagnostics_handler.DiagnosticsHandler` turns them into these
files and lines.

The injection hook's cache miss imports this module (through the playbook
schema and migration), so ``pathlib`` and ``datetime`` are imported only by
the functions that look for or write a diagnostic.
"""

from __future__ import annotations

import re
import sys
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pathlib import Path


def is_diagnostic_mode() -> bool:
    """True when ``<project>/.claude/diagnostic_mode`` exists."""
    from acecode.project import paths

    return (paths.claude_dir() / "diagnostic_mode").exists()


def _safe_name(name: str) -> str:
    cleaned = re.sub(r"[^A-Za-z0-9_.-]+", "_", name).strip("._")
    return cleaned[:80] or "diagnostic"


def save_diagnostic(content: str, name: str) -> Path | None:
    """Write ``content`` to ``.claude/diagnostic/<timestamp>_<name>.txt``.

    Returns the file written, or None when the write failed: a diagnostic must
    never break the operation it describes.
    """
    from datetime import datetime

    from acecode.project import paths
    from acecode.text.redact import redact

    folder = paths.claude_dir() / "diagnostic"
    stamp = datetime.now().strftime("%Y%m%d_%H%M%S_%f")
    data = redact(content).encode("utf-8", "backslashreplace")
    target = folder / f"{stamp}_{_safe_name(name)}.txt"
    try:
        folder.mkdir(parents=True, exist_ok=True)
        for attempt in range(1, 100):
            try:
                with target.open("xb") as handle:  # never overwrite a same-instant diagnostic
                    handle.write(data)
                break
            except FileExistsError:
                target = folder / f"{stamp}_{_safe_name(name)}_{attempt}.txt"
    except OSError as exc:
        warn(f"could not write diagnostic {target}: {exc.strerror or exc}")
        return None
    return target


def diagnose(name: str, content: str) -> None:
    """Save a diagnostic only when diagnostic mode is on (the OBS-* pattern)."""
    if is_diagnostic_mode():
        save_diagnostic(content, name)


def warn(message: str) -> None:
    """Print one line to stderr, prefixed so the user knows who is talking."""
    print(f"acecode: {message}", file=sys.stderr, flush=True)
