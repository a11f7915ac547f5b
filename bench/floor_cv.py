"""Cross-validated rates of the learned screen, within the training parts of the corpora.

Run from the repository root::

    python bench/floor_cv.py [--folds 5]

The held-out thirds are for the final figure only (``bench/quarantine_rates.py``);
tuning looks at these estimates instead. Each fold's model is fitted on the
other folds (``bench/screen_training.py``: folds by paraphrase family,
stratified by class) and its threshold is chosen by an inner
cross-validation on those same folds, so neither the weights nor the
threshold have seen the texts they are scored on. Printed:

1. the learned screen alone: dangerous texts held per corpus and class,
   benign tips held per language, benign prohibitions ("never X") held;
2. the hand-written detectors on the same texts, for reference only: they
   were written with the whole training part in view, so on it they are a
   training figure, not an estimate (the held-out third says how they
   generalise);
3. the no-review path (floor, "not reviewed" detectors and the learned
   screen) the same way, and the floor's hard negatives written for its
   tests (``tests/quarantine/test_floor_classes.py``), which are not
   training data;
4. the learned screen's cost per text.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))

from screen_training import (  # noqa: E402
    FOLDS,
    Item,
    fit,
    folds,
    logit,
    out_of_fold,
    threshold,
    training_items,
)

Held = Callable[[int], bool]


def _rate(held: int, total: int) -> str:
    return f"{held}/{total} ({held / total:.0%})" if total else "-"


def nested_cross_validation(items: list[Item], rows: list[list[str]], k: int) -> list[bool]:
    """Is each item held by the model fitted on the other folds, at the threshold that
    model would ship with (chosen by an inner cross-validation on the other folds only)?"""
    fold_of = folds(items, k)
    held = [False] * len(items)
    for fold in range(k):
        train = [i for i in range(len(items)) if fold_of[i] != fold]
        inner_items, inner_rows = [items[i] for i in train], [rows[i] for i in train]
        cut = threshold(inner_items, out_of_fold(inner_items, inner_rows, k))
        model = fit(inner_rows, [item.dangerous for item in inner_items])
        for i in range(len(items)):
            if fold_of[i] == fold:
                held[i] = logit(model, rows[i]) >= cut
    return held


def table(title: str, items: list[Item], modes: dict[str, Held]) -> None:
    """Dangerous held per corpus, class and language, benign per language, for each mode."""
    print(f"\n{title}")
    groups: dict[str, list[int]] = defaultdict(list)
    for index, item in enumerate(items):
        if item.dangerous:
            corpus = item.corpus.removeprefix("quarantine_").removesuffix(".json")
            groups[f"dangerous {corpus} / {item.kind}"].append(index)
            groups[f"dangerous, language {item.language}"].append(index)
        else:
            groups[f"benign, language {item.language}"].append(index)
            if item.style == "negated":
                groups["benign prohibitions (negated)"].append(index)
    for label, dangerous in (("ALL dangerous", True), ("ALL benign", False)):
        groups[label] = [i for i, item in enumerate(items) if item.dangerous == dangerous]
    names = list(modes)
    width = max(len(name) for name in groups) + 2
    print("  " + "".ljust(width) + "".join(name.ljust(24) for name in names))
    for name in sorted(groups, key=lambda n: (n.startswith("ALL"), n)):
        indices = groups[name]
        cells = [_rate(sum(modes[mode](i) for i in indices), len(indices)) for mode in names]
        print("  " + name.ljust(width) + "".join(cell.ljust(24) for cell in cells))


def hard_negatives(
    screen_text: Callable[[str], Any], sensitive_touch: Callable[[str], Any]
) -> None:
    """The floor's hard negatives (test examples, not training data), with the shipped model."""
    sys.path.insert(0, str(ROOT / "tests" / "quarantine"))
    from test_floor_classes import SAFE

    from acecode.quarantine.learned import score

    texts = [text for group in SAFE.values() for text in group]
    hand = sum(screen_text(t).flagged or sensitive_touch(t) is not None for t in texts)
    learned = sum(score(t).held for t in texts)
    both = sum(
        screen_text(t).flagged or sensitive_touch(t) is not None or score(t).held for t in texts
    )
    print(
        "\nHard negatives of tests/quarantine/test_floor_classes.py (benign, their language "
        f"trusted), held: "
        f"hand no-review {_rate(hand, len(texts))}, shipped learned screen "
        f"{_rate(learned, len(texts))}, both {_rate(both, len(texts))}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--folds", type=int, default=FOLDS)
    args = parser.parse_args()
    from acecode.quarantine.learned import features
    from acecode.quarantine.screen import screen_text
    from acecode.quarantine.unreviewed import sensitive_touch

    items = training_items()
    started = time.process_time()
    rows = [features(item.text) for item in items]
    cost = (time.process_time() - started) / len(items) * 1e3
    learned = nested_cross_validation(items, rows, args.folds)
    floor = [screen_text(item.text).flagged for item in items]
    touched = [sensitive_touch(item.text) is not None for item in items]
    print(
        f"{len(items)} training texts ({sum(i.dangerous for i in items)} dangerous), "
        f"{args.folds} folds by paraphrase family, threshold by inner cross-validation"
    )
    table(
        "Held: the learned screen out of fold; the hand detectors (a training figure)",
        items,
        {
            "learned screen": lambda i: learned[i],
            "hand floor": lambda i: floor[i],
            "hand no-review": lambda i: floor[i] or touched[i],
            "no-review + learned": lambda i: floor[i] or touched[i] or learned[i],
        },
    )
    hard_negatives(screen_text, sensitive_touch)
    print(f"\nLearned screen cost: {cost:.3f} ms CPU per text (features and score)")


if __name__ == "__main__":
    main()
