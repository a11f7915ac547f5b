"""How well the correction signature matches, on the hand-labelled messages of the shared
transcripts.

Usage: ``python bench/correction_match.py [--show]``

Reads ``tests/data/corrections.json`` (the 71 messages users typed in the main
transcripts of ``../shared/transcripts``, labelled by hand before the matcher
was written; see tests/data/SOURCES.md) and reports two things:

- **is it a correction**: :func:`acecode.impact.correction.is_correction` on
  every message against the ``correction`` label;
- **the same correction again**: for every labelled correction, the rule
  learned from it (the file's ``rules``) gets its correction signature
  (:func:`~acecode.impact.correction.correction_terms` of the rule and the
  message); every *other* message is then a recurrence when the matcher says
  it is a correction about the same thing. The truth is the ``cluster``
  label: another correction of the same cluster.

Precision and recall with their counts; ``--show`` lists the misses and false
matches.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from acecode.impact.correction import (
    correction_terms,
    is_correction,
    same_correction,
    topic_terms,
)

DATA = Path(__file__).resolve().parent.parent / "tests" / "data" / "corrections.json"


def _ratio(hit: int, total: int) -> str:
    return f"{hit / total:.2f} ({hit}/{total})" if total else "n/a (0/0)"


def detection(messages: list[dict]) -> tuple[int, int, int, list[str]]:
    """True positives, false positives, false negatives, and the wrong ones."""
    tp = fp = fn = 0
    wrong = []
    for message in messages:
        said = is_correction(message["text"])
        if said and message["correction"]:
            tp += 1
        elif said:
            fp += 1
            wrong.append(f"false correction #{message['id']}: {message['text'][:90]!r}")
        elif message["correction"]:
            fn += 1
            wrong.append(f"missed correction #{message['id']}: {message['text'][:90]!r}")
    return tp, fp, fn, wrong


def recurrence(messages: list[dict], rules: list[dict]) -> tuple[int, int, int, list[str]]:
    """The same counts over (rule, later message) pairs."""
    by_id = {message["id"]: message for message in messages}
    tp = fp = fn = 0
    wrong = []
    for rule in rules:
        source = by_id[rule["source"]]
        signature = correction_terms(rule["text"], [source["text"]])
        for message in messages:
            if message["id"] == source["id"]:
                continue
            truth = source["cluster"] is not None and message["cluster"] == source["cluster"]
            said = is_correction(message["text"]) and same_correction(
                signature, topic_terms(message["text"])
            )
            if said and truth:
                tp += 1
            elif said:
                fp += 1
                wrong.append(f"rule of #{source['id']} matched #{message['id']} (not the same)")
            elif truth:
                fn += 1
                wrong.append(f"rule of #{source['id']} missed #{message['id']}")
    return tp, fp, fn, wrong


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--show", action="store_true", help="list the wrong answers")
    args = parser.parse_args()
    data = json.loads(DATA.read_text(encoding="utf-8"))
    messages, rules = data["messages"], data["rules"]
    rows = [
        ("is a correction (messages)", *detection(messages)),
        ("same correction again (rule, message pairs)", *recurrence(messages, rules)),
    ]
    print(
        f"{len(messages)} messages, {sum(m['correction'] for m in messages)} corrections, "
        f"{len(rules)} rules\n"
    )
    print("| question | precision | recall | TP | FP | FN |")
    print("|---|---|---|---|---|---|")
    for label, tp, fp, fn, _ in rows:
        print(f"| {label} | {_ratio(tp, tp + fp)} | {_ratio(tp, tp + fn)} | {tp} | {fp} | {fn} |")
    if args.show:
        for *_, wrong in rows:
            print("\n".join(wrong))


if __name__ == "__main__":
    main()
