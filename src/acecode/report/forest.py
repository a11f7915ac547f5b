"""The report's "Measured effect per rule" section: a forest plot and its table.

One row per entry with a randomised estimate (:mod:`acecode.experiments`): its
90% interval as a bar, its estimate as a dot, the zero line (no effect)
marked, on a scale of -100% (twice as many recurrences... clipped there) to
+100% (none left). Entries measured only against the weaker before/after
baseline are listed in the table, marked, but not plotted: a plot would put
them on the same footing as a randomised figure. The reflector's
helpful/harmful counters stay in their own column, apart from the measured
effect. Every text is escaped (:func:`html.escape`), as in
:mod:`acecode.report.html`.
"""

from __future__ import annotations

import html
from collections.abc import Sequence

from acecode.experiments.classes import HELPS, HURTS, NO_EFFECT
from acecode.experiments.effects import BEFORE_AFTER, RANDOMISED, RuleEffect

WIDTH, LEFT, RIGHT, ROW, TOP = 1000, 260, 40, 22, 34
LOW, HIGH = -1.0, 1.0  # the scale, as a share of recurrences removed
COLOURS = {HELPS: "#2f9e44", HURTS: "#e03131", NO_EFFECT: "#868e96"}
UNDECIDED = "#3e7cb1"


def _e(value: object) -> str:
    return html.escape(str(value), quote=True)


def _x(value: float) -> float:
    clipped = min(max(value, LOW), HIGH)
    return LEFT + (WIDTH - LEFT - RIGHT) * (clipped - LOW) / (HIGH - LOW)


def forest_plot(rules: Sequence[RuleEffect]) -> str:
    """The SVG: one row per randomised estimate, the zero line, the scale."""
    plotted = [r for r in rules if r.basis == RANDOMISED and r.effect is not None]
    height = TOP + ROW * len(plotted) + 28
    zero = _x(0.0)
    shapes = [
        f'<line class="zero" x1="{zero:.1f}" y1="{TOP - 8}" x2="{zero:.1f}" '
        f'y2="{height - 22}" stroke="#1f2933" stroke-width="1.5"/>'
    ]
    for tick in (-1.0, -0.5, 0.0, 0.5, 1.0):
        x = _x(tick)
        label = "no effect" if tick == 0 else f"{100 * tick:+.0f}%"
        shapes.append(
            f'<text x="{x:.1f}" y="{height - 6}" font-size="11" text-anchor="middle" '
            f'fill="#52606d">{_e(label)}</text>'
        )
    for row, rule in enumerate(plotted):
        effect = rule.effect
        assert effect is not None
        y = TOP + ROW * row + ROW / 2
        low, high = effect.interval
        colour = COLOURS.get(rule.label, UNDECIDED)
        title = f"{rule.entry}: {effect.figure()}, {rule.label}"
        parts = [
            f'<text x="8" y="{y + 4:.1f}" font-size="12" fill="#1f2933">'
            f"{_e(rule.entry)} ({_e(rule.label)})</text>",
            f'<rect class="interval" x="{_x(low):.1f}" y="{y - 4:.1f}" '
            f'width="{max(_x(high) - _x(low), 2):.1f}" height="8" fill="{colour}" '
            f'fill-opacity="0.55"><title>{_e(title)}</title></rect>',
        ]
        if effect.reduction is not None:
            parts.append(
                f'<circle class="estimate" cx="{_x(effect.reduction):.1f}" cy="{y:.1f}" r="4" '
                f'fill="{colour}"/>'
            )
        shapes.append(f'<g class="effect-row" data-entry="{_e(rule.entry)}">{"".join(parts)}</g>')
    legend = (
        '<text x="8" y="18" font-size="12" fill="#52606d">share of the entry\'s recurrences '
        "it removes, 90% interval valid at every look; left of the line: more recurrences "
        "with the entry</text>"
    )
    return (
        f'<svg id="forest" role="img" aria-label="measured effect per entry" width="{WIDTH}" '
        f'height="{height}" viewBox="0 0 {WIDTH} {height}" xmlns="http://www.w3.org/2000/svg">'
        f"{legend}{''.join(shapes)}</svg>"
    )


def _arm(sessions: int, recurred: int) -> str:
    share = f" ({100 * recurred / sessions:.0f}%)" if sessions else ""
    return _e(f"{recurred} of {sessions}{share}")


def effects_section(rules: Sequence[RuleEffect], experiments: str) -> str:
    """The section body: whether experiments are on, the plot, the table."""
    out = [f'<p class="meta" id="experiments-state">{_e(experiments)}</p>']
    if not rules:
        return "".join(out) + '<p class="empty">No entry has a failure or correction signature.</p>'
    if any(r.basis == RANDOMISED for r in rules):
        out.append(forest_plot(rules))
    else:
        out.append('<p class="empty">No randomised estimate yet (see above).</p>')
    head = (
        "entry",
        "basis",
        "injected: recurred",
        "held back: recurred",
        "effect [90% interval]",
        "class",
        "reflector helpful/harmful",
    )
    rows = []
    for rule in rules:
        effect = rule.effect
        after, before = ("after", "before") if rule.basis == BEFORE_AFTER else ("", "")
        cells = [
            _e(rule.entry),
            _e(rule.basis),
            _arm(effect.injected, effect.injected_recurred) + _e(f" {after}") if effect else "-",
            _arm(effect.held, effect.held_recurred) + _e(f" {before}") if effect else "-",
            _e(effect.figure()) if effect else "no data",
            _e(rule.label),
            _e(f"{rule.helpful} / {rule.harmful}"),
        ]
        rows.append("<tr>" + "".join(f"<td>{cell}</td>" for cell in cells) + "</tr>")
    header = "".join(f"<th>{_e(h)}</th>" for h in head)
    out.append(f"<table><thead><tr>{header}</tr></thead><tbody>{''.join(rows)}</tbody></table>")
    return "".join(out)
