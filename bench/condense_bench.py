"""Condensation benchmark: raw vs condensed tokens, and what share of the signal survives.

Run ``python bench/condense_bench.py [--budget N]``. Reads every ``.jsonl``
under ``../shared/transcripts/`` (falling back to ``tests/data/transcripts/``)
and prints one row per file: raw tokens (the file's text, same estimator),
condensed tokens, and the share of human requests and failed tool calls
whose text is present in the rendering (first 200 characters of a request,
first 100 of an error, whitespace collapsed). Goal: 100% of both, every
rendering within the budget.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from acecode.transcript import load_transcript
from acecode.transcript.condense import DEFAULT_BUDGET_TOKENS, condense
from acecode.transcript.text import estimate_tokens

ROOT = Path(__file__).resolve().parent.parent
CANDIDATES = (ROOT.parent / "shared" / "transcripts", ROOT / "tests" / "data" / "transcripts")


def _norm(text: str) -> str:
    return " ".join(text.split())


def _kept(messages: list[dict], rendering: str) -> tuple[int, int, int, int]:
    """(requests kept, requests, errors kept, errors)."""
    flat = _norm(rendering)
    requests = [_norm(m["content"])[:200] for m in messages if m["kind"] == "prompt"]
    errors = [
        _norm(m["content"])[:100] for m in messages if m["kind"] == "tool_result" and m["is_error"]
    ]
    return (
        sum(r in flat for r in requests),
        len(requests),
        sum(e in flat for e in errors),
        len(errors),
    )


def _share(kept: int, total: int) -> str:
    return "-" if total == 0 else f"{100 * kept / total:.0f}%"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--budget", type=int, default=DEFAULT_BUDGET_TOKENS)
    args = parser.parse_args()
    root = next((p for p in CANDIDATES if p.is_dir()), None)
    if root is None:
        print("no transcripts found", file=sys.stderr)
        return 1
    files = sorted(root.rglob("*.jsonl"))
    print(f"transcripts: {root}  budget: {args.budget} tokens\n")
    header = (
        f"{'file':58} {'raw tok':>9} {'cond tok':>9} {'requests':>10} {'errors':>10} {'sec':>6}"
    )
    print(header)
    print("-" * len(header))
    totals = [0, 0, 0, 0, 0, 0]
    over = 0
    for path in files:
        raw = estimate_tokens(path.read_text(encoding="utf-8", errors="replace"))
        started = time.perf_counter()
        messages = load_transcript(path)
        rendering = condense(messages, args.budget)
        seconds = time.perf_counter() - started
        condensed = estimate_tokens(rendering)
        over += condensed > args.budget
        rk, rn, ek, en = _kept(messages, rendering)
        for index, value in enumerate((raw, condensed, rk, rn, ek, en)):
            totals[index] += value
        name = str(path.relative_to(root))
        name = name if len(name) <= 58 else "…" + name[-57:]
        print(
            f"{name:58} {raw:>9,} {condensed:>9,} {f'{rk}/{rn}':>10} {f'{ek}/{en}':>10} "
            f"{seconds:>6.2f}"
        )
    print("-" * len(header))
    raw, condensed, rk, rn, ek, en = totals
    print(
        f"{f'TOTAL ({len(files)} files)':58} {raw:>9,} {condensed:>9,} {f'{rk}/{rn}':>10} "
        f"{f'{ek}/{en}':>10}"
    )
    print(
        f"\nrequests kept: {_share(rk, rn)}   failed tool calls kept: {_share(ek, en)}   "
        f"renderings over budget: {over}"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
