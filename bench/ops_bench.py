"""Benchmark the playbook core: curator operations and formatting on large playbooks.

Usage (one command):

    python bench/ops_bench.py [--runs N]

For playbooks of 1k and 10k entries spread over the five sections, it times,
in process, the median of N runs of:

- ``apply 10 ops``: ``apply_structured_operations`` with 10 mixed operations
  (3 ADD, 3 UPDATE, 2 MERGE, 2 DELETE) on IDs spread over the playbook. This
  includes the isolation copy that keeps the caller's playbook untouched.
- ``format``: ``format_playbook``, the text injected into a session.
- ``deepcopy (ref)``: ``copy.deepcopy`` of the same playbook, the isolation
  step of the reference implementation (which took 39 ms for the 10 ops on
  10k entries, dominated by that copy; the goal here is at most 20 ms).

Each run also checks the isolation guarantee: the input playbook compares
equal to a deep copy taken before the operations.
"""

from __future__ import annotations

import argparse
import copy
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from acecode.playbook.formatting import format_playbook
from acecode.playbook.operations import (
    apply_operations_with_outcomes,
    apply_structured_operations,
)
from acecode.playbook.schema import SECTION_NAMES, SECTION_SLUGS, empty_playbook

GOAL_MS = 20.0
REFERENCE_MS = 39.0
SIZES = (1_000, 10_000)


def build_playbook(count: int) -> dict[str, Any]:
    """``count`` entries round-robin over the sections, realistic text lengths."""
    playbook = empty_playbook()
    for i in range(count):
        section = SECTION_NAMES[i % len(SECTION_NAMES)]
        playbook["sections"][section].append(
            {
                "name": f"{SECTION_SLUGS[section]}-{i // len(SECTION_NAMES) + 1:03d}",
                "text": f"Entry {i}: run the focused test file before the whole suite, "
                "and read the failing assertion before editing code.",
                "helpful": i % 5,
                "harmful": i % 2,
            }
        )
    return playbook


def mixed_operations(playbook: dict[str, Any]) -> list[dict[str, Any]]:
    """10 operations touching the start, middle and end of different sections."""
    names = {s: [e["name"] for e in entries] for s, entries in playbook["sections"].items()}
    pat, mis, pref, ctx, oth = (names[s] for s in playbook["sections"])
    mid = len(pat) // 2
    return [
        {"type": "ADD", "text": "Prefer pathlib over os.path", "section": "PATTERNS & APPROACHES"},
        {"type": "ADD", "text": "Never commit .env files", "section": "mistakes to avoid"},
        {"type": "ADD", "text": "The CI runs on two cores"},
        {"type": "UPDATE", "target_id": pat[mid], "text": "Revised guidance"},
        {"type": "UPDATE", "target_id": ctx[-1], "text": "Revised context"},
        {"type": "UPDATE", "target_id": pref[0], "text": "Revised preference"},
        {"type": "MERGE", "source_ids": [mis[1], mis[-2]], "merged_text": "Merged mistake"},
        {"type": "MERGE", "source_ids": [oth[mid], pat[-1], ctx[0]], "merged_text": "Merged"},
        {"type": "DELETE", "target_id": oth[-1], "reason": "obsolete"},
        {"type": "DELETE", "target_id": pref[mid], "reason": "duplicate"},
    ]


def median_ms(func: Callable[[], Any], runs: int) -> float:
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        func()
        times.append((time.perf_counter() - started) * 1000)
    return statistics.median(times)


@dataclass
class Row:
    entries: int
    apply_ms: float
    format_ms: float
    deepcopy_ms: float
    input_unchanged: bool


def measure(count: int, runs: int) -> Row:
    playbook = build_playbook(count)
    ops = mixed_operations(playbook)
    pristine = copy.deepcopy(playbook)
    result, outcomes = apply_operations_with_outcomes(playbook, ops)
    if len(outcomes) != len(ops) or not all(o.applied for o in outcomes):
        raise SystemExit(f"not every operation applied: {[o.as_dict() for o in outcomes]}")
    if result == pristine:
        raise SystemExit("the operations changed nothing")
    format_playbook(playbook)  # read the template once, as a warm process would have
    return Row(
        entries=count,
        apply_ms=median_ms(lambda: apply_structured_operations(playbook, ops), runs),
        format_ms=median_ms(lambda: format_playbook(playbook), runs),
        deepcopy_ms=median_ms(lambda: copy.deepcopy(playbook), runs),
        input_unchanged=playbook == pristine,
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=51, help="runs per measurement (median)")
    args = parser.parse_args()
    # An empty scratch project (paths are read per call): no diagnostic mode, no user overrides.
    os.environ["CLAUDE_PROJECT_DIR"] = os.environ["HOME"] = tempfile.mkdtemp(
        prefix="acecode-bench-"
    )
    rows = [measure(count, args.runs) for count in SIZES]
    print(f"python {sys.version.split()[0]}, median of {args.runs} runs, times in ms")
    header = (
        f"{'entries':>8} | {'apply 10 ops':>12} | {'format':>8} | {'deepcopy (ref)':>14} | input"
    )
    print(header)
    print("-" * len(header))
    for row in rows:
        print(
            f"{row.entries:>8} | {row.apply_ms:>12.2f} | {row.format_ms:>8.2f} | "
            f"{row.deepcopy_ms:>14.2f} | {'unchanged' if row.input_unchanged else 'MUTATED'}"
        )
    largest = rows[-1]
    met = largest.apply_ms <= GOAL_MS and all(row.input_unchanged for row in rows)
    print(
        f"goal: 10 ops on {largest.entries} entries <= {GOAL_MS:g} ms with the input unchanged "
        f"(reference {REFERENCE_MS:g} ms): {largest.apply_ms:.2f} ms, {'met' if met else 'MISSED'}"
    )
    return 0 if met else 1


if __name__ == "__main__":
    sys.exit(main())
