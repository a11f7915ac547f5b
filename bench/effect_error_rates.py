"""How often the per-rule effect estimate concludes wrongly, looked at after every session.

Usage: ``python bench/effect_error_rates.py [--worlds 50] [--sessions 200] [--rules 20]
[--base 0.3] [--effects 0,0.5] [--holdback-rate 0.2] [--holdback-max 3] [--seed 7]``

A world is one project with ``--rules`` learned rules, each with a signature,
all eligible for the hold-back draw. Every session, one after the other, as
the product does it:

1. the draw of :mod:`acecode.experiments.draw` (the project's salt, the
   session's ID) holds back up to ``--holdback-max`` of the rules still in
   the draw, each a candidate with probability ``--holdback-rate``;
2. each rule's failure recurs with probability ``--base`` when it was held
   back, ``base x (1 - effect)`` when it was injected;
3. the learner's refresh classifies every rule from all its sessions so far
   (:func:`acecode.experiments.estimate.estimate`, the very function the
   product calls), and a rule with a conclusive class leaves the draw, as
   :mod:`acecode.experiments.plan` does.

This exercises the estimate and the draw, not the hooks or the transcripts
(``bench/effect_sim.py`` drives those; they add nothing to the statistics:
a recurrence there is a failure written to a transcript and read back).
It is fast enough for the thousands of rules an error rate needs.

The table gives, per true effect, the share of rules whose final class is
each class after ``--sessions`` sessions. Since a conclusive class is kept
(the rule leaves the draw), "final" is also "ever". Rules of effect 0 are the
error rates: called ``helps`` or ``hurts`` although they do nothing.

Seeded: the same arguments print the same table.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from acecode.experiments.classes import CONCLUSIVE, HELPS, HURTS, NO_EFFECT, NO_EVIDENCE
from acecode.experiments.draw import held_back
from acecode.experiments.estimate import Session, estimate, holdback_probability

ORDER = (HELPS, NO_EFFECT, HURTS, NO_EVIDENCE)


def run_world(rng: random.Random, effects: list[float], args: argparse.Namespace) -> dict[str, str]:
    """The final class of every rule of one world (``rule-NN`` -> class)."""
    salt = rng.randbytes(16)
    names = [f"rule-{i:02d}" for i in range(len(effects))]
    effect = dict(zip(names, effects, strict=True))
    sessions: dict[str, list[Session]] = {name: [] for name in names}
    label = dict.fromkeys(names, NO_EVIDENCE)
    for _ in range(args.sessions):
        session = f"{rng.getrandbits(128):032x}"
        eligible = [name for name in names if label[name] not in CONCLUSIVE]
        if not eligible:
            break
        held = set(held_back(salt, session, eligible, args.holdback_rate, args.holdback_max))
        pi = holdback_probability(len(eligible), args.holdback_rate, args.holdback_max)
        for name in eligible:
            was_held = name in held
            chance = args.base if was_held else args.base * (1 - effect[name])
            sessions[name].append(Session(pi, was_held, rng.random() < chance))
            label[name] = estimate(sessions[name]).label
    return label


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--worlds", type=int, default=50)
    parser.add_argument("--sessions", type=int, default=200)
    parser.add_argument("--rules", type=int, default=20)
    parser.add_argument("--base", type=float, default=0.3)
    parser.add_argument(
        "--effects",
        default="0",
        help="comma-separated true effects, given to the rules in turn (default: all 0)",
    )
    parser.add_argument("--holdback-rate", type=float, default=0.2)
    parser.add_argument("--holdback-max", type=int, default=3)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    values = [float(v) for v in args.effects.split(",")]
    effects = [values[i % len(values)] for i in range(args.rules)]
    rng = random.Random(args.seed)
    started = time.process_time()
    tally: dict[float, Counter[str]] = {value: Counter() for value in values}
    for _ in range(args.worlds):
        for name, cls in run_world(rng, effects, args).items():
            tally[effects[int(name.split("-")[1])]][cls] += 1
    print(
        f"{args.worlds} worlds x {args.rules} rules, {args.sessions} sessions each, base rate "
        f"{args.base:.0%}, hold-back rate {args.holdback_rate} (at most {args.holdback_max}), "
        f"classified after every session; seed {args.seed}\n"
    )
    print("| true effect | rules | " + " | ".join(ORDER) + " |")
    print("|---|---|" + "---|" * len(ORDER))
    for value in values:
        counts = tally[value]
        total = sum(counts.values())
        cells = [f"{counts[cls]} ({100 * counts[cls] / total:.1f}%)" for cls in ORDER]
        print(f"| {value:.0%} | {total} | " + " | ".join(cells) + " |")
    print(f"\n{time.process_time() - started:.1f} s CPU")


if __name__ == "__main__":
    main()
