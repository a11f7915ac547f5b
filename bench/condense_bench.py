"""Condensation benchmark: raw vs condensed tokens, and what share of the signal survives.

Run ``python bench/condense_bench.py [--budget N]``. Reads every ``.jsonl``
under ``../shared/transcripts/`` (falling back to ``tests/data/transcripts/``)
and prints one row per file: raw tokens (the file's text, same estimator),
condensed tokens, and the share of human requests (answers the user gave to
the agent's questions included) and failed tool calls whose text is present
in the rendering (first 200 characters of a request,
first 100 of an error, whitespace collapsed), and of the agent's first
reply after each failed call (its first 80 characters: what it did next,
context rather than signal, the first thing a smaller budget cuts). Goal:
100% of requests and failed calls, every rendering within the budget.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from acecode.transcript import load_transcript
from acecode.transcript.condense import (
    DEFAULT_BUDGET_TOKENS,
    condense,
    fold_paths,
    rendered_root,
)
from acecode.transcript.text import estimate_tokens

ROOT = Path(__file__).resolve().parent.parent
# Tools whose result holds the user's own words: an answer is a request too.
USER_ANSWERS = ("AskUserQuestion", "ExitPlanMode")
# ../shared/transcripts beside the checkout (or beside a folder of worktrees), else the copy.
CANDIDATES = (
    *(folder / "shared" / "transcripts" for folder in ROOT.parents),
    ROOT / "tests" / "data" / "transcripts",
)


def _norm(text: str) -> str:
    return " ".join(text.split())


def _replies_after_errors(messages: list[dict]) -> list[str]:
    """The first assistant text after each failed tool call."""
    replies, waiting = [], False
    for message in messages:
        if message["kind"] == "tool_result" and message.get("is_error"):
            waiting = True
        elif waiting and message["kind"] == "text":
            replies.append(message["content"])
            waiting = False
    return replies


def _kept(messages: list[dict], rendering: str) -> tuple[int, ...]:
    """(requests kept, requests, errors kept, errors, replies kept, replies); the project
    folder in paths is written as ``./`` in a rendering (its header names it), so it is
    folded here too."""
    flat = _norm(rendering)
    root = rendered_root(rendering)

    def expected(text: str, length: int) -> str:
        return _norm(fold_paths(text, root))[:length]

    requests = [
        expected(m["content"], 200)
        for m in messages
        if m["kind"] == "prompt"
        or (m["kind"] == "tool_result" and m.get("tool_name") in USER_ANSWERS)
    ]
    errors = [
        expected(m["content"], 100)
        for m in messages
        if m["kind"] == "tool_result" and m["is_error"]
    ]
    replies = [expected(text, 80) for text in _replies_after_errors(messages)]
    return (
        sum(r in flat for r in requests),
        len(requests),
        sum(e in flat for e in errors),
        len(errors),
        sum(r in flat for r in replies),
        len(replies),
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
        f"{'file':58} {'raw tok':>9} {'cond tok':>9} {'requests':>10} {'errors':>10} "
        f"{'next':>8} {'sec':>6}"
    )
    print(header)
    print("-" * len(header))
    totals = [0] * 8
    over = 0
    for path in files:
        raw = estimate_tokens(path.read_text(encoding="utf-8", errors="replace"))
        started = time.perf_counter()
        messages = load_transcript(path)
        rendering = condense(messages, args.budget)
        seconds = time.perf_counter() - started
        condensed = estimate_tokens(rendering)
        over += condensed > args.budget
        rk, rn, ek, en, nk, nn = _kept(messages, rendering)
        for index, value in enumerate((raw, condensed, rk, rn, ek, en, nk, nn)):
            totals[index] += value
        name = str(path.relative_to(root))
        name = name if len(name) <= 58 else "…" + name[-57:]
        print(
            f"{name:58} {raw:>9,} {condensed:>9,} {f'{rk}/{rn}':>10} {f'{ek}/{en}':>10} "
            f"{f'{nk}/{nn}':>8} {seconds:>6.2f}"
        )
    print("-" * len(header))
    raw, condensed, rk, rn, ek, en, nk, nn = totals
    print(
        f"{f'TOTAL ({len(files)} files)':58} {raw:>9,} {condensed:>9,} {f'{rk}/{rn}':>10} "
        f"{f'{ek}/{en}':>10} {f'{nk}/{nn}':>8}"
    )
    print(
        f"\nrequests kept: {_share(rk, rn)}   failed tool calls kept: {_share(ek, en)}   "
        f"replies after a failure kept: {_share(nk, nn)}   renderings over budget: {over}"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
