"""``acecode impact --rules``: the measured effect of each entry, one line per entry."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from acecode.cli.common import console
from acecode.experiments.effects import BEFORE_AFTER, RuleEffect


def experiments_line(on: bool, rate: float, most: int, draws: int) -> str:
    """Whether the hold-back runs, for the top of ``impact --rules``, doctor and the report."""
    if on:
        return (
            f"experiments: on (holdback_rate {rate:g}, at most {most} held back per session); "
            f"{draws} session(s) with a hold-back draw so far"
        )
    return (
        f"experiments: off ({draws} earlier session(s) with a draw); without them only the "
        "before/after baseline is shown, which is not randomised and never concludes. "
        "Turn them on with `experiments = true` in ~/.claude/acecode.toml"
    )


def _arm(label: str, sessions: int, recurred: int) -> str:
    return f"{label} {sessions} ({recurred} recurred)"


def rule_line(rule: RuleEffect, width: int) -> str:
    """One entry: its sessions and recurrences in each arm, the effect with its 90% interval,
    the class, the reflector's counters apart, and what counts as a recurrence."""
    effect = rule.effect
    reflector = f"reflector +{rule.helpful}/-{rule.harmful}"
    if effect is None:
        parts = ["no session counted yet", rule.label]
    elif rule.basis == BEFORE_AFTER:
        parts = [
            _arm("after", effect.injected, effect.injected_recurred),
            _arm("before", effect.held, effect.held_recurred),
            f"{effect.figure()} (before/after, not randomised)",
            rule.label,
        ]
    else:
        parts = [
            _arm("injected", effect.injected, effect.injected_recurred),
            _arm("held back", effect.held, effect.held_recurred),
            effect.figure(),
            rule.label,
        ]
    return "  ".join(
        [rule.entry.ljust(width), *parts, reflector, f"counts: {rule.signature.describe()}"]
    )


def print_rules(rules: list[RuleEffect], header: str) -> None:
    """One line per entry (see :func:`rule_line`), under the line saying whether experiments
    run."""
    console.print(header, markup=False, highlight=False, soft_wrap=True)
    if not rules:
        console.print(
            "No entry has a failure or correction signature yet (see `acecode why NAME`).",
            markup=False,
        )
        return
    width = max(len(rule.entry) for rule in rules)
    for rule in rules:
        console.print(rule_line(rule, width), markup=False, highlight=False, soft_wrap=True)
    console.print(
        "effect: the share of the entry's recurrences it removes (positive: fewer) and its 90% "
        "interval, valid at every look (docs/impact.md). Classes: helps, no evidence yet, "
        "no measurable effect (neither halves nor doubles), hurts.",
        markup=False,
        highlight=False,
        soft_wrap=True,
    )


def rules_json(rules: list[RuleEffect], folder: Path, on: bool, draws: int) -> dict[str, Any]:
    """``acecode impact --rules --json``."""
    return {
        "transcripts": str(folder),
        "experiments": on,
        "sessions_with_draw": draws,
        "rules": [rule.as_dict() for rule in rules],
    }
