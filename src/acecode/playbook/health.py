"""Playbook health metrics: how big, how proven and how detailed the playbook is.

The consolidation document asks the curator to keep a playbook in a healthy
band (50-150 entries), to grow freely below 100 entries and refine from 100
on, and to watch the effectiveness ratio helpful / (helpful + harmful). These
numbers feed ``acecode stats`` and every curation report. Pure: a plain dict
in, a plain JSON-ready dict out.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from acecode.playbook.schema import SECTION_NAMES, iter_entries

REFINEMENT_FROM = 100
HEALTHY_BAND = (50, 150)
EFFECTIVENESS_TARGET = 0.85
CYCLE_COUNT_KEYS: tuple[str, ...] = ("added", "updated", "merged", "deleted", "pruned")


def size_in_words(total: int) -> str:
    """The playbook's size against the healthy band, in words a user reads without the
    consolidation document (``doctor``, ``stats``)."""
    low, high = HEALTHY_BAND
    if total == 0:
        return "none yet: rules appear once a session has been learned from"
    if total < low:
        return f"a small playbook, still growing; {low}-{high} entries is a healthy size"
    if total <= high:
        return f"a healthy size ({low}-{high} entries)"
    return (
        f"larger than the healthy {low}-{high} entries: `acecode stats` shows the untested and "
        "possibly stale ones to prune"
    )


def _ratio(numerator: int, denominator: int) -> float | None:
    return round(numerator / denominator, 4) if denominator else None


def normalise_cycle_counts(cycle_counts: Mapping[str, Any] | None) -> dict[str, int]:
    """Every key of ``CYCLE_COUNT_KEYS`` as an int (missing or invalid values are 0)."""
    counts = cycle_counts or {}
    normalised = {}
    for key in CYCLE_COUNT_KEYS:
        value = counts.get(key, 0)
        normalised[key] = value if isinstance(value, int) and not isinstance(value, bool) else 0
    return normalised


def compute_health(
    playbook: dict[str, Any], cycle_counts: Mapping[str, Any] | None = None
) -> dict[str, Any]:
    """Health metrics of ``playbook``; ``cycle_counts`` describes the last cycle.

    ``cycle_counts`` maps ``added``/``updated``/``merged``/``deleted``/``pruned``
    to the number of entries concerned (``merged`` counts entries merged
    away); missing keys count as 0. Ratios are ``None`` when undefined (no
    evaluations, no entries) rather than a misleading 0 or 1.
    """
    per_section = {section: 0 for section in SECTION_NAMES}
    helpful_total = harmful_total = untested = text_chars = 0
    for section, entry in iter_entries(playbook):
        per_section[section] += 1
        helpful_total += entry["helpful"]
        harmful_total += entry["harmful"]
        untested += entry["helpful"] == 0 and entry["harmful"] == 0
        text_chars += len(entry["text"])
    total = sum(per_section.values())
    effectiveness = _ratio(helpful_total, helpful_total + harmful_total)
    low, high = HEALTHY_BAND
    return {
        "total_entries": total,
        "entries_per_section": per_section,
        "helpful_total": helpful_total,
        "harmful_total": harmful_total,
        "effectiveness_ratio": effectiveness,
        "effectiveness_target_met": None
        if effectiveness is None
        else effectiveness > EFFECTIVENESS_TARGET,
        "average_helpful_count": _ratio(helpful_total, total),
        "untested_entries": untested,
        "average_text_length": round(text_chars / total, 1) if total else None,
        "growth_phase": "refinement" if total >= REFINEMENT_FROM else "growth",
        "in_healthy_band": low <= total <= high,
        "this_cycle": normalise_cycle_counts(cycle_counts),
    }
