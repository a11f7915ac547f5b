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


def _arm(sessions: int, recurred: int) -> str:
    return f"{sessions} ({recurred} recurred)"


def _cells(rule: RuleEffect) -> list[str]:
    effect = rule.effect
    if effect is None:
        return ["-", "-", "no data", rule.label]
    figure = effect.figure() + (" before/after" if rule.basis == BEFORE_AFTER else "")
    return [
        _arm(effect.injected, effect.injected_recurred),
        _arm(effect.held, effect.held_recurred),
        figure,
        rule.label,
    ]


def print_rules(rules: list[RuleEffect], header: str) -> None:
    """The table: injected and held-back sessions with their recurrences, the effect with its
    90% interval, the class, and the reflector's counters apart."""
    from rich.table import Table

    console.print(header, markup=False, highlight=False, soft_wrap=True)
    if not rules:
        console.print(
            "No entry has a failure or correction signature yet (see `acecode why NAME`).",
            markup=False,
        )
        return
    table = Table(
        title="Measured effect per entry (injected vs held back; before/after marked: after vs "
        "before, not randomised)"
    )
    for column in (
        "entry",
        "injected",
        "held back",
        "effect [90% interval]",
        "class",
        "reflector +/-",
        "what counts as a recurrence",
    ):
        table.add_column(column, overflow="fold")
    for rule in rules:
        table.add_row(
            rule.entry,
            *_cells(rule),
            f"+{rule.helpful}/-{rule.harmful}",
            rule.signature.describe(),
        )
    console.print(table)
    console.print(
        "effect: the share of the entry's recurrences it removes (positive: fewer); the "
        "interval holds at every look (docs/impact.md). Classes: helps, no evidence yet, "
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
