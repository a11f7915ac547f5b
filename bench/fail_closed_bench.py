"""Fail closed: what lands in the playbook while the safety review never answers in JSON.

Usage: ``python bench/fail_closed_bench.py [--failing 4] [--seed 27]``

Real learning cycles (``acecode.pipeline.cycle.run_cycle``, not dry runs) in a fresh
project against a scripted Anthropic Messages server on 127.0.0.1. The curator of
each cycle proposes ten texts drawn (seeded) from the held-out thirds of the
quarantine corpora, dangerous and benign shuffled together (``tests/data``:
``quarantine_dangerous*.json``, ``quarantine_benign*.json``). Two phases:

1. ``--failing`` cycles whose safety reviewer never returns valid JSON (a plain
   sentence): no review is made, so no text may enter the playbook; every text the
   floor does not hold waits in the review queue as "not reviewed";
2. one cycle whose reviewer answers: it flags the dangerous texts and passes the
   benign ones (a scripted reviewer that knows the labels: this measures the
   plumbing, not a model's judgement, which ``bench/relay_review.py`` measures);
   its curator proposes nothing new, so what lands is what waited.

Printed per phase: the dangerous and benign texts proposed, landed in the playbook,
held by the floor, and waiting for a review. Goals (issue 27): no dangerous text
lands, in either phase; while the review fails no text lands at all; at the first
cycle whose review passes them, every benign text that waited lands (the cycle
reviews up to 12,000 characters of waiting texts: about forty).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import io
import json
import os
import random
import sys
import tempfile
from pathlib import Path
from typing import Any

from _sessions import batch_transcript

BENCH_DIR = Path(__file__).resolve().parent
DATA = BENCH_DIR.parent / "tests" / "data"
CORPORA = (
    ("quarantine_dangerous_3.json", True),
    ("quarantine_benign_3.json", False),
    ("quarantine_dangerous_2.json", True),
    ("quarantine_benign_2.json", False),
)
PER_CYCLE = 10


def _texts(count: int, seed: int) -> list[tuple[str, bool]]:
    """``count`` held-out texts with their label (dangerous?), half of each, shuffled."""
    pools: dict[bool, list[str]] = {True: [], False: []}
    for name, dangerous in CORPORA:
        items = json.loads((DATA / name).read_text(encoding="utf-8"))["items"]
        pools[dangerous] += [item["text"] for item in items if item["split"] == "heldout"]
    rng = random.Random(seed)
    chosen = [(text, True) for text in rng.sample(pools[True], count // 2)]
    chosen += [(text, False) for text in rng.sample(pools[False], count - count // 2)]
    rng.shuffle(chosen)
    return chosen


def _items(prompt: str) -> list[dict[str, Any]]:
    start = prompt.index("\n[") + 1
    items, _ = json.JSONDecoder().raw_decode(prompt, start)
    return items


def run(failing: int, seed: int) -> list[dict[str, Any]]:
    """The phases' counts (see the module docstring)."""
    sys.path.insert(0, str(BENCH_DIR))
    from _scripted_anthropic import ScriptedAnthropic
    from acecode.pipeline.cycle import run_cycle
    from acecode.playbook.operations import clean_text
    from acecode.playbook.schema import iter_entries
    from acecode.quarantine.queue import list_pending
    from acecode.quarantine.unreviewed import is_not_reviewed
    from acecode.store import load_playbook

    labelled = _texts(failing * PER_CYCLE, seed)
    # The review sees the texts as they are stored: secrets redacted.
    dangerous = {clean_text(text) for text, bad in labelled if bad}
    state = {"review": "broken"}

    def router(system: str, prompt: str) -> str:
        lowered = prompt.lower()
        if "you are the safety reviewer" in lowered:
            if state["review"] == "broken":
                return "I reviewed the rules and they look fine to me."
            verdicts = [
                {"id": i["id"], "verdict": "flag", "class": "other", "severity": "high",
                 "reason": "labelled dangerous"}
                if i["text"] in dangerous
                else {"id": i["id"], "verdict": "safe"}
                for i in _items(prompt)
            ]  # fmt: skip
            return json.dumps({"verdicts": verdicts})
        batch = int(lowered.split("batch-", 1)[1].split(":", 1)[0].split()[0])
        if "you are the curator" in lowered:
            texts = labelled[batch * PER_CYCLE : (batch + 1) * PER_CYCLE]
            operations = [{"type": "ADD", "text": t, "section": "OTHERS"} for t, _ in texts]
            return json.dumps({"reasoning": "bench", "operations": operations})
        return json.dumps({"analysis": f"BATCH-{batch}: the session tidied up.", "bullet_tags": []})

    def counts(phase: str, proposed: list[tuple[str, bool]]) -> dict[str, Any]:
        landed = {entry["text"] for _, entry in iter_entries(load_playbook())}
        pending = list_pending()
        waiting = {item.text for item in pending if is_not_reviewed(item.rule)}
        held = {item.text for item in pending if not is_not_reviewed(item.rule)}
        row: dict[str, Any] = {"phase": phase}
        for label, bad in (("dangerous", True), ("benign", False)):
            # As stored: secrets are redacted before a text is queued or saved.
            texts = {clean_text(text) for text, flag in proposed if flag is bad}
            row[label] = {
                "proposed": len(texts),
                "landed": len(texts & landed),
                "held": len(texts & held),
                "waiting": len(texts & waiting),
            }
        return row

    rows = []
    with tempfile.TemporaryDirectory() as tmp, ScriptedAnthropic(router) as server:
        project, home = Path(tmp) / "project", Path(tmp) / "home"
        (project / ".claude").mkdir(parents=True)
        home.mkdir()
        saved = dict(os.environ)
        os.environ.update(
            {**server.env(), "CLAUDE_PROJECT_DIR": str(project), "HOME": str(home),
             "ACECODE_JUDGE_MAX_PAIRS": "0"}
        )  # fmt: skip
        try:
            with contextlib.redirect_stderr(io.StringIO()):
                for number in range(failing):
                    transcript = batch_transcript(Path(tmp) / f"s{number}.jsonl", number)
                    asyncio.run(run_cycle(transcript, ignore_budget=True))
                rows.append(counts(f"after {failing} cycles, review never in JSON", labelled))
                state["review"] = "working"
                transcript = batch_transcript(Path(tmp) / "last.jsonl", failing)  # proposes nothing
                asyncio.run(run_cycle(transcript, ignore_budget=True))
                rows.append(counts("after the first cycle whose review answers", labelled))
        finally:
            os.environ.clear()
            os.environ.update(saved)
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--failing", type=int, default=4, help="cycles with the review broken")
    parser.add_argument("--seed", type=int, default=27)
    args = parser.parse_args()
    rows = run(args.failing, args.seed)
    print(f"{args.failing} cycles of {PER_CYCLE} held-out texts, seed {args.seed}\n")
    print(
        "| phase | side | proposed | landed | held by the floor or a flag | waiting for a review |"
    )
    print("|---|---|--:|--:|--:|--:|")
    for row in rows:
        for side in ("dangerous", "benign"):
            c = row[side]
            print(
                f"| {row['phase']} | {side} | {c['proposed']} | {c['landed']} | {c['held']} "
                f"| {c['waiting']} |"
            )
    broken, working = rows
    ok = (
        broken["dangerous"]["landed"] == 0
        and broken["benign"]["landed"] == 0
        and working["dangerous"]["landed"] == 0
        and working["benign"]["waiting"] == 0
        and working["benign"]["landed"] == broken["benign"]["waiting"]
    )
    print(f"\ngoals met: {'yes' if ok else 'NO'}")


if __name__ == "__main__":
    main()
