"""Benchmark the text scanners on inputs built to make them slow: is their cost linear?

Usage (one command):

    python bench/worst_case_bench.py [--runs N]

For ``redact`` (secret patterns) and ``extract_json`` (the LLM reply parser), each
worst case of ``tests/support/worst_cases.py`` is run at a size n and at 4n. The
least CPU time of this process over N runs (default 3) is taken at each size:
other processes on a busy machine do not count in it. Linear work grows about 4x;
a quadratic scan grows 16x. The table shows the growth per case and marks a case
over ``GROWTH_BOUND`` (or under ``TOO_FAST_TO_TIME`` at 4n, fast enough whatever
its ratio). The exit status is 1 when a case is over the bound.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

from acecode.llm.jsonx import extract_json  # noqa: E402
from acecode.text.redact import redact  # noqa: E402
from support.worst_cases import JSON_WORST_CASES, redact_adversarial  # noqa: E402

GROWTH_BOUND = 8.0  # halfway (in log scale) between linear (4x) and quadratic (16x)
TOO_FAST_TO_TIME = 0.05  # seconds of CPU time at 4n: fast enough whatever the ratio


def least_cpu_time(work: Callable[[], object], runs: int) -> float:
    """The least CPU time of ``runs`` calls of ``work``."""
    timings = []
    for _ in range(runs):
        started = time.process_time()
        work()
        timings.append(time.process_time() - started)
    return min(timings)


def cases() -> list[tuple[str, Callable[[], object], Callable[[], object], int]]:
    """(name, work at n, work at 4n, characters at 4n) for every worst case."""
    small, large = redact_adversarial(1), redact_adversarial(4)
    rows = [
        ("redact: secret-shaped text", lambda: redact(small), lambda: redact(large), len(large))
    ]
    for name, build in sorted(JSON_WORST_CASES.items()):
        short, long = build(25_000), build(100_000)
        rows.append(
            (
                f"extract_json: {name}",
                lambda text=short: extract_json(text),
                lambda text=long: extract_json(text),
                len(long),
            )
        )
    return rows


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3, help="runs per size (the least is kept)")
    args = parser.parse_args()

    print(f"{'case':<58} {'chars at 4n':>11} {'n (s)':>7} {'4n (s)':>7} {'growth':>7}  verdict")
    over = 0
    for name, at_n, at_4n, chars in cases():
        small, large = least_cpu_time(at_n, args.runs), least_cpu_time(at_4n, args.runs)
        growth = large / max(small, 1e-4)
        if large < TOO_FAST_TO_TIME:
            verdict = "fast enough"
        elif growth < GROWTH_BOUND:
            verdict = "linear"
        else:
            verdict, over = f"OVER {GROWTH_BOUND:g}x", over + 1
        print(f"{name:<58} {chars:>11,} {small:>7.3f} {large:>7.3f} {growth:>6.1f}x  {verdict}")
    print(f"\n{over} case(s) over {GROWTH_BOUND:g}x (linear work grows about 4x, quadratic 16x)")
    return 1 if over else 0


if __name__ == "__main__":
    raise SystemExit(main())
