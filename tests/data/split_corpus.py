"""Hold out a seeded third of a quarantine corpus before anyone measures on it.

Usage: ``python tests/data/split_corpus.py FILE [FILE ...]``

Each FILE is a corpus laid out like ``quarantine_dangerous_2.json``: a ``split``
object that names the ``seed`` and the item field the third is drawn per
(``by``: ``"class"``, ``"language"``, ``"repo"`` or ``"construction"``), and a list of
``items`` with an ``id``.
For each value of that field in turn, the ids of its items are sorted, shuffled
with ``random.Random(f"{seed}:{value}")``, and the first ``round(n / 3)`` are
held out; the rest is the training part. The script writes each item's ``split``,
the method and the counts back into the file.

Why a script: the held-out third is what the final figures are reported on, so
it has to be fixed by a rule anyone can re-run, not picked by a person who has
seen which texts the screen holds. Running it again leaves the file unchanged,
byte for byte (``tests/quarantine/test_quarantine_corpora_2.py`` checks that).
"""

from __future__ import annotations

import json
import random
import sys
from collections import defaultdict
from pathlib import Path

METHOD = (
    "for each {by} in turn: sort the ids of that {by}, shuffle them with "
    "random.Random(f'{{seed}}:{{{by}}}'), and hold out the first round(n / 3); "
    "the rest is the training part (tests/data/split_corpus.py)"
)
GROUP_FIELDS = ("class", "language", "repo", "construction")


def held_out_ids(items: list[dict], seed: int, by: str) -> set[str]:
    """Ids of the held-out third: a seeded shuffle of each group's sorted ids."""
    groups: dict[str, list[str]] = defaultdict(list)
    for item in items:
        groups[item[by]].append(item["id"])
    held: set[str] = set()
    for value, ids in groups.items():
        ids = sorted(ids)
        random.Random(f"{seed}:{value}").shuffle(ids)
        held.update(ids[: round(len(ids) / 3)])
    return held


def apply_split(corpus: dict) -> dict:
    """Return the corpus with every item's ``split`` and the split summary set.

    Raises ValueError, with a one-line reason, when the corpus lacks what the
    split needs.
    """
    split = corpus.get("split")
    if not isinstance(split, dict) or not isinstance(split.get("seed"), int):
        raise ValueError("'split' must be an object with an integer 'seed'")
    by = split.get("by")
    if by not in GROUP_FIELDS:
        raise ValueError(f"'split.by' must be one of {', '.join(GROUP_FIELDS)}")
    items = corpus.get("items")
    if not isinstance(items, list) or not items:
        raise ValueError("'items' must be a non-empty list")
    for number, item in enumerate(items, 1):
        if not (
            isinstance(item, dict)
            and isinstance(item.get("id"), str)
            and isinstance(item.get(by), str)
        ):
            raise ValueError(f"item {number} needs a string 'id' and a string {by!r}")
    ids = [item["id"] for item in items]
    if len(set(ids)) != len(ids):
        raise ValueError("item ids are not unique")
    held = held_out_ids(items, split["seed"], by)
    for item in items:
        item["split"] = "heldout" if item["id"] in held else "train"
    corpus["split"] = {
        "seed": split["seed"],
        "by": by,
        "method": METHOD.format(by=by),
        "heldout": len(held),
        "train": len(items) - len(held),
    }
    return corpus


def dump(corpus: dict) -> str:
    """The file text: one-space indentation and UTF-8 text, as the other corpora."""
    return json.dumps(corpus, indent=1, ensure_ascii=False) + "\n"


def main(argv: list[str]) -> int:
    if not argv:
        print(__doc__.strip().splitlines()[2], file=sys.stderr)
        return 2
    for name in argv:
        path = Path(name)
        try:
            corpus = json.loads(path.read_text(encoding="utf-8"))
            if not isinstance(corpus, dict):
                raise ValueError("the top level must be a JSON object")
            text = dump(apply_split(corpus))
        except (OSError, ValueError) as error:
            print(f"split_corpus: {name}: {error}", file=sys.stderr)
            return 1
        path.write_text(text, encoding="utf-8")
        summary = corpus["split"]
        print(f"{name}: {summary['heldout']} held out, {summary['train']} train")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
