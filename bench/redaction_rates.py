"""Redaction: how many planted credentials are removed, how much ordinary text is left alone.

Run from the repository root::

    python bench/redaction_rates.py [--src OTHER/src] [--show-train-misses]

On ``tests/data/secrets_planted.json`` (fake credentials of 45 kinds, each in a
realistic line) and ``tests/data/secrets_ordinary.json`` (lookalikes that hold
none), both written without reading the redactor and split into a training part
and a held-out third before any measurement (``tests/data/split_corpus.py``,
seed 21). A planted credential counts as redacted when no run of 10 of its
characters (all of it, when shorter) survives ``acecode.text.redact.redact``;
an ordinary text counts as left alone when it comes back unchanged.

Prints one row per split and, per class, the planted ones that were missed.
``--src`` measures another checkout's code (its ``src`` first on ``sys.path``),
for a before/after. Only counts are printed for the held-out third;
``--show-train-misses`` lists the training part's misses and false positives,
for tuning.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PLANTED = ROOT / "tests" / "data" / "secrets_planted.json"
ORDINARY = ROOT / "tests" / "data" / "secrets_ordinary.json"
WINDOW = 10


def leaks(secret: str, output: str) -> bool:
    """Whether any run of ``WINDOW`` characters of ``secret`` is still in ``output``."""
    size = min(WINDOW, len(secret))
    return any(secret[k : k + size] in output for k in range(len(secret) - size + 1))


def _items(path: Path, split: str) -> list[dict]:
    return [i for i in json.loads(path.read_text(encoding="utf-8"))["items"] if i["split"] == split]


def measure(split: str) -> tuple[list[dict], list[dict], int, int]:
    """The missed planted items and the changed ordinary ones of ``split``, with the totals."""
    from acecode.text.redact import redact

    planted, ordinary = _items(PLANTED, split), _items(ORDINARY, split)
    missed = [item for item in planted if leaks(item["secret"], redact(item["text"]))]
    changed = [item for item in ordinary if redact(item["text"]) != item["text"]]
    return missed, changed, len(planted), len(ordinary)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--src", type=Path, help="the src folder of the acecode to measure")
    parser.add_argument("--show-train-misses", action="store_true")
    args = parser.parse_args()
    if args.src is not None:
        sys.path.insert(0, str(args.src.resolve()))
    print(f"{'split':<8} {'planted redacted':>18} {'ordinary left alone':>21}")
    for split in ("train", "heldout"):
        missed, changed, planted, ordinary = measure(split)
        redacted, alone = planted - len(missed), ordinary - len(changed)
        print(
            f"{split:<8} {redacted:>4}/{planted:<4} {redacted / planted:>7.1%}"
            f" {alone:>6}/{ordinary:<4} {alone / ordinary:>8.1%}"
        )
        by_class = Counter(item["class"] for item in missed)
        if by_class:
            print("         missed: " + ", ".join(f"{k} {n}" for k, n in sorted(by_class.items())))
        if split == "train" and args.show_train_misses:
            from acecode.text.redact import redact

            for item in missed:
                print(f"  MISSED {item['id']}: {item['text'][:120]!r}")
            for item in changed:
                print(f"  CHANGED {item['id']}: {redact(item['text'])[:120]!r}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
