"""Probes shared by the playbook core tests (builders: :mod:`support.playbooks`)."""

from __future__ import annotations

from pathlib import Path


def diagnostics(folder: Path, name: str) -> list[str]:
    """Contents of the diagnostic files called ``<timestamp>_<name>.txt``, oldest first."""
    if not folder.is_dir():
        return []
    return [p.read_text(encoding="utf-8") for p in sorted(folder.glob(f"*_{name}.txt"))]
