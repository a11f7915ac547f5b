"""Curation report files: one JSON file per learning cycle, beside the playbook.

The report itself is built by :mod:`acecode.consolidation.report` (pure); this
module decides where it goes and writes it atomically.
"""

from __future__ import annotations

import json
import re
from datetime import datetime
from pathlib import Path
from typing import Any

from acecode.project.layer import Layer, Where
from acecode.store.atomic import atomic_write_text, remove_stale_temp_files_in

REPORTS_FOLDER = "reports"


def _safe(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", text).strip("._")[:80] or "cycle"


def report_path(playbook_path: Where, report: dict[str, Any]) -> Path:
    """Where ``report`` goes: ``<state dir>/reports/YYYY-MM-DD/curation_<time>_<cycle>.json``."""
    stamp = datetime.fromisoformat(report["curation_timestamp"])
    folder = Layer.of(playbook_path).file(REPORTS_FOLDER) / f"{stamp:%Y-%m-%d}"
    return folder / f"curation_{stamp:%Y%m%dT%H%M%S}_{_safe(report['cycle_id'])}.json"


def write_report(playbook_path: Where, report: dict[str, Any]) -> Path:
    """Write ``report`` atomically beside the playbook and return the file.

    Call it with the playbook's lock held (``acecode.store.lock``): every
    report writer does, so a temp file left in the folder by a killed writer
    is removed first. Raises ``PlaybookWriteError`` when the disk refuses; the
    caller decides whether a missing report should fail the cycle (it should not).
    """
    target = report_path(playbook_path, report)
    if target.parent.is_dir():
        remove_stale_temp_files_in(target.parent)
    atomic_write_text(target, json.dumps(report, indent=2, ensure_ascii=False, default=str) + "\n")
    return target
