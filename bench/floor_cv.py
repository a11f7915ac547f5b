"""Cross-validated rates of the learned screen, within the training parts of the corpora.

Run from the repository root::

    python bench/floor_cv.py [--folds 5]

The held-out thirds are for the final figure only (``bench/quarantine_rates.py``);
tuning looks at these estimates instead. Each fold's model is fitted on the
other folds (``bench/screen_training.py``: folds by paraphrase family,
stratified by class) and its two thresholds are chosen by an inner
cross-validation on those same folds, so neither the weights nor the
thresholds have seen the texts they are scored on. Printed:

1. the learned screen alone, at the floor's threshold and at the "not
   reviewed" one: dangerous texts held per corpus and class, benign tips
   held per language, benign prohibitions ("never X") held;
2. the hand-written detectors on the same texts, for reference only: they
   were written with the whole training part in view, so on it they are a
   training figure, not an estimate (the held-out third says how they
   generalise);
3. the no-review path (floor, "not reviewed" detectors and the learned
   screen) the same way;
4. the learned screen's cost per text.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from screen_training import (
    FOLDS,
    Item,
    fit,
    folds,
    logit,
    out_of_fold,
    thresholds,
    training_items,
)

Held = Callable[[int], bool]


def _rate(held: int, total: int) -> str:
    return f"{held}/{total} ({held / total:.0%})" if total else "-"


def nested_cross_validation(
    items: list[Item], rows: list[list[str]], k: int
) -> tuple[list[float], list[dict[str, float]]]:
    """Each item's out-of-fold logit, and the thresholds its fold's model would ship with
    (chosen by an inner cross-validation on the other folds only)."""
    fold_of = folds(items, k)
    logits: list[float] = [0.0] * len(items)
    cuts: list[dict[str, float]] = [{}] * len(items)
    for fold in range(k):
        train = [i for i in range(len(items)) if fold_of[i] != fold]
        inner_items, inner_rows = [items[i] for i in train], [rows[i] for i in train]
        fold_cuts = thresholds(inner_items, out_of_fold(inner_items, inner_rows, k))
        model = fit(inner_rows, [item.dangerous for item in inner_items])
        for i in range(len(items)):
            if fold_of[i] == fold:
                logits[i], cuts[i] = logit(model, rows[i]), fold_cuts
    return logits, cuts


def table(title: str, items: list[Item], modes: dict[str, Held]) -> None:
    """Dangerous held per corpus and class, benign held per language, for each mode."""
    print(f"\n{title}")
    groups: dict[str, list[int]] = defaultdict(list)
    for index, item in enumerate(items):
        if item.dangerous:
            corpus = item.corpus.removeprefix("quarantine_").removesuffix(".json")
            groups[f"dangerous {corpus} / {item.kind}"].append(index)
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
    logits, cuts = nested_cross_validation(items, rows, args.folds)
    floor = [screen_text(item.text).flagged for item in items]
    touched = [sensitive_touch(item.text) is not None for item in items]
    print(
        f"{len(items)} training texts ({sum(i.dangerous for i in items)} dangerous), "
        f"{args.folds} folds by paraphrase family, thresholds by inner cross-validation"
    )
    table(
        "Learned screen alone, out of fold (held)",
        items,
        {
            "at floor threshold": lambda i: logits[i] >= cuts[i]["floor"],
            "at not-reviewed thr.": lambda i: logits[i] >= cuts[i]["unreviewed"],
        },
    )
    table(
        "Paths, out of fold for the learned screen (hand detectors: training figure)",
        items,
        {
            "hand floor": lambda i: floor[i],
            "floor + learned": lambda i: floor[i] or logits[i] >= cuts[i]["floor"],
            "hand no-review": lambda i: floor[i] or touched[i],
            "no-review + learned": lambda i: (
                floor[i] or touched[i] or logits[i] >= cuts[i]["unreviewed"]
            ),
        },
    )
    print(f"\nLearned screen cost: {cost:.3f} ms CPU per text (features and score)")


if __name__ == "__main__":
    main()
