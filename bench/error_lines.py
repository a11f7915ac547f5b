"""The error-line reader on real failed-call outputs: informative line, "Exit code" alone, and
learned signature against later signature, per part of the corpus.

    python bench/error_lines.py [--misses]

Reads ``tests/data/error_outputs.json`` (169 outputs in 32 formats: 86 from real
tools run for it, 83 from the shared transcripts; its held-out third was drawn by
``tests/data/split_corpus.py`` before the reader was tuned). For each output:

* *informative*: the line :func:`acecode.impact.signature.error_line` picks
  contains one of the lines labelled as saying what failed;
* *"Exit code" alone*: the line picked is ``Exit code N`` while the labels name a
  better line (the goal is none);
* *learned = later*: the signature a learning cycle records for the failure (its
  evidence through the provenance file, :func:`evidence_signature`) equals the one
  ``acecode impact`` computes from the transcript (the output clipped as the
  transcript reader keeps it) and recall from the hook's payload (the output whole).

``--misses`` lists the outputs whose line is not the labelled one.
"""

from __future__ import annotations

import argparse
import re
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "impact"))

from test_error_outputs import ITEMS, TRANSCRIPT_CHARS, learned_signature  # noqa: E402

from acecode.impact.signature import error_line, signature_of  # noqa: E402
from acecode.transcript.text import clip, strip_ansi  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--misses", action="store_true", help="list the outputs missed")
    args = parser.parse_args()
    counts: dict[str, Counter[str]] = {"train": Counter(), "heldout": Counter()}
    misses = []
    for item in ITEMS:
        count = counts[item["split"]]
        line = error_line(item["output"])
        informative = any(accepted in line for accepted in item["accept"])
        exit_alone = bool(re.fullmatch(r"Exit code \d+", line)) and not all(
            accepted.startswith("Exit code") for accepted in item["accept"]
        )
        whole = signature_of(item["tool"], item["command"], item["output"])
        clipped = clip(strip_ansi(item["output"]), TRANSCRIPT_CHARS)
        later = signature_of(item["tool"], item["command"], clipped)
        count["outputs"] += 1
        count["informative"] += informative
        count["exit_alone"] += exit_alone
        count["equal"] += learned_signature(item) == whole == later
        if not informative:
            misses.append((item["split"], item["id"], line))
    print(
        f"{'part':8} {'outputs':>7} {'informative line':>17} {'Exit code alone':>16} "
        f"{'learned = later':>16}"
    )
    for part in ("train", "heldout"):
        c = counts[part]
        n = c["outputs"]
        print(
            f"{part:8} {n:>7} {c['informative']:>7} ({c['informative'] / n:4.0%}) "
            f"{c['exit_alone']:>16} {c['equal']:>7} ({c['equal'] / n:4.0%})"
        )
    if args.misses:
        for part, item_id, line in misses:
            print(f"  {part:8} {item_id:28} {line[:100]}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
